package generated

import (
	"encoding/json"
	"testing"

	"github.com/copilot-sdk-conformance/conformance/internal/schemagen"
	"github.com/copilot-sdk-conformance/conformance/internal/standin"
	"github.com/copilot-sdk-conformance/conformance/internal/suite"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/copilot-sdk-conformance/conformance/steps/scenario"
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
			w := engineWith(
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

// A result sweep in which every call was unsupported judged nothing: it is unavailable, never
// passed; and in a results-only sweep a result with no request behind it is a failure.
func TestResultSweepJudgingNothingIsNotPassed(t *testing.T) {
	m := schemagen.Method{Name: "models.get", Group: "server", Namespace: "server.models"}
	w := engineWith()
	w.T = answersTarget{}
	w.sweep = []*sweepCall{{method: m, name: "result unions", outcome: sweepOutcome{Outcome: "unsupported", Reason: "not in this SDK's generated layer"}}}
	var unavailable *scenario.ErrUnavailable
	require.ErrorAs(t, w.generatedResultsReceived(), &unavailable)

	w = engineWith(sdk(`{"jsonrpc":"2.0","id":1,"method":"other","params":{}}`))
	w.T, w.resultsOnly = answersTarget{}, true
	w.sweep = []*sweepCall{{method: m, name: "result required", outcome: sweepOutcome{Outcome: "ok", Result: json.RawMessage(`{}`)}}}
	err := w.generatedResultsReceived()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "returned a result but sent no models.get request")
}

// frame is one transcript line: its direction and body.
type frame struct{ dir, body string }

func sdk(b string) frame { return frame{transcript.SDKToRuntime, b} }
func rt(b string) frame  { return frame{transcript.RuntimeToSDK, b} }

// engineWith is an engine over a transcript of frames, all on one connection.
func engineWith(frames ...frame) *engine {
	rec := transcript.Memory()
	for _, f := range frames {
		rec.Frame("c1", f.dir, []byte(f.body))
	}
	return &engine{Scenario: &scenario.Scenario{Rec: rec}}
}
