package steps

import (
	"fmt"
	"testing"

	"github.com/copilot-sdk-conformance/conformance/steps/declared"
	"github.com/stretchr/testify/assert"
)

// Each step that used to pass on too little is fed a transcript lacking exactly the thing it
// claims to check (and one with it): it must fail on the first and pass on the second.

func ev(typ, data string) string {
	return `{"jsonrpc":"2.0","method":"session.event","params":{"sessionId":"sess-1","event":{"type":"` + typ + `","data":` + data + `}}}`
}

func setReq(id, name string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"session.tools.set","params":{"sessionId":"sess-1","tools":[{"name":"` + name + `"}]}}`
}

func ask(id, choice string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"userInput.request","params":{"sessionId":"sess-1","question":"q","choices":["` + choice + `"]}}`
}

func permAsk(id string) string {
	return ev("permission.requested", `{"requestId":"`+id+`","permissionRequest":{"kind":"custom-tool"}}`)
}

func permAnswer(id string) string {
	return `{"jsonrpc":"2.0","id":9,"method":"session.permissions.handlePendingPermissionRequest","params":{"sessionId":"sess-1","requestId":"` + id + `","result":{"kind":"approve-once"}}}`
}

func inputAnswer(id, text string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"result":{"answer":"` + text + `","wasFreeform":false}}`
}

func okAnswer(id string) string { return `{"jsonrpc":"2.0","id":` + id + `,"result":{}}` }

func pendingAnswer(result string) string {
	return `{"jsonrpc":"2.0","id":7,"method":"session.tools.handlePendingToolCall","params":{"sessionId":"sess-1","requestId":"r1",` + result + `}}`
}

var (
	requested = ev("external_tool.requested", `{"toolName":"lookup","requestId":"r1"}`)
	completed = ev("external_tool.completed", `{"requestId":"r1"}`)
	turnStart = ev("assistant.turn_start", `{}`)
	idle      = ev("session.idle", `{}`)
)

func TestWeakStepsFailWithoutWhatTheyCheck(t *testing.T) {
	three := func(w *world) error { w.replacements = 3; return w.replacementsSerialized() }
	tests := []struct {
		name    string
		step    func(w *world) error
		with    []frame
		without []frame
	}{
		{name: "replacements at once: one request per replacement, not fewer",
			step:    three,
			with:    []frame{sdk(setReq("1", "set_1")), rt(okAnswer("1")), sdk(setReq("2", "set_2")), rt(okAnswer("2")), sdk(setReq("3", "set_3")), rt(okAnswer("3"))},
			without: []frame{sdk(setReq("1", "set_1")), rt(okAnswer("1")), sdk(setReq("2", "set_2")), rt(okAnswer("2"))}},
		{name: "replacements at once: not more",
			step:    three,
			with:    []frame{sdk(setReq("1", "set_1")), rt(okAnswer("1")), sdk(setReq("2", "set_2")), rt(okAnswer("2")), sdk(setReq("3", "set_3")), rt(okAnswer("3"))},
			without: []frame{sdk(setReq("1", "set_1")), rt(okAnswer("1")), sdk(setReq("2", "set_2")), rt(okAnswer("2")), sdk(setReq("3", "set_3")), rt(okAnswer("3")), sdk(setReq("4", "set_3")), rt(okAnswer("4"))}},
		{name: "the model went on: a round before the call completed does not count",
			step:    func(w *world) error { return w.modelWentOnAfter("lookup") },
			with:    []frame{rt(requested), sdk(pendingAnswer(`"result":"found"`)), rt(completed), rt(turnStart), rt(idle)},
			without: []frame{rt(requested), rt(turnStart), sdk(pendingAnswer(`"result":"found"`)), rt(idle)}},
		{name: "the model went on: a round the runtime started before it emitted external_tool.completed counts",
			step:    func(w *world) error { return w.modelWentOnAfter("lookup") },
			with:    []frame{rt(requested), sdk(pendingAnswer(`"result":"found"`)), rt(turnStart), rt(completed), rt(idle)},
			without: []frame{rt(requested), sdk(pendingAnswer(`"result":"found"`)), rt(completed), rt(idle)}},
		{name: "the turn ended after a tool: a round after the SDK's answer counts, even before external_tool.completed",
			step:    func(w *world) error { return w.turnEndedAfter("lookup") },
			with:    []frame{rt(requested), sdk(pendingAnswer(`"result":"found"`)), rt(completed), rt(idle)},
			without: []frame{rt(requested), sdk(pendingAnswer(`"result":"found"`)), rt(turnStart), rt(completed), rt(idle)}},
		{name: "a success: a missing resultType is none",
			step:    func(w *world) error { return w.answeredAs("lookup", "success") },
			with:    []frame{rt(requested), sdk(pendingAnswer(`"result":{"textResultForLlm":"found","resultType":"success"}`))},
			without: []frame{rt(requested), sdk(pendingAnswer(`"result":{"textResultForLlm":"found"}`))}},
		{name: "a success: an unknown resultType is none",
			step:    func(w *world) error { return w.answeredAs("lookup", "success") },
			with:    []frame{rt(requested), sdk(pendingAnswer(`"result":"found"`))},
			without: []frame{rt(requested), sdk(pendingAnswer(`"result":{"textResultForLlm":"found","resultType":"maybe"}`))}},
		{name: "a failure: an object without resultType or error is none",
			step:    func(w *world) error { return w.answeredAs("lookup", "failure") },
			with:    []frame{rt(requested), sdk(pendingAnswer(`"result":{"textResultForLlm":"no","error":"boom"}`))},
			without: []frame{rt(requested), sdk(pendingAnswer(`"result":{"textResultForLlm":"no"}`))}},
		{name: "an explicit [] on create: absent is not []",
			step:    func(w *world) error { return w.requestCarries("session.create", "excludedTools", "[]") },
			with:    []frame{sdk(`{"jsonrpc":"2.0","id":1,"method":"session.create","params":{"excludedTools":[]}}`)},
			without: []frame{sdk(`{"jsonrpc":"2.0","id":1,"method":"session.create","params":{}}`)}},
		{name: "an explicit false on resume: absent is not false",
			step:    func(w *world) error { return w.requestCarries("session.resume", "disableResume", "false") },
			with:    []frame{sdk(`{"jsonrpc":"2.0","id":1,"method":"session.resume","params":{"disableResume":false}}`)},
			without: []frame{sdk(`{"jsonrpc":"2.0","id":1,"method":"session.resume","params":{}}`)}},
		{name: "create/resume parity: both leaving the key out is no parity",
			step: func(w *world) error { return w.requestsAgreeOn("session.create", "session.resume", "hooks", "true") },
			with: []frame{sdk(`{"jsonrpc":"2.0","id":1,"method":"session.create","params":{"hooks":true}}`),
				sdk(`{"jsonrpc":"2.0","id":2,"method":"session.resume","params":{"hooks":true}}`)},
			without: []frame{sdk(`{"jsonrpc":"2.0","id":1,"method":"session.create","params":{}}`),
				sdk(`{"jsonrpc":"2.0","id":2,"method":"session.resume","params":{}}`)}},
		{name: "create/resume parity: both sending null for [] is no parity",
			step: func(w *world) error {
				return w.requestsAgreeOn("session.create", "session.resume", "availableTools", "[]")
			},
			with: []frame{sdk(`{"jsonrpc":"2.0","id":1,"method":"session.create","params":{"availableTools":[]}}`),
				sdk(`{"jsonrpc":"2.0","id":2,"method":"session.resume","params":{"availableTools":[]}}`)},
			without: []frame{sdk(`{"jsonrpc":"2.0","id":1,"method":"session.create","params":{"availableTools":null}}`),
				sdk(`{"jsonrpc":"2.0","id":2,"method":"session.resume","params":{"availableTools":null}}`)}},
		{name: "whole answer: a bare string is the success text, a key more is a jsondiff.Difference",
			step: func(w *world) error {
				return w.answeredExactly("lookup", `{"result": {"textResultForLlm": "found", "resultType": "success"}}`)
			},
			with:    []frame{rt(requested), sdk(pendingAnswer(`"result":"found"`))},
			without: []frame{rt(requested), sdk(pendingAnswer(`"result":{"textResultForLlm":"found","resultType":"success","sessionLog":"x"}`))}},
		{name: "whole answer: a thrown error is the top-level error, not a failure result",
			step:    func(w *world) error { return w.answeredExactly("lookup", `{"error": "boom"}`) },
			with:    []frame{rt(requested), sdk(pendingAnswer(`"error":"boom"`))},
			without: []frame{rt(requested), sdk(pendingAnswer(`"result":{"textResultForLlm":"boom","resultType":"failure","error":"boom"}`))}},
		{name: "whole answer: a JSON text is its value, whatever the spacing, but not another value",
			step: func(w *world) error {
				return w.answeredExactly("lookup", `{"result": {"textResultForLlm": "{\"a\": 1, \"b\": [2]}", "resultType": "success"}}`)
			},
			with:    []frame{rt(requested), sdk(pendingAnswer(`"result":"{\"a\":1,\"b\":[2]}"`))},
			without: []frame{rt(requested), sdk(pendingAnswer(`"result":"{\"a\":1,\"b\":[3]}"`))}},
		{name: "key order: read from the bytes, a sorted map is not the application's order",
			step: func(w *world) error {
				return w.keysInOrder("session.create", "mcpServers.b.env", `"Z", "A"`)
			},
			with:    []frame{sdk(`{"jsonrpc":"2.0","id":1,"method":"session.create","params":{"mcpServers":{"b":{"env":{"Z":"1","A":"2"}}}}}`)},
			without: []frame{sdk(`{"jsonrpc":"2.0","id":1,"method":"session.create","params":{"mcpServers":{"b":{"env":{"A":"2","Z":"1"}}}}}`)}},
		{name: "key order: every request, not only the first",
			step: func(w *world) error {
				return w.keysInOrder("session.resume", "tools[name=t].parameters", `"z", "a"`)
			},
			with: []frame{sdk(`{"jsonrpc":"2.0","id":1,"method":"session.resume","params":{"tools":[{"name":"t","parameters":{"z":1,"a":2}}]}}`),
				sdk(`{"jsonrpc":"2.0","id":2,"method":"session.resume","params":{"tools":[{"name":"t","parameters":{"z":1,"a":2}}]}}`)},
			without: []frame{sdk(`{"jsonrpc":"2.0","id":1,"method":"session.resume","params":{"tools":[{"name":"t","parameters":{"z":1,"a":2}}]}}`),
				sdk(`{"jsonrpc":"2.0","id":2,"method":"session.resume","params":{"tools":[{"name":"t","parameters":{"a":2,"z":1}}]}}`)}},
		{name: "questions at once: each answer reaches its own request id",
			step: func(w *world) error {
				return w.answeredEach("userInput.request", "result.answer", "choices[0]")
			},
			with:    []frame{rt(ask("1", "a")), rt(ask("2", "b")), sdk(inputAnswer("2", "b")), sdk(inputAnswer("1", "a"))},
			without: []frame{rt(ask("1", "a")), rt(ask("2", "b")), sdk(inputAnswer("2", "a")), sdk(inputAnswer("1", "b"))}},
		{name: "questions at once: all pending before the first answer",
			step: func(w *world) error {
				return w.answeredEach("userInput.request", "result.answer", "choices[0]")
			},
			with:    []frame{rt(ask("1", "a")), rt(ask("2", "b")), sdk(inputAnswer("1", "a")), sdk(inputAnswer("2", "b"))},
			without: []frame{rt(ask("1", "a")), sdk(inputAnswer("1", "a")), rt(ask("2", "b")), sdk(inputAnswer("2", "b"))}},
		{name: "permissions at once: each requestId answered once",
			step:    func(w *world) error { return w.permissionsAnsweredEach() },
			with:    []frame{rt(permAsk("p1")), rt(permAsk("p2")), sdk(permAnswer("p2")), sdk(permAnswer("p1"))},
			without: []frame{rt(permAsk("p1")), rt(permAsk("p2")), sdk(permAnswer("p1")), sdk(permAnswer("p1"))}},
		{name: "permissions at once: all pending before the first answer",
			step:    func(w *world) error { return w.permissionsAnsweredEach() },
			with:    []frame{rt(permAsk("p1")), rt(permAsk("p2")), sdk(permAnswer("p1")), sdk(permAnswer("p2"))},
			without: []frame{rt(permAsk("p1")), sdk(permAnswer("p1")), rt(permAsk("p2")), sdk(permAnswer("p2"))}},
		{name: "served while pending: the second call answered first, not after the first",
			step: func(w *world) error { return w.answeredWhilePending("fast", "slow") },
			with: []frame{rt(ev("external_tool.requested", `{"toolName":"slow","requestId":"r1"}`)),
				rt(ev("external_tool.requested", `{"toolName":"fast","requestId":"r2"}`)),
				sdk(`{"jsonrpc":"2.0","id":7,"method":"session.tools.handlePendingToolCall","params":{"sessionId":"sess-1","requestId":"r2","result":"fast done"}}`),
				sdk(`{"jsonrpc":"2.0","id":8,"method":"session.tools.handlePendingToolCall","params":{"sessionId":"sess-1","requestId":"r1","result":"slow done"}}`)},
			without: []frame{rt(ev("external_tool.requested", `{"toolName":"slow","requestId":"r1"}`)),
				rt(ev("external_tool.requested", `{"toolName":"fast","requestId":"r2"}`)),
				sdk(`{"jsonrpc":"2.0","id":7,"method":"session.tools.handlePendingToolCall","params":{"sessionId":"sess-1","requestId":"r1","result":"gave up waiting for the tool fast"}}`),
				sdk(`{"jsonrpc":"2.0","id":8,"method":"session.tools.handlePendingToolCall","params":{"sessionId":"sess-1","requestId":"r2","result":"fast done"}}`)}},
		{name: "served while pending: calls one after the other were never pending together",
			step: func(w *world) error { return w.answeredWhilePending("fast", "slow") },
			with: []frame{rt(ev("external_tool.requested", `{"toolName":"slow","requestId":"r1"}`)),
				rt(ev("external_tool.requested", `{"toolName":"fast","requestId":"r2"}`)),
				sdk(`{"jsonrpc":"2.0","id":7,"method":"session.tools.handlePendingToolCall","params":{"sessionId":"sess-1","requestId":"r2","result":"fast done"}}`),
				sdk(`{"jsonrpc":"2.0","id":8,"method":"session.tools.handlePendingToolCall","params":{"sessionId":"sess-1","requestId":"r1","result":"slow done"}}`)},
			without: []frame{rt(ev("external_tool.requested", `{"toolName":"slow","requestId":"r1"}`)),
				sdk(`{"jsonrpc":"2.0","id":7,"method":"session.tools.handlePendingToolCall","params":{"sessionId":"sess-1","requestId":"r1","result":"slow done"}}`),
				rt(ev("external_tool.requested", `{"toolName":"fast","requestId":"r2"}`)),
				sdk(`{"jsonrpc":"2.0","id":8,"method":"session.tools.handlePendingToolCall","params":{"sessionId":"sess-1","requestId":"r2","result":"fast done"}}`)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.NoError(t, tt.step(worldWith(t, tt.with...)))
			assert.Error(t, tt.step(worldWith(t, tt.without...)))
		})
	}
}

// The unpaired-surrogate reply is compared on the raw bytes: the driver reporting U+FFFD (raw or
// escaped) where the runtime sent \ud83d fails, the escape itself passes.
func TestSurrogateReplyComparesRawUnits(t *testing.T) {
	const literal = `"half \ud83d of a pair, and \u00e9"`
	tests := []struct {
		reply string
		ok    bool
	}{
		{`{"content":"half \ud83d of a pair, and \u00e9"}`, true},
		{`{"content":"half \uD83D of a pair, and é"}`, true},
		{`{"content":"half \ufffd of a pair, and \u00e9"}`, false},
		{"{\"content\":\"half \xef\xbf\xbd of a pair, and \u00e9\"}", false},
		{`{"content":"half  of a pair, and \u00e9"}`, false},
		{`{}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.reply, func(t *testing.T) {
			w := worldWith(t)
			w.Reply = []byte(tt.reply)
			err := w.replyIsJSON(literal)
			assert.Equal(t, tt.ok, err == nil, fmt.Sprint(err))
		})
	}
}

