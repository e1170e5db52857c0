package realruntime

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A name another live connection holds is forwarded renamed, frames back carry the SDK's name,
// and a connection's names are free again once it ends.
func TestToolNamesRenameOnlyAClash(t *testing.T) {
	var tn toolNames
	assert.Equal(t, map[string]string{"lookup": "lookup", "finish": "finish"}, tn.register("c1", []string{"lookup", "finish"}))
	assert.Equal(t, map[string]string{"lookup": "lookup_c2", "other": "other"}, tn.register("c2", []string{"lookup", "other"}))

	body, changed := tn.restore([]byte(`{"toolName":"lookup_c2","text":"lookup_c2 is a word here","other":"lookup_c2x"}`))
	assert.JSONEq(t, `{"toolName":"lookup","text":"lookup_c2 is a word here","other":"lookup_c2x"}`, string(body), "only whole JSON strings are restored")
	assert.Equal(t, []string{"lookup_c2 -> lookup"}, changed)

	tn.release("c1")
	assert.Equal(t, map[string]string{"lookup": "lookup"}, tn.register("c3", []string{"lookup"}), "c1's names are free once it ended")
	tn.release("c2")
	body, changed = tn.restore([]byte(`{"toolName":"lookup_c2"}`))
	assert.JSONEq(t, `{"toolName":"lookup_c2"}`, string(body))
	assert.Empty(t, changed)
}

func TestPlays(t *testing.T) {
	p := &Proxy{}
	for _, tc := range []struct {
		name, method, params string
		plays                bool
		tool                 string
		why                  string // what the reason it cannot play names (the offending field, kind or type)
	}{
		{"an every-turn hook", "hooks.invoke", `{"hookType":"sessionEnd","input":{"timestamp":1,"cwd":"/work","reason":"complete"}}`, true, "", ""},
		{"preToolUse through a tool call", "hooks.invoke", `{"hookType":"preToolUse","input":{"toolName":"grep","toolArgs":{}}}`, true, "glob", ""},
		{"a hook input the runtime would not send", "hooks.invoke", `{"hookType":"preToolUse","input":{"opaque":"value"}}`, false, "", "input has opaque"},
		{"a hook type it does not send", "hooks.invoke", `{"hookType":"errorOccurred","input":{}}`, false, "", `"errorOccurred"`},
		{"a question with choices", "userInput.request", `{"question":"Proceed?","choices":["yes","no"],"allowFreeform":false}`, true, "ask_user", ""},
		{"a question with a field the SDK does not know", "userInput.request", `{"question":"Proceed?","futureField":{},"toolCallId":"c"}`, false, "", "scenario's futureField, toolCallId"},
		{"a method it never sends", "permission.request", `{}`, false, "", "permission.request"},
		{"a custom tool's permission request", "permission.requested", `{"permissionRequest":{"kind":"custom-tool","toolName":"deploy","toolDescription":"Deploys","args":{"env":"prod"}}}`, true, "deploy", ""},
		{"a custom tool's permission request with the runtime's own extras", "permission.requested", `{"permissionRequest":{"kind":"custom-tool","toolName":"deploy","toolDescription":"Deploys","args":{}},"promptRequest":{"kind":"custom-tool"},"agentMode":"interactive"}`, true, "deploy", ""},
		{"a permission request with fields the runtime would not send", "permission.requested", `{"permissionRequest":{"kind":"custom-tool","toolName":"deploy","futureField":1},"riskAssessment":{}}`, false, "", "riskAssessment, permissionRequest.futureField"},
		{"a permission request resolved by a hook", "permission.requested", `{"permissionRequest":{"kind":"custom-tool","toolName":"deploy"},"resolvedByHook":true}`, false, "", "resolvedByHook"},
		{"a shell permission request", "permission.requested", `{"permissionRequest":{"kind":"shell","fullCommandText":"ls"}}`, false, "", `"shell"`},
		{"a form elicitation", "elicitation.requested", `{"message":"Pick","mode":"form","requestedSchema":{"type":"object"}}`, true, "", ""},
		{"an elicitation with fields the schema does not name (the runtime forwards them)", "elicitation.requested", `{"message":"Pick","mode":"form","requestedSchema":{"type":"object"},"elicitationSource":"mcp-files","futureField":[1]}`, true, "", ""},
		{"an elicitation with the runtime's own requestId", "elicitation.requested", `{"message":"Pick","requestId":"r1"}`, false, "", "requestId"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			step, cannot := p.Plays(tc.method, json.RawMessage(tc.params))
			if !tc.plays {
				assert.Contains(t, cannot, tc.why)
				assert.Nil(t, step)
				return
			}
			require.Empty(t, cannot)
			if tc.method == "elicitation.requested" { // played by the proxy when the model reaches it
				require.NotNil(t, step)
				assert.JSONEq(t, tc.params, string(step.Elicitation))
				return
			}
			if tc.tool == "" {
				assert.Nil(t, step)
				return
			}
			require.NotNil(t, step)
			assert.Equal(t, tc.tool, step.Tool)
		})
	}
}
