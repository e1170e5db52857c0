package handlers

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/surface"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/copilot-sdk-conformance/conformance/steps/handlerset"
	"github.com/copilot-sdk-conformance/conformance/steps/scenario/scenariotest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func member(wire, shape string, optional bool, values ...string) hookInputMember {
	return hookInputMember{Entry: surface.Entry{Name: wire, Shape: shape, Optional: optional, Values: values}, Wire: wire}
}

// Every declared member goes out in the first case; the required ones alone in the second (only
// when some member is optional); every further edge of every member in one case each round.
func TestHookInputCases(t *testing.T) {
	tests := []struct {
		name    string
		members []hookInputMember
		want    []map[string]any
	}{
		{"required only: no required-only case", []hookInputMember{member("ok", "boolean", false)}, []map[string]any{
			{"ok": true}, {"ok": false},
		}},
		{"an optional member is left out once", []hookInputMember{member("source", "enum", false, "new", "resume", "startup"), member("initialPrompt", "boolean", true)}, []map[string]any{
			{"source": "new", "initialPrompt": true}, {"source": "new"}, {"source": "resume", "initialPrompt": false}, {"source": "startup", "initialPrompt": true},
		}},
		{"a date is epoch milliseconds", []hookInputMember{member("timestamp", "date", false)}, []map[string]any{
			{"timestamp": float64(1764470000123)}, {"timestamp": float64(0)},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cases := hookInputCases("sessionStart", hookInputType{Members: tt.members})
			var inputs []map[string]any
			for _, c := range cases {
				assert.Equal(t, "sessionStart", c["hookType"])
				assert.Contains(t, c, "sessionId", "the runtime names the session (asTheRuntimeSends)")
				inputs = append(inputs, c["input"].(map[string]any))
			}
			assert.Equal(t, tt.want, inputs)
		})
	}
}

// Every shape has at least two edges, and an untyped member gets every kind of JSON value.
func TestHookEdgesCoverEveryKind(t *testing.T) {
	for _, shape := range []string{"string", "boolean", "integer", "number", "date", "string[]", "map", "object", "array", "other"} {
		assert.GreaterOrEqual(t, len(hookEdges(member("m", shape, false))), 2, shape)
	}
	kinds := map[string]bool{}
	for _, v := range hookEdges(member("m", "any", false)) {
		b, _ := json.Marshal(v)
		kinds[string(b[:1])] = true
	}
	assert.Len(t, kinds, 6, "object, null, array, string, number, boolean: %v", kinds)
}

// The sweep's hook input cases judge what the application's hook read: a hook that gets every
// declared member as sent passes, one whose SDK drops or renames a member fails naming it, and
// a date the SDK hands over as its date type compares by instant.
func TestHookInputsJudged(t *testing.T) {
	decl := hookInputType{Members: []hookInputMember{member("cwd", "string", false), member("timestamp", "date", false)}}
	sent := hookInputCases("preToolUse", decl)[0]
	sent["sessionId"] = "sess-1"
	build := func(received map[string]any) *engine {
		p, _ := json.Marshal(sent)
		w := engineWith(scenariotest.RT(`{"jsonrpc":"2.0","id":1,"method":"hooks.invoke","params":`+string(p)+`}`), scenariotest.SDK(scenariotest.OKAnswer("1")))
		r, _ := json.Marshal(map[string]any{"event": "rpc.handled", "args": map[string]any{"method": "hooks.invoke",
			"params": map[string]any{"hookType": "preToolUse", "input": received}}})
		w.Rec.Frame("driver", transcript.DriverToHarness, r)
		w.handlers.Specs = map[string]*handlerset.Spec{"hooks.invoke": {Registered: true, Params: []map[string]any{sent}}}
		return w
	}
	input := sent["input"].(map[string]any)
	at := time.UnixMilli(int64(input["timestamp"].(float64))).UTC().Format(time.RFC3339Nano)
	require.NoError(t, build(map[string]any{"cwd": input["cwd"], "timestamp": at}).handlersReceived())
	err := build(map[string]any{"workingDirectory": input["cwd"], "timestamp": at}).handlersReceived()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "/input/cwd: ")
	assert.Contains(t, err.Error(), "/input/workingDirectory: not sent by the runtime")
	err = build(map[string]any{"cwd": input["cwd"], "timestamp": "1970-01-01T00:00:00Z"}).handlersReceived()
	require.Error(t, err, "a date the SDK read wrong")
	assert.Contains(t, err.Error(), "/input/timestamp")
}
