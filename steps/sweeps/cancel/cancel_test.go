package cancel

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/copilot-sdk-conformance/conformance/internal/driver"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/copilot-sdk-conformance/conformance/steps/scenario"
)

// A cancelled call passes only when it ended with the language's cancellation error while the
// runtime still withheld its answer, within the bound on the transcript's clock: a call that
// returned anyway, raised something else, ended only after the answer came or ended late fails,
// naming what.
func TestJudgeCancelled(t *testing.T) {
	after, bound := 200*time.Millisecond, 2*time.Second
	ended := course{ended: true, request: true}
	tests := []struct {
		name string
		c    cancelled
		want string // "" passes
	}{
		{name: "cancelled in time", c: cancelled{outcome: driver.Error, took: 210 * time.Millisecond, course: ended, errType: "deadlineExceededError", flagged: true}},
		{name: "returned a session", c: cancelled{outcome: driver.OK, took: 30 * time.Second, course: course{ended: true, answeredFirst: true}}, want: "createSession returned although the application cancelled it after 200ms"},
		{name: "another error", c: cancelled{outcome: driver.Error, took: 300 * time.Millisecond, course: ended, errType: "RuntimeError", message: "boom"}, want: `with RuntimeError "boom", not the language's cancellation error`},
		{name: "cancelled only once the answer came", c: cancelled{outcome: driver.Error, took: 1500 * time.Millisecond, course: course{ended: true, answeredFirst: true}, errType: "TimeoutError", flagged: true}, want: "only after the runtime's withheld answer arrived"},
		{name: "cancelled too late by the transcript's clock", c: cancelled{outcome: driver.Error, took: 3 * time.Second, course: ended, errType: "TimeoutError", flagged: true}, want: "beyond the bound of 2s (cancelled after 200ms; the transcript's clock"},
		{name: "a loaded driver, ended at once after its cancel fired", c: cancelled{outcome: driver.Error, took: 3 * time.Second, afterCancel: ms(4), course: ended, errType: "TimeoutError", flagged: true}},
		{name: "ended late after its cancel fired", c: cancelled{outcome: driver.Error, took: 900 * time.Millisecond, afterCancel: ms(2500), course: ended, errType: "TimeoutError", flagged: true}, want: "ended 2.5s after its cancellation took effect (the driver's clock"},
		{name: "no answer in the transcript", c: cancelled{outcome: driver.Error, errType: "TimeoutError", flagged: true}, want: "not in the transcript"},
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

// The call's course is read from the transcript's times: from the SDK's request of the withheld
// method (the command when it sent none) to the driver's answer to the command; the runtime's
// withheld answer (or the turn's end) before that answer is seen.
func TestCallCourse(t *testing.T) {
	cmd := entry(1, 100, transcript.HarnessToDriver, `{"id":7,"cmd":"send","args":{}}`)
	req := entry(2, 900, transcript.SDKToRuntime, `{"jsonrpc":"2.0","id":"r1","method":"session.send","params":{}}`)
	other := entry(3, 950, transcript.SDKToRuntime, `{"jsonrpc":"2.0","id":"r0","method":"ping","params":{}}`)
	answer := entry(4, 1000, transcript.RuntimeToSDK, `{"jsonrpc":"2.0","id":"r1","result":{}}`)
	idle := entry(4, 1000, transcript.RuntimeToSDK, `{"jsonrpc":"2.0","method":"session.event","params":{"event":{"type":"session.idle","data":{}}}}`)
	event := entry(5, 1050, transcript.DriverToHarness, `{"event":"session.event","args":{}}`)
	reply := entry(6, 1300, transcript.DriverToHarness, `{"id":7,"outcome":"error","error":{"cancelled":true}}`)
	// An earlier attempt's prompt the SDK wrote after that attempt ended, and its turn's end.
	late := entry(2, 300, transcript.SDKToRuntime, `{"jsonrpc":"2.0","id":"r9","method":"session.send","params":{"prompt":"cancelled"}}`)
	again := entry(3, 900, transcript.SDKToRuntime, `{"jsonrpc":"2.0","id":"r1","method":"session.send","params":{"prompt":"cancelled (made again, attempt 2)"}}`)
	tests := []struct {
		name    string
		entries []transcript.Entry
		prompt  string
		turnEnd bool
		want    course
		took    time.Duration
	}{
		{"from the SDK's request", []transcript.Entry{cmd, req, other, event, reply}, "", false, course{fromMS: 900, endMS: 1300, request: true, ended: true}, 400 * time.Millisecond},
		{"no request: from the command", []transcript.Entry{cmd, other, reply}, "", false, course{fromMS: 100, endMS: 1300, ended: true}, 1200 * time.Millisecond},
		{"the withheld answer came first", []transcript.Entry{cmd, req, answer, reply}, "", false, course{fromMS: 900, endMS: 1300, request: true, ended: true, answeredFirst: true}, 400 * time.Millisecond},
		{"the turn ended first", []transcript.Entry{cmd, req, answer, idle, reply}, "", true, course{fromMS: 900, endMS: 1300, request: true, ended: true, answeredFirst: true}, 400 * time.Millisecond},
		{"the send's own answer is no turn's end", []transcript.Entry{cmd, req, answer, reply}, "", true, course{fromMS: 900, endMS: 1300, request: true, ended: true}, 400 * time.Millisecond},
		{"an earlier attempt's late prompt and turn are not this call's", []transcript.Entry{cmd, late, idle, again, reply}, "cancelled (made again, attempt 2)", true, course{fromMS: 900, endMS: 1300, request: true, ended: true}, 400 * time.Millisecond},
		{"no answer from the driver", []transcript.Entry{cmd, req}, "", false, course{fromMS: 900, request: true}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := callCourse(tt.entries, []string{"session.send"}, tt.prompt, tt.turnEnd)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.took, got.took())
		})
	}
}

func ms(n int) *time.Duration {
	d := time.Duration(n) * time.Millisecond
	return &d
}

func entry(seq int, ms float64, dir, frame string) transcript.Entry {
	return transcript.Entry{Seq: seq, TMS: ms, Dir: dir, Frame: []byte(frame)}
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

// The cancelled prompt reached the runtime only if a session.send carrying it did.
func TestPromptReached(t *testing.T) {
	send := func(dir, method, prompt string) transcript.Entry {
		return transcript.Entry{Dir: dir, Frame: json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{"prompt":"` + prompt + `"}}`)}
	}
	tests := []struct {
		name    string
		entries []transcript.Entry
		want    bool
	}{
		{"sent", []transcript.Entry{send(transcript.SDKToRuntime, "session.send", "cancelled")}, true},
		{"only tried session.sendAndWait", []transcript.Entry{send(transcript.SDKToRuntime, "session.sendAndWait", "cancelled"), send(transcript.SDKToRuntime, "session.send", "next")}, false},
		{"the driver's command is not the runtime's", []transcript.Entry{send(transcript.HarnessToDriver, "session.send", "cancelled")}, false},
		{"nothing", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, promptReached(tt.entries, "cancelled"))
		})
	}
}
