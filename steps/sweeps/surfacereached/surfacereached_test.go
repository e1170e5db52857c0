package surfacereached

import (
	"testing"

	"github.com/copilot-sdk-conformance/conformance/internal/schemagen"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/copilot-sdk-conformance/conformance/steps/scenario"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEveryHandlerReached(t *testing.T) {
	tests := []struct {
		name string
		res  reached
		want string // "" when the check passes
	}{
		{name: "every handler reached", res: reached{registered: []string{"a", "b"}, by: map[string][]string{"a": {"m"}, "b": {"event e"}}}},
		{name: "a handler nothing reached", res: reached{registered: []string{"a", "b"}, by: map[string][]string{"a": {"m"}}, triggers: 3},
			want: "no runtime-to-SDK method or event of the schema reached it (3 sent, each once with its required params): b"},
		{name: "a handler the driver kept is its own", res: reached{registered: []string{"a", "b"}, by: map[string][]string{"a": {"m"}}, kept: map[string]bool{"b": true}}},
		{name: "a call of a handler that was not registered", res: reached{registered: []string{"a"}, by: map[string][]string{"a": {"m"}, "z": {"m"}}},
			want: "calls of handlers that were not registered: z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := &engine{Scenario: &scenario.Scenario{}, found: &tt.res}
			err := w.everyHandlerReached()
			if tt.want == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
	assert.Error(t, (&engine{Scenario: &scenario.Scenario{}}).everyHandlerReached(), "no sweep ran: nothing was checked")
}

func TestRequestOf(t *testing.T) {
	for event, want := range map[string]string{
		"user_input.requested":               "userInput.request",
		"exit_plan_mode.requested":           "exitPlanMode.request",
		"elicitation.requested":              "elicitation.request",
		"session_limits_exhausted.requested": "sessionLimitsExhausted.request",
		"user_input.completed":               "",
		".requested":                         "",
	} {
		got, ok := requestOf(event)
		assert.Equal(t, want != "", ok, event)
		assert.Equal(t, want, got, event)
	}
}

// Handler calls are given to the trigger the runtime sent last before them, read from the
// transcript (so a replay attributes them as the run did): a call while the session opened to
// its createSession, calls of another session's opening to nothing.
func TestAttributeReached(t *testing.T) {
	doc, err := schemagen.Load("../../../internal/schemagen/testdata")
	require.NoError(t, err)
	var method string
	for _, m := range scenario.HandlerMethods(doc) {
		method = m.Name
	}
	require.NotEmpty(t, method, "the test schema has a runtime-to-SDK method")
	called := func(h string) frame {
		return frame{transcript.DriverToHarness, `{"event":"surface.handler.called","args":{"session":"h2","handler":"` + h + `"}}`}
	}
	w := engineWith(
		frame{transcript.HarnessToDriver, `{"cmd":"createSession","id":1,"args":{"session":"h1"}}`},
		called("early"), // the solo opening of another session: no trigger
		frame{transcript.HarnessToDriver, `{"cmd":"createSession","id":2,"args":{"session":"h2"}}`},
		called("transform"),
		rt(`{"jsonrpc":"2.0","id":5,"method":"`+method+`","params":{"sessionId":"sess-1"}}`),
		called("fs"),
		rt(`{"jsonrpc":"2.0","method":"session.event","params":{"sessionId":"sess-1","event":{"type":"session.idle"}}}`),
		called("onEvent"),
		rt(`{"jsonrpc":"2.0","method":"session.event","params":{"sessionId":"other","event":{"type":"session.idle"}}}`),
		called("onEvent"),
	)
	res := &reached{by: map[string][]string{}}
	w.attributeReached(res, "h2", "sess-1", doc)
	assert.Equal(t, map[string][]string{"transform": {"session.create"}, "fs": {method}, "onEvent": {"event session.idle"}}, res.by)
	assert.Equal(t, 2, res.triggers)
}

// frame is one transcript line: its direction and body.
type frame struct{ dir, body string }

func rt(b string) frame { return frame{transcript.RuntimeToSDK, b} }

// engineWith is an engine over a transcript of frames, all on one connection.
func engineWith(frames ...frame) *engine {
	rec := transcript.Memory()
	for _, f := range frames {
		rec.Frame("c1", f.dir, []byte(f.body))
	}
	return &engine{Scenario: &scenario.Scenario{Rec: rec}}
}
