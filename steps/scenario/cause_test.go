package scenario

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/driver"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/copilot-sdk-conformance/conformance/steps/scenario/scenariotest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lostTarget is a Target whose driver is gone: every command fails with the driver's failure.
type lostTarget struct{ scenariotest.Target }

func (lostTarget) Driver(context.Context) (*driver.Client, error) {
	return nil, &driver.Failure{Kind: "timed out", Cmd: "send", Detail: "no answer within 30s"}
}
func (lostTarget) CommandTimeout() time.Duration { return time.Second }

// A command that fails names the earlier request the transcript blames, with its method, id and
// line; a failure with nothing earlier outstanding names no cause.
func TestFailedCommandNamesItsCause(t *testing.T) {
	tests := []struct {
		name   string
		frames []string // "<" the runtime's, ">" the SDK's, recorded before the command
		want   string   // empty: no cause
	}{
		{
			name: "a runtime request the SDK never answered",
			frames: []string{
				`>{"jsonrpc":"2.0","id":1,"method":"session.create","params":{"sessionId":"s1"}}`,
				`<{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s1"}}`,
				`<{"jsonrpc":"2.0","id":"p1","method":"permission.request","params":{"sessionId":"s1"}}`,
			},
			want: `; caused by an earlier request: runtime->sdk request permission.request (id "p1", conn c1, transcript line 3) was still waiting for the SDK's answer`,
		},
		{
			name: "a request naming the session before its opening was answered",
			frames: []string{
				`>{"jsonrpc":"2.0","id":1,"method":"session.create","params":{"sessionId":"s1"}}`,
				`>{"jsonrpc":"2.0","id":2,"method":"session.skills.reload","params":{"sessionId":"s1"}}`,
				`<{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"unknown session"}}`,
				`<{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s1"}}`,
			},
			want: `; caused by an earlier request: sdk->runtime request session.skills.reload (id 2, conn c1, transcript line 2) named session s1 before its opening session.create (id 1, transcript line 1) was answered (line 4)`,
		},
		{
			name: "an unrelated failure",
			frames: []string{
				`>{"jsonrpc":"2.0","id":1,"method":"session.create","params":{"sessionId":"s1"}}`,
				`<{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s1"}}`,
				`<{"jsonrpc":"2.0","id":"p1","method":"permission.request","params":{"sessionId":"s1"}}`,
				`>{"jsonrpc":"2.0","id":"p1","result":{"kind":"approved"}}`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := transcript.Memory()
			for _, f := range tt.frames {
				dir := transcript.SDKToRuntime
				if f[0] == '<' {
					dir = transcript.RuntimeToSDK
				}
				rec.Frame("c1", dir, []byte(f[1:]))
			}
			w := &Scenario{T: lostTarget{}, Ctx: context.Background(), Rec: rec}
			_, err := w.Do("send", map[string]any{"session": "h", "prompt": "hi"})
			require.Error(t, err)
			var f *driver.Failure
			assert.True(t, errors.As(err, &f), "the driver's failure stays reachable")
			assert.True(t, driver.EndsScenario(err))
			if tt.want == "" {
				assert.Equal(t, f.Error(), err.Error(), "a false cause")
				return
			}
			assert.Contains(t, err.Error(), tt.want)
			assert.Contains(t, err.Error(), "driver timed out")
		})
	}
}
