package handlers

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/copilot-sdk-conformance/conformance/internal/standin"
	"github.com/copilot-sdk-conformance/conformance/internal/suite"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/copilot-sdk-conformance/conformance/steps/handlerset"
	"github.com/copilot-sdk-conformance/conformance/steps/scenario"
	"github.com/copilot-sdk-conformance/conformance/steps/scenario/scenariotest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A handler the SDK skips (a hook type it does not know) leaves that call unhandled; the calls
// after it keep their own reports instead of each taking the report of the one before.
func TestHandledCallsPairByContent(t *testing.T) {
	hook := func(id, typ string) scenariotest.Frame {
		return scenariotest.RT(`{"jsonrpc":"2.0","id":` + id + `,"method":"hooks.invoke","params":{"sessionId":"sess-1","hookType":"` + typ + `","input":{}}}`)
	}
	w := engineWith(hook("1", "preToolUse"), scenariotest.SDK(scenariotest.OKAnswer("1")), hook("2", "preMcpToolCall"), scenariotest.SDK(scenariotest.OKAnswer("2")), hook("3", "postToolUse"), scenariotest.SDK(scenariotest.OKAnswer("3")))
	for _, typ := range []string{"preToolUse", "postToolUse"} {
		w.Rec.Frame("driver", transcript.DriverToHarness, []byte(`{"event":"rpc.handled","args":{"method":"hooks.invoke","params":{"hookType":"`+typ+`","input":{}}}}`))
	}
	w.handlers.Specs = map[string]*handlerset.Spec{"hooks.invoke": {Registered: true}}
	calls := w.handledCalls()
	require.Len(t, calls, 3)
	got := []any{}
	for _, c := range calls {
		if c.received == nil {
			got = append(got, nil)
			continue
		}
		got = append(got, c.received["params"].(map[string]any)["hookType"])
	}
	assert.Equal(t, []any{"preToolUse", nil, "postToolUse"}, got)
}

// A case the driver names as one its SDK's handler API lacks (a hook type its hooks type does not
// declare) is not a failure of the handler: it is named, as a method without a handler is.
func TestLackingCasesAreNamedNotFailed(t *testing.T) {
	hook := func(id, typ string) scenariotest.Frame {
		return scenariotest.RT(`{"jsonrpc":"2.0","id":` + id + `,"method":"hooks.invoke","params":{"sessionId":"sess-1","hookType":"` + typ + `","input":{}}}`)
	}
	build := func(lacking []handlerset.LackingCase) *engine {
		w := engineWith(hook("1", "preToolUse"), scenariotest.SDK(scenariotest.OKAnswer("1")), hook("2", "userPromptTransformed"), scenariotest.SDK(scenariotest.OKAnswer("2")))
		w.Rec.Frame("driver", transcript.DriverToHarness, []byte(`{"event":"rpc.handled","args":{"method":"hooks.invoke","params":{"hookType":"preToolUse","input":{}}}}`))
		w.handlers.Specs = map[string]*handlerset.Spec{"hooks.invoke": {Registered: true, Lacking: lacking}}
		return w
	}
	require.Error(t, build(nil).handlersReceived(), "an unreached hook type the SDK declares is a failure")
	w := build([]handlerset.LackingCase{{Params: map[string]any{"hookType": "userPromptTransformed"}, Reason: "SessionHooks has no onUserPromptTransformed"}})
	require.NoError(t, w.handlersReceived())
	assert.Contains(t, w.Observations["runtime-to-SDK cases the SDK's handler API lacks"], `hooks.invoke {hookType: "userPromptTransformed"}: SessionHooks has no onUserPromptTransformed`)
	w = build([]handlerset.LackingCase{{Params: map[string]any{"hookType": "preToolUse"}, Reason: "x"}})
	assert.Error(t, w.handlersReceived(), "a lacking case matches its own hook type only")
}

// player is a runtime that sends requests of its own accord (suite.Player), as the real one.
type player struct{}

func (player) Listen(string) (string, error)                              { return "", nil }
func (player) Close()                                                     {}
func (player) Wait(context.Context) error                                 { return nil }
func (player) AddTurn(standin.Turn)                                       {}
func (player) Plays(string, json.RawMessage) (*standin.ModelStep, string) { return nil, "" }

// On a runtime that invokes every hook type of its own accord, a hook is judged on the calls of
// the type the scenario played, and on the input that runtime sent, not the scenario's literal:
// a handler that receives it renamed still fails.
func TestHandlersJudgedOnWhatAPlayingRuntimeSent(t *testing.T) {
	const sent = `{"sessionId":"sess-1","timestamp":1796346916602,"cwd":"/tmp/home/work","toolName":"glob","toolArgs":{"pattern":"*.conformance"}}`
	build := func(rt suite.Runtime, received string) *engine {
		w := engineWith(
			scenariotest.RT(`{"jsonrpc":"2.0","id":1,"method":"hooks.invoke","params":{"sessionId":"sess-1","hookType":"userPromptSubmitted","input":{"prompt":"Go"}}}`), scenariotest.SDK(scenariotest.OKAnswer("1")),
			scenariotest.RT(`{"jsonrpc":"2.0","id":2,"method":"hooks.invoke","params":{"sessionId":"sess-1","hookType":"preToolUse","input":`+sent+`}}`), scenariotest.SDK(scenariotest.OKAnswer("2")))
		w.Rec.Frame("driver", transcript.DriverToHarness, []byte(`{"event":"rpc.handled","args":{"method":"hooks.invoke","params":{"hookType":"preToolUse","input":`+received+`}}}`))
		w.RT = rt
		w.handlers.Specs = map[string]*handlerset.Spec{"hooks.invoke": {Registered: true}}
		w.handlers.Asked = []handlerset.Asked{{Method: "hooks.invoke", Params: map[string]any{"hookType": "preToolUse", "input": map[string]any{"cwd": "/work", "toolName": "grep"}}}}
		return w
	}
	require.NoError(t, build(player{}, sent).handlersReceived(), "the input the runtime sent, received as sent")
	renamed := `{"sessionId":"sess-1","timestamp":1796346916602,"workingDirectory":"/tmp/home/work","toolName":"glob","toolArgs":{"pattern":"*.conformance"}}`
	err := build(player{}, renamed).handlersReceived()
	require.Error(t, err)
	assert.Contains(t, err.Error(), `cwd: "/tmp/home/work" was sent by the runtime`)
	assert.Error(t, build(nil, sent).handlersReceived(), "a scripted runtime's every call is judged: the unreached userPromptSubmitted fails")
}

// engineWith is the handler sweep over a transcript of frames with one session open (s1, id
// sess-1), no handler registered yet.
func engineWith(frames ...scenariotest.Frame) *engine {
	s := &scenario.Scenario{Rec: scenariotest.Transcript(frames...), Sessions: []scenario.Session{{Handle: "s1", ID: "sess-1", Client: "c1"}}}
	return &engine{Scenario: s, handlers: &handlerset.Set{}}
}
