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
		// A line that is not protocol JSON breaks the protocol at once, the answer after it unread.
		{name: "garbage before the answer", script: `read l; echo 'hello from the SDK'; echo '{"id":1,"outcome":"ok","result":{}}'; read l`,
			timeout: 5 * time.Second, wantKind: "protocol", wantBad: 1},
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

func TestValidatorNamesTheBrokenLine(t *testing.T) {
	v, err := LoadValidator("../../drivers/protocol.schema.json")
	require.NoError(t, err)
	tests := []struct {
		name, line, want string
	}{
		{"ok response", `{"id":1,"outcome":"ok","result":{}}`, ""},
		{"ok without result", `{"id":1,"outcome":"ok"}`, "result"},
		{"error without message", `{"id":1,"outcome":"error","error":{"type":"X"}}`, "message"},
		{"unsupported without reason", `{"id":1,"outcome":"unsupported"}`, "reason"},
		{"event", `{"event":"tool.invoked","args":{"session":"s1","tool":"t"}}`, ""},
		{"unknown event", `{"event":"tool.exploded","args":{}}`, "not valid"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := v.Line([]byte(tt.line))
			if tt.want == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
	assert.Error(t, v.Hello([]byte(`{"protocolVersion":1,"sdk":"node","version":"","capabilities":{}}`)), "an empty version is not a version")
	c, err := Start(context.Background(), Local{Argv: []string{"sh", "-c", `read l; echo '{"id":1,"outcome":"ok"}'; read l`}})
	require.NoError(t, err)
	defer c.Kill()
	c.SetValidator(v)
	_, err = c.Call(context.Background(), "hello", nil, 5*time.Second)
	var f *Failure
	require.ErrorAs(t, err, &f)
	assert.Equal(t, "protocol", f.Kind)
}
