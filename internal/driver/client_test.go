package driver

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// These drivers are shell scripts that misbehave on purpose; they test the harness's side of
// the protocol, not an SDK.
func TestClientSurvivesBadDrivers(t *testing.T) {
	tests := []struct {
		name       string
		script     string
		timeout    time.Duration
		wantKind   string // Failure kind, or "" for a response
		wantStderr string
		wantBad    int // lines reported as not protocol
	}{
		{name: "answers", script: `read l; echo '{"id":1,"outcome":"ok","result":{}}'; read l`, timeout: 5 * time.Second},
		{name: "garbage before the answer", script: `read l; echo 'hello from the SDK'; echo '{"id":1,"outcome":"ok","result":{}}'; read l`,
			timeout: 5 * time.Second, wantBad: 1},
		{name: "crash", script: `read l; echo 'panic: boom' >&2; exit 3`, timeout: 5 * time.Second, wantKind: "crashed", wantStderr: "panic: boom"},
		{name: "hang", script: `read l; echo 'stuck' >&2; sleep 30`, timeout: 300 * time.Millisecond, wantKind: "timed out", wantStderr: "stuck"},
		{name: "bad outcome", script: `read l; echo '{"id":1,"outcome":"maybe"}'; read l`, timeout: 5 * time.Second, wantKind: "protocol"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Start(context.Background(), Local{Argv: []string{"sh", "-c", tt.script}})
			require.NoError(t, err)
			defer c.Kill()
			var mu sync.Mutex
			bad := 0
			c.SetSink(func(l Line) {
				mu.Lock()
				defer mu.Unlock()
				if l.Err != nil {
					bad++
				}
			})
			r, err := c.Call(context.Background(), "hello", nil, tt.timeout)
			if tt.wantKind == "" {
				require.NoError(t, err)
				assert.Equal(t, OK, r.Outcome)
			} else {
				var f *Failure
				require.True(t, errors.As(err, &f), "want a *Failure, got %v", err)
				assert.Equal(t, tt.wantKind, f.Kind)
				assert.Contains(t, f.Error(), tt.wantStderr)
			}
			mu.Lock()
			assert.Equal(t, tt.wantBad, bad)
			mu.Unlock()
		})
	}
}

func TestTailKeepsTheEnd(t *testing.T) {
	tail := &Tail{Max: 5}
	_, _ = tail.Write([]byte("abc"))
	_, _ = tail.Write([]byte("defg"))
	assert.Equal(t, "cdefg", tail.String())
}
