package hold

import (
	"testing"

	"github.com/copilot-sdk-conformance/conformance/internal/schemagen"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/copilot-sdk-conformance/conformance/steps/scenario"
	"github.com/stretchr/testify/assert"
)

// A tool's gate names the session and the tool; a method's, the session, its client and the
// method.
func TestArgs(t *testing.T) {
	s := scenario.Session{Handle: "s1", ID: "sess-1", Client: "c1"}
	m := schemagen.Method{Name: "userInput.request"}
	tests := []struct {
		name string
		k    Kind
		want map[string]any
		str  string
	}{
		{"a tool call", Kind{Tool: "lookup"}, map[string]any{"session": "s1", "tool": "lookup"}, "tool call lookup"},
		{"a method", Kind{Method: &m}, map[string]any{"session": "s1", "client": "c1", "method": "userInput.request"}, "userInput.request"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Args(s, tt.k))
			assert.Equal(t, tt.str, tt.k.String())
		})
	}
}

// A frame's head: a request's id and method, a session event's type and requestId, the
// requestId an SDK's request names; driver lines and notes are no frame between the two sides.
func TestFrameHeads(t *testing.T) {
	entries := []transcript.Entry{
		{Seq: 1, Dir: transcript.RuntimeToSDK, Frame: []byte(`{"jsonrpc":"2.0","method":"session.event","params":{"event":{"type":"external_tool.requested","data":{"requestId":"r1"}}}}`)},
		{Seq: 2, Dir: transcript.DriverToHarness, Frame: []byte(`{"event":"tool.invoked","args":{}}`)},
		{Seq: 3, Dir: transcript.SDKToRuntime, Frame: []byte(`{"jsonrpc":"2.0","id":4,"method":"session.tools.handlePendingToolCall","params":{"requestId":"r1"}}`)},
		{Seq: 4, Dir: transcript.RuntimeToSDK, Frame: []byte(`{"jsonrpc":"2.0","id":4,"result":{}}`)},
		{Seq: 5, Dir: "note", Text: "a note"},
	}
	assert.Equal(t, []FrameHead{
		{Seq: 1, Dir: transcript.RuntimeToSDK, Method: "session.event", Event: "external_tool.requested", RequestID: "r1"},
		{Seq: 3, Dir: transcript.SDKToRuntime, ID: "4", Method: "session.tools.handlePendingToolCall", RequestID: "r1"},
		{Seq: 4, Dir: transcript.RuntimeToSDK, ID: "4"},
	}, FrameHeads(entries))
}
