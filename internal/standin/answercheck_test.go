package standin

import (
	"encoding/json"
	"testing"

	"github.com/copilot-sdk-conformance/conformance/internal/schema"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/copilot-sdk-conformance/conformance/internal/wire"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The SDK's answer to a call of the runtime is judged by the method's result schema: an answer
// that breaks it is recorded as a violation of that method's answer (with the keyword), one that
// keeps it records nothing, and after UncheckAnswers nothing is judged.
func TestSDKAnswersAreCheckedAgainstTheResultSchema(t *testing.T) {
	v, err := schema.Compile([]byte(`{"clientSession": {"fs": {"stat": {"rpcMethod": "sessionFs.stat",
		"params": {"type": "object"},
		"result": {"type": "object", "properties": {"size": {"type": "integer"}}, "required": ["size"]}}}}}`))
	require.NoError(t, err)
	tests := []struct {
		name      string
		answer    string
		unchecked bool
		want      []transcript.Violation
	}{
		{name: "a valid answer", answer: `{"size": 3}`},
		{name: "a required field missing", answer: `{}`,
			want: []transcript.Violation{{Method: "sessionFs.stat", Pointer: "/result", Message: "missing property 'size'", Keyword: "required", Answer: true}}},
		{name: "a wrong type", answer: `{"size": "3"}`,
			want: []transcript.Violation{{Method: "sessionFs.stat", Pointer: "/result/size", Message: "got string, want integer", Keyword: "type", Answer: true}}},
		{name: "not judged after UncheckAnswers", answer: `{}`, unchecked: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := transcript.Memory()
			srv := New(rec, Options{CheckResult: v.CheckResult})
			addr, err := srv.Listen("127.0.0.1:0")
			require.NoError(t, err)
			t.Cleanup(srv.Close)
			if tt.unchecked {
				srv.UncheckAnswers("the test's placeholder handler")
			}
			c := dial(t, addr)
			var created struct {
				SessionID string `json:"sessionId"`
			}
			require.NoError(t, json.Unmarshal(c.call("session.create", map[string]any{}).Result, &created))
			done := make(chan error, 1)
			go func() {
				_, err := srv.Ask(created.SessionID, "sessionFs.stat", map[string]any{"sessionId": created.SessionID}, false)
				done <- err
			}()
			m := c.read()
			require.Equal(t, "sessionFs.stat", m.Method)
			body, _ := json.Marshal(wire.Message{JSONRPC: "2.0", ID: m.ID, Result: json.RawMessage(tt.answer)})
			require.NoError(t, c.w.Write(body))
			require.NoError(t, <-done)
			assert.Equal(t, tt.want, transcript.Violations(rec.Entries()))
		})
	}
}
