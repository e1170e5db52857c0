package steps

import (
	"encoding/json"
	"testing"

	"github.com/copilot-sdk-conformance/conformance/internal/schemagen"
	"github.com/copilot-sdk-conformance/conformance/internal/standin"
	"github.com/copilot-sdk-conformance/conformance/internal/suite"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// answersTarget is a Target whose runtime has generated answers (all the result check asks).
type answersTarget struct{ suite.Target }

func (answersTarget) SDK() string { return "fake" }

func (answersTarget) RuntimeOptions() standin.Options {
	return standin.Options{Answers: &standin.Answers{Results: map[string]json.RawMessage{}}}
}

// The result check judges what the application got against the runtime's answer on the wire,
// each call against its own answer: a driver standing in for an SDK that fills in a default,
// invents a null, drops or changes a field, or decodes the wrong union alternative fails; one
// that drops a field the schema does not know, or leaves out a null, passes.
func TestResultShapesJudgedExactly(t *testing.T) {
	unknown := `"` + schemagen.UnknownField + `":"` + schemagen.UnknownValue + `"`
	tests := []struct {
		name, sent, got string
		fails           bool
	}{
		{"required only, received as sent", `{"id":"m1"}`, `{"id":"m1"}`, false},
		{"required only, a default filled in", `{"id":"m1"}`, `{"id":"m1","limits":{"max":0}}`, true},
		{"required only, a false filled in", `{"id":"m1"}`, `{"id":"m1","enabled":false}`, true},
		{"required only, a null invented for an absent field", `{"id":"m1"}`, `{"id":"m1","price":null}`, true},
		{"nulls, received as null", `{"id":"m1","price":null}`, `{"id":"m1","price":null}`, false},
		{"nulls, the typed nothing left out", `{"id":"m1","price":null}`, `{"id":"m1"}`, false},
		{"nulls, a default for the null", `{"id":"m1","price":null}`, `{"id":"m1","price":0}`, true},
		{"unknown, dropped at every depth", `{"a":{"b":1,` + unknown + `},` + unknown + `}`, `{"a":{"b":1}}`, false},
		{"unknown, kept", `{"a":{"b":1,` + unknown + `}}`, `{"a":{"b":1,` + unknown + `}}`, false},
		{"unknown, a known field dropped beside it", `{"a":{"b":1,` + unknown + `}}`, `{"a":{}}`, true},
		{"union, a boolean discriminator decoded as the other alternative", `{"handled":false,"reason":"busy"}`, `{"handled":true}`, true},
		{"union, the wrong alternative's fields", `{"kind":"factory","name":"f"}`, `{"kind":"extension-permission-access","extensionName":"f"}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := worldWith(t,
				sdk(`{"jsonrpc":"2.0","id":1,"method":"models.get","params":{}}`),
				rt(`{"jsonrpc":"2.0","id":1,"result":`+tt.sent+`}`),
				// A second call of the method answered otherwise: each call has its own answer.
				sdk(`{"jsonrpc":"2.0","id":2,"method":"models.get","params":{}}`),
				rt(`{"jsonrpc":"2.0","id":2,"result":{"other":true}}`))
			w.T = answersTarget{}
			m := schemagen.Method{Name: "models.get", Group: "server", Namespace: "server.models"}
			w.sweep = []*sweepCall{
				{method: m, name: "result required", params: map[string]any{}, outcome: sweepOutcome{Outcome: "ok", Result: json.RawMessage(tt.got)}},
				{method: m, name: "result nulls", params: map[string]any{}, outcome: sweepOutcome{Outcome: "ok", Result: json.RawMessage(`{"other":true}`)}},
			}
			err := w.generatedResultsReceived()
			if tt.fails {
				require.Error(t, err)
				assert.Contains(t, err.Error(), "models.get [result required]: result /")
				return
			}
			require.NoError(t, err)
		})
	}
}

// The event check pairs several events of one type by content: a stand-in that drops one of
// them fails on that one alone, not on every one after it; one that decodes an alternative as
// another fails; and an absent field stays absent.
func TestEventShapesJudgedExactly(t *testing.T) {
	et := schemagen.EventType{Type: "permission.requested", Definition: "PermissionRequestedEvent"}
	sent := []string{`{"request":{"kind":"read","path":"p"}}`, `{"request":{"kind":"write","file":"f"}}`, `{"request":{"kind":"factory","name":"n"}}`}
	tests := []struct {
		name     string
		received []string
		want     []string // the failing cases' lines (a substring each), none when it passes
	}{
		{"every alternative as sent, in another order", []string{sent[2], sent[0], sent[1]}, nil},
		{"one dropped: only it is missing", []string{sent[0], sent[2]}, []string{`[PermissionRequestedEvent union write]: the application never received it`}},
		{"fields stripped and one dropped: each keeps its own place", []string{`{"request":{"kind":"read"}}`, `{"request":{"kind":"factory"}}`},
			[]string{`[PermissionRequestedEvent union read]: data /request/path: "p" was sent by the runtime, the application received it without it`,
				`[PermissionRequestedEvent union write]: the application never received it`,
				`[PermissionRequestedEvent union factory]: data /request/name: "n" was sent by the runtime, the application received it without it`}},
		{"an alternative decoded as another", []string{sent[0], sent[1], `{"request":{"kind":"write","name":"n"}}`},
			[]string{`[PermissionRequestedEvent union factory]: data /request/kind: "factory" was sent by the runtime, the application received it as "write"`}},
		{"a default filled in", []string{sent[0], sent[1], `{"request":{"kind":"factory","name":"n","limit":0}}`},
			[]string{`[PermissionRequestedEvent union factory]: data /request/limit: not sent by the runtime, the application received it as 0`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := worldWith(t)
			for i, s := range sent {
				var data any
				require.NoError(t, json.Unmarshal([]byte(s), &data))
				w.events = append(w.events, sentEvent{et: et, name: et.Definition + " union " + []string{"read", "write", "factory"}[i], data: data})
			}
			for _, r := range tt.received {
				w.Rec.Frame("driver", transcript.DriverToHarness, []byte(`{"event":"session.event","args":{"session":"s1","type":"permission.requested","data":`+r+`}}`))
			}
			err := w.eventsReceived()
			if tt.want == nil {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			for _, l := range tt.want {
				assert.Contains(t, err.Error(), l)
			}
			assert.Equal(t, len(tt.want), len(err.(*suite.Divergences).Items), err.Error())
		})
	}
}

// A result sweep in which every call was unsupported judged nothing: it is unavailable, never
// passed; and in a results-only sweep a result with no request behind it is a failure.
func TestResultSweepJudgingNothingIsNotPassed(t *testing.T) {
	m := schemagen.Method{Name: "models.get", Group: "server", Namespace: "server.models"}
	w := worldWith(t)
	w.T = answersTarget{}
	w.sweep = []*sweepCall{{method: m, name: "result unions", outcome: sweepOutcome{Outcome: "unsupported", Reason: "not in this SDK's generated layer"}}}
	var unavailable *ErrUnavailable
	require.ErrorAs(t, w.generatedResultsReceived(), &unavailable)

	w = worldWith(t, sdk(`{"jsonrpc":"2.0","id":1,"method":"other","params":{}}`))
	w.T, w.resultsOnly = answersTarget{}, true
	w.sweep = []*sweepCall{{method: m, name: "result required", outcome: sweepOutcome{Outcome: "ok", Result: json.RawMessage(`{}`)}}}
	err := w.generatedResultsReceived()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "returned a result but sent no models.get request")
}
