package standin

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"github.com/copilot-sdk-conformance/conformance/internal/fidelity"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/copilot-sdk-conformance/conformance/internal/wire"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// answered is one answer the stand-in gave, by the method asked.
type answered struct {
	method string
	m      wire.Message
}

// recording wraps the test SDK so every answer is kept.
type recording struct {
	*sdk
	got []answered
}

func (r *recording) call(method string, params any) wire.Message {
	r.t.Helper()
	m := r.sdk.call(method, params)
	r.got = append(r.got, answered{method, m})
	return m
}

// converse plays a conversation on the stand-in that reaches every method the SDKs asked the
// real runtime (the fixture's methods): the handshake, a session with a tool call (clearContext
// from inside it), a permission request and an elicitation answered, and then each other
// recorded method asked once on the session.
func converse(t *testing.T, methods map[string]fidelity.MethodAnswers) []answered {
	srv, _, addr := start(t)
	c := &recording{sdk: dial(t, addr)}
	c.call("connect", map[string]any{"supportedTaskKinds": []string{"agent", "client", "shell"}})
	c.call("ping", map[string]any{"message": "hello"})
	// The proxy names a model on every session.create the real runtime got (README "The real
	// runtime"), so the real answers are those of a session with a model.
	c.call("session.create", map[string]any{"sessionId": "s", "model": "gpt-test", "requestElicitation": true,
		"tools": []any{map[string]any{"name": "t"}}})
	srv.AddTurn(Turn{Steps: []ModelStep{{Tool: "t"},
		{Permission: json.RawMessage(`{"kind":"custom-tool","toolName":"t","toolDescription":"d","args":{}}`)},
		{Elicitation: json.RawMessage(`{"message":"pick","mode":"form","requestedSchema":{"type":"object","properties":{}}}`)}}})
	c.call("session.send", map[string]any{"sessionId": "s", "prompt": "go"})
	tool := c.until("external_tool.requested")
	c.call("session.history.clearContext", map[string]any{"sessionId": "s", "prompt": "fresh"})
	c.call("session.tools.handlePendingToolCall", map[string]any{"sessionId": "s", "requestId": tool["requestId"], "result": "done"})
	perm := c.until("permission.requested")
	c.call("session.permissions.handlePendingPermissionRequest", map[string]any{"sessionId": "s", "requestId": perm["requestId"],
		"result": map[string]any{"kind": "approve-once"}})
	el := c.until("elicitation.requested")
	c.call("session.ui.handlePendingElicitation", map[string]any{"sessionId": "s", "requestId": el["requestId"],
		"result": map[string]any{"action": "accept", "content": map[string]any{}}})
	c.until("session.idle")
	c.call("session.tools.set", map[string]any{"sessionId": "s", "tools": []any{}})
	c.call("session.resume", map[string]any{"sessionId": "s", "model": "gpt-test"})
	asked := map[string]bool{}
	for _, a := range c.got {
		asked[a.method] = true
	}
	var rest []string
	for m := range methods {
		if !asked[m] && m != "runtime.shutdown" {
			rest = append(rest, m)
		}
	}
	sort.Strings(rest)
	for _, m := range rest {
		c.call(m, map[string]any{"sessionId": "s"})
	}
	if _, ok := methods["runtime.shutdown"]; ok {
		c.call("runtime.shutdown", map[string]any{})
	}
	return c.got
}

// Every answer the stand-in gives to a method the SDKs asked the real runtime has the shape the
// real runtime answered it with (fixtures/reference/real-answers.json, made from a real run by
// `conformance reference --real-answers`): the same keys with the same JSON types, values aside.
// A difference is a stand-in bug unless NotCopied names it, with why; a NotCopied entry that no
// longer differs is stale. The judge itself is proven in internal/fidelity (TestRunAnswersAndCheck).
func TestStandInAnswersAsTheRealRuntime(t *testing.T) {
	ref, err := fidelity.LoadAnswers(filepath.Join("..", "..", "fixtures", fidelity.RealAnswersFile))
	require.NoError(t, err)
	t.Logf("judged by the answers of runtime %s (%s)", ref.Version, ref.Runtime)
	got := converse(t, ref.Methods)
	used := map[string]bool{}
	judged := map[string]bool{}
	for _, a := range got {
		if !ref.Has(a.method) {
			continue
		}
		judged[a.method] = true
		var rpcErr *wire.RPCError
		if a.m.Error != nil {
			rpcErr = a.m.Error
		}
		if rpcErr != nil && rpcErr.Code == wire.CodeMethodNotFound && !slices.Contains(ref.Methods[a.method].Errors, wire.CodeMethodNotFound) {
			// No scripted answer: in a run the stand-in answers it with the result generated
			// from the runtime's schema (Options.Answers), whose skew from the real runtime is
			// fidelity.md's.
			t.Logf("%s: answered from the schema in a run, not judged here", a.method)
			continue
		}
		for _, mm := range ref.Check(a.method, a.m.Result, rpcErr) {
			if _, deliberate := NotCopied[a.method+" "+mm.Path]; deliberate {
				used[a.method+" "+mm.Path] = true
				continue
			}
			assert.Fail(t, "the stand-in answers unlike the real runtime "+ref.Version, "%s (answer %s)", mm, string(a.m.Result))
		}
	}
	for m := range ref.Methods {
		assert.True(t, judged[m], "%s: the real runtime answered it, the stand-in was never asked", m)
	}
	for k, why := range NotCopied {
		assert.True(t, used[k], "NotCopied %q (%s) no longer differs from the real runtime: remove it", k, why)
	}
}

// The judge catches a stand-in that answers unlike the current runtime: the stand-in answering
// as a runtime that predates connect (PreConnect: ping's timestamp a number) is refused by the
// real runtime's answers.
func TestStandInAnsweringAsAnOlderRuntimeIsCaught(t *testing.T) {
	ref, err := fidelity.LoadAnswers(filepath.Join("..", "..", "fixtures", fidelity.RealAnswersFile))
	require.NoError(t, err)
	srv := New(transcript.Memory(), Options{PreConnect: true})
	addr, err := srv.Listen("127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	m := dial(t, addr).call("ping", map[string]any{"message": "hello"})
	var got []string
	for _, mm := range ref.Check("ping", m.Result, m.Error) {
		got = append(got, mm.String())
	}
	assert.Equal(t, []string{"ping: timestamp: missing (every answer of the real runtime has it: string)",
		"ping: timestamp: number, which the real runtime never answered (it answered string)"}, got)
}