func TestHasUnpairedSurrogate(t *testing.T) {
	for _, tc := range []struct {
		literal string
		want    bool
	}{
		{`"plain é"`, false},
		{`"a pair \ud83d\ude00"`, false},
		{`"😀 raw"`, false},
		{`"half \ud83d of a pair"`, true},
		{`"a low half \ude00 alone"`, true},
		{`"at the end \ud83d"`, true},
	} {
		units, err := utf16Units([]byte(tc.literal))
		if assert.NoError(t, err, tc.literal) {
			assert.Equal(t, tc.want, hasUnpairedSurrogate(units), tc.literal)
		}
	}
}

// changedKeys: a key that differs between the two baselines (a generated id) is not the
// handler's, a key the handler adds or drops is.
func TestChangedKeysLeavesVolatileKeysOut(t *testing.T) {
	base := map[string]any{"sessionId": "a", "requestPermission": true, "hooks": false}
	base2 := map[string]any{"sessionId": "b", "requestPermission": true, "hooks": false}
	p := map[string]any{"sessionId": "c", "requestPermission": true, "hooks": true, "requestUserInput": true}
	assert.Equal(t, []string{"hooks", "requestUserInput"}, declared.ChangedKeys(base, base2, p))
	assert.Equal(t, []string{"hooks"}, declared.ChangedKeys(base, base2, map[string]any{"sessionId": "c", "requestPermission": true}))
}
