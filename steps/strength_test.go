package steps

import (
	"path/filepath"
	"testing"

	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/copilot-sdk-conformance/conformance/steps/scenario"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Each strengthened scenario's added step fails on a transcript without the payload it is about,
// and passes on one with it. The frames are written as the runtime records them.
const (
	create       = `{"jsonrpc":"2.0","id":1,"method":"session.create","params":{"sessionId":"sess-1","tools":[{"name":"finish","isTerminal":true}]}}`
	createNoTerm = `{"jsonrpc":"2.0","id":1,"method":"session.create","params":{"sessionId":"sess-1","tools":[{"name":"finish"}]}}`
	createOther  = `{"jsonrpc":"2.0","id":1,"method":"session.create","params":{"sessionId":"sess-2","tools":[]}}`
	toolCallEv   = `{"jsonrpc":"2.0","method":"session.event","params":{"sessionId":"sess-1","event":{"type":"external_tool.requested","data":{"toolName":"reset","requestId":"r1"}}}}`
	clearReq     = `{"jsonrpc":"2.0","id":2,"method":"session.history.clearContext","params":{"sessionId":"sess-1","prompt":""}}`
	clearErr     = `{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"clearContext requires a non-empty prompt"}}`
	answer       = `{"jsonrpc":"2.0","id":3,"method":"session.tools.handlePendingToolCall","params":{"sessionId":"sess-1","requestId":"r1","error":"boom"}}`
	toolsSet     = `{"jsonrpc":"2.0","id":4,"method":"session.tools.set","params":{"sessionId":"sess-1","tools":[{"name":"search"}]}}`
	toolsSetElse = `{"jsonrpc":"2.0","id":4,"method":"session.tools.set","params":{"sessionId":"sess-9","tools":[{"name":"search"}]}}`
)

type frame struct{ dir, body string }

func sdk(b string) frame { return frame{transcript.SDKToRuntime, b} }
func rt(b string) frame  { return frame{transcript.RuntimeToSDK, b} }

func worldWith(t *testing.T, frames ...frame) *world {
	rec, err := transcript.New(filepath.Join(t.TempDir(), "t.ndjson"))
	require.NoError(t, err)
	t.Cleanup(func() { _ = rec.Close() })
	for _, f := range frames {
		rec.Frame("c1", f.dir, []byte(f.body))
	}
	return &world{Scenario: &scenario.Scenario{Rec: rec, Sessions: []scenario.Session{{Handle: "s1", ID: "sess-1", Client: "c1"}}}}
}

func TestStrengthenedStepsFailWithoutThePayload(t *testing.T) {
	tests := []struct {
		name   string
		step   func(w *world) error
		with   []frame
		absent []frame
	}{
		{name: "clearContext with an empty prompt: the request was sent during the call",
			step:   func(w *world) error { return w.requestDuringCall("session.history.clearContext", "reset") },
			with:   []frame{sdk(create), rt(toolCallEv), sdk(clearReq), rt(clearErr), sdk(answer)},
			absent: []frame{sdk(create), rt(toolCallEv), sdk(answer)}},
		{name: "clearContext with an empty prompt: the runtime rejected it",
			step: func(w *world) error { return w.runtimeRejected("session.history.clearContext") },
			with: []frame{sdk(clearReq), rt(clearErr)}, absent: []frame{sdk(create)}},
		{name: "clearContext with an empty prompt: the prompt sent was empty",
			step: func(w *world) error { return w.requestKeyEquals("session.history.clearContext", "prompt", `""`) },
			with: []frame{sdk(clearReq)}, absent: []frame{sdk(create)}},
		{name: "after a replacement: session.tools.set was sent for this session",
			step: func(w *world) error { return w.reportedSessionID("sessionId", "session.tools.set") },
			with: []frame{sdk(create), sdk(toolsSet)}, absent: []frame{sdk(create)}},
		{name: "after a replacement: a session.tools.set for another session does not count",
			step: func(w *world) error { return w.reportedSessionID("sessionId", "session.tools.set") },
			with: []frame{sdk(toolsSet)}, absent: []frame{sdk(toolsSetElse)}},
		{name: "a failed terminal tool: the tool was sent as terminal",
			step: func(w *world) error { return w.toolKeyEquals("finish", "session.create", "isTerminal", "true") },
			with: []frame{sdk(create)}, absent: []frame{sdk(createNoTerm)}},
		{name: "handshake: the create request's sessionId is the one the SDK reported",
			step: func(w *world) error { return w.reportedSessionID("sessionId", "session.create") },
			with: []frame{sdk(create)}, absent: []frame{sdk(createOther)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.NoError(t, tt.step(worldWith(t, tt.with...)))
			assert.Error(t, tt.step(worldWith(t, tt.absent...)))
		})
	}
}

// The token step passes only on the fingerprint of the token the application gave, at its path.
func TestTokenStepNeedsTheRedactedToken(t *testing.T) {
	const token = "ghp_StrengthTestToken000111222"
	with := `{"jsonrpc":"2.0","id":1,"method":"session.create","params":{"sessionId":"sess-1","gitHubToken":"` + token + `"}}`
	other := `{"jsonrpc":"2.0","id":1,"method":"session.create","params":{"sessionId":"sess-1","gitHubToken":"ghp_SomeoneElsesToken999888777"}}`
	step := func(w *world) error { return w.tokenRedacted("session.create", token, "gitHubToken") }
	assert.NoError(t, step(worldWith(t, sdk(with))))
	assert.Error(t, step(worldWith(t, sdk(create))), "no token sent")
	assert.Error(t, step(worldWith(t, sdk(other))), "another token")
}
