package cancel

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/copilot-sdk-conformance/conformance/internal/driver"
	"github.com/copilot-sdk-conformance/conformance/steps/scenario"
)

// A cancelled call passes only when it ended within the bound with the language's cancellation
// error: a call that returned anyway, raised something else, or ended late fails, naming what.
func TestJudgeCancelled(t *testing.T) {
	after, bound := 200*time.Millisecond, 2*time.Second
	tests := []struct {
		name string
		c    cancelled
		want string // "" passes
	}{
		{name: "cancelled in time", c: cancelled{outcome: driver.Error, took: 210 * time.Millisecond, errType: "deadlineExceededError", flagged: true}},
		{name: "returned a session", c: cancelled{outcome: driver.OK, took: 3 * time.Second}, want: "createSession returned although the application cancelled it after 200ms"},
		{name: "another error", c: cancelled{outcome: driver.Error, took: 300 * time.Millisecond, errType: "RuntimeError", message: "boom"}, want: `with RuntimeError "boom", not the language's cancellation error`},
		{name: "cancelled too late", c: cancelled{outcome: driver.Error, took: 3 * time.Second, errType: "TimeoutError", flagged: true}, want: "beyond the bound of 2s"},
		{name: "unsupported", c: cancelled{outcome: driver.Unsupported}, want: "createSession ended unsupported"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.c.after, tt.c.call = after, "createSession"
			err := judgeCancelled(tt.c, bound)
			if tt.want == "" {
				assert.NoError(t, err)
				return
			}
			if assert.Error(t, err) {
				assert.Contains(t, err.Error(), tt.want)
			}
		})
	}
}

// Each call the application can cancel needs its own capability, so an SDK that can bound one
// call and not another is unsupported for that call alone.
func TestCancelNeedsACapabilityPerCall(t *testing.T) {
	tests := []struct {
		cmd  string
		args map[string]any
		want string
	}{
		{"createSession", map[string]any{"client": "c1", "session": "s1", "tools": []any{}, "cancelAfterMs": 200}, "call.cancel.createSession"},
		{"resumeSession", map[string]any{"client": "c1", "session": "s2", "sessionId": "x", "tools": []any{}, "cancelAfterMs": 200}, "call.cancel.resumeSession"},
		{"send", map[string]any{"session": "s1", "prompt": "p", "wait": false, "cancelAfterMs": 200}, "call.cancel.send"},
		{"send", map[string]any{"session": "s1", "prompt": "p", "wait": true, "cancelAfterMs": 200}, "call.cancel.sendAndWait"},
		{"rpc", map[string]any{"client": "c1", "method": "ping", "params": nil, "cancelAfterMs": 200}, "call.cancel.rpc"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			assert.Contains(t, scenario.CommandNeeds(tt.cmd, tt.args), tt.want)
			delete(tt.args, "cancelAfterMs")
			assert.NotContains(t, scenario.CommandNeeds(tt.cmd, tt.args), tt.want, "without cancelAfterMs the call needs no cancellation")
		})
	}
}

// A send-and-wait after a cancelled one passes only with its own turn's reply: the cancelled
// turn's reply (what an SDK counting any session.idle returns) fails, naming both.
func TestJudgeOwnReply(t *testing.T) {
	tests := []struct {
		name   string
		result string
		want   string // the error; "" passes
	}{
		{name: "its own turn's reply", result: `{"messageId":"a1","content":"second"}`},
		{name: "the cancelled turn's reply", result: `{"messageId":"a1","content":"first"}`, want: `sdk's send-and-wait after the cancelled one returned "first", another turn's reply, not its own turn's "second"`},
		{name: "no reply", result: `null`, want: "returned no reply (result null)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := judgeOwnReply(json.RawMessage(tt.result), "second", "sdk")
			if tt.want == "" {
				assert.NoError(t, err)
				return
			}
			assert.ErrorContains(t, err, tt.want)
		})
	}
}
