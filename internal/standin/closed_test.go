package standin

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A call to the SDK on a connection that closes while it is pending, or that is closed already,
// ends with ErrClosed: nothing is waited for on a connection that can no longer answer (a sweep
// of hundreds of calls used to wait out callWait for each). The pending call is asked before
// the close, so the test never depends on how long the wait would have been.
func TestCallsOnAClosedConnectionFailAtOnce(t *testing.T) {
	tests := []struct {
		name         string
		notification bool
		closeFirst   bool
	}{
		{name: "pending when the SDK closes"},
		{name: "asked after the close", closeFirst: true},
		{name: "a notification after the close", notification: true, closeFirst: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _, addr := start(t)
			c := dial(t, addr)
			sid := c.call("session.create", map[string]any{}).Result
			var created struct {
				SessionID string `json:"sessionId"`
			}
			require.NoError(t, json.Unmarshal(sid, &created))
			done := make(chan error, 1)
			ask := func() {
				_, err := srv.Ask(created.SessionID, "sessionFs.stat", map[string]any{"sessionId": created.SessionID, "path": "/"}, tt.notification)
				done <- err
			}
			if tt.closeFirst {
				require.NoError(t, c.c.Close())
				require.Eventually(t, func() bool {
					srv.mu.Lock()
					defer srv.mu.Unlock()
					return len(srv.conns) == 0
				}, 10*time.Second, 5*time.Millisecond, "the runtime sees the connection end")
				ask()
			} else {
				go ask()
				m := c.read() // the call is pending on the SDK now
				require.Equal(t, "sessionFs.stat", m.Method)
				require.NoError(t, c.c.Close())
			}
			err := <-done
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrClosed)
		})
	}
}
