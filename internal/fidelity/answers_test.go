package fidelity

import (
	"encoding/json"
	"testing"

	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/wire"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A real run's answers become per-method shapes (every result's paths, some results' paths,
// error codes) and the runtime's version from its connect answer; an answer of another shape
// is a mismatch naming the path, and one of the same shape with other values is none.
func TestRunAnswersAndCheck(t *testing.T) {
	dir := run(t, map[string]string{"a": report.Passed},
		`{"jsonrpc":"2.0","id":1,"method":"connect","params":{}}`, `{"jsonrpc":"2.0","id":1,"result":{"ok":true,"version":"1.0.85","taskKinds":["agent"]}}`,
		`{"jsonrpc":"2.0","id":2,"method":"session.create","params":{}}`, `{"jsonrpc":"2.0","id":2,"result":{"sessionId":"a","workspacePath":"/h/a"}}`,
		`{"jsonrpc":"2.0","id":3,"method":"session.create","params":{}}`, `{"jsonrpc":"2.0","id":3,"result":{"sessionId":"b","workspacePath":"/h/b","modelState":{}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"session.tools.set","params":{}}`, `{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"tools"}}`)
	a, err := RunAnswers(dir)
	require.NoError(t, err)
	assert.Equal(t, "1.0.85", a.Version)
	assert.Equal(t, MethodAnswers{Always: []string{"(result): object", "sessionId: string", "workspacePath: string"}, Sometimes: []string{"modelState: object"}}, a.Methods["session.create"])
	assert.Equal(t, MethodAnswers{Errors: []int{-32602}}, a.Methods["session.tools.set"])

	tests := []struct {
		name   string
		method string
		result string
		err    *wire.RPCError
		want   []string
	}{
		{name: "the same shape, other values", method: "session.create", result: `{"sessionId":"x","workspacePath":"/y"}`},
		{name: "an optional path", method: "session.create", result: `{"sessionId":"x","workspacePath":"/y","modelState":{}}`},
		{name: "an empty array has no element to judge", method: "connect", result: `{"ok":false,"version":"0","taskKinds":[]}`},
		{name: "a method not recorded is not judged", method: "ping", result: `{"timestamp":1}`},
		{name: "another type", method: "session.create", result: `{"sessionId":"x","workspacePath":null}`,
			want: []string{"session.create: workspacePath: missing (every answer of the real runtime has it: string)",
				"session.create: workspacePath: null, which the real runtime never answered (it answered string)"}},
		{name: "a key the real runtime never answered", method: "session.create", result: `{"sessionId":"x","workspacePath":"/y","extra":1}`,
			want: []string{"session.create: extra: number, which the real runtime never answered"}},
		{name: "a key missing", method: "session.create", result: `{"sessionId":"x"}`,
			want: []string{"session.create: workspacePath: missing (every answer of the real runtime has it: string)"}},
		{name: "an array element of another type", method: "connect", result: `{"ok":true,"version":"0","taskKinds":[1]}`,
			want: []string{"connect: taskKinds[]: number, which the real runtime never answered (it answered string)"}},
		{name: "an error the real runtime never answered", method: "session.create", err: &wire.RPCError{Code: -32603, Message: "boom"},
			want: []string{"session.create: error: answered error -32603 (boom); the real runtime answered results"}},
		{name: "the error code it answered", method: "session.tools.set", err: &wire.RPCError{Code: -32602, Message: "other words"}},
		{name: "a result where it only answered errors", method: "session.tools.set", result: `{}`,
			want: []string{"session.tools.set: (result): answered a result; the real runtime answered error -32602"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, m := range a.Check(tt.method, json.RawMessage(tt.result), tt.err) {
				got = append(got, m.String())
			}
			assert.Equal(t, tt.want, got)
		})
	}
}
