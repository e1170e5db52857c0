package realruntime

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/standin"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/copilot-sdk-conformance/conformance/internal/wire"
)

// Requests the real runtime sends the SDK of its own accord (measured on 1.0.85), which a
// scenario that scripts them on the stand-in can have it send:
//   - hooks.invoke: with hooks registered, every turn invokes userPromptSubmitted,
//     userPromptTransformed, sessionStart, agentStop and sessionEnd (reason "complete"), and
//     every tool call preToolUse (the model calls the read-only glob tool in the private
//     working directory for it);
//   - userInput.request: the model calls the runtime's ask_user tool (question, choices);
//   - permission.requested (custom-tool): the model calls a tool the proxy registered on the
//     session, and the runtime asks the SDK before it runs it;
//   - elicitation.requested: when the model reaches the step, the proxy sends
//     session.ui.elicitation for the turn's session on the SDK's connection to the runtime (a
//     request of its own, recorded as injected, its answer kept from the SDK), and the runtime
//     asks the SDK with the params as given, unknown fields too; the model answers on once the
//     runtime has the SDK's answer.
//   - several user-input or permission requests at once: the model asks for every tool call
//     that makes one in a single message, and the runtime runs them side by side (measured on
//     1.0.85: three userInput.request, or three custom-tool permission.requested, all went out
//     before the SDK's first answer, for Node, Go and Python; once, with Rust answering fast, a
//     permission request went out after its first answer: the runtime paces them itself, and a
//     run in which they were not pending together is unsupported, steps/requests.go pacedByRuntime).
//
// Only requests whose params carry nothing the runtime would not put there itself are played
// (an elicitation's params are the proxy's own request's, which the runtime forwards as given);
// any other stays unsupported there, Plays saying why for its params (runtime.script.request).
// A handler that must receive a request's exact params is judged on what the runtime sent.
var (
	everyTurnHooks = []string{"userPromptSubmitted", "userPromptTransformed", "sessionStart", "agentStop", "sessionEnd"}
	// The keys of the inputs measured on 1.0.85 (every one carries sessionId, timestamp and cwd).
	hookInputKeys = []string{"sessionId", "timestamp", "cwd", "toolName", "toolArgs", "toolResult", "reason", "prompt",
		"transformedPrompt", "source", "initialPrompt", "transcriptPath", "stopReason", "stop_hook_active"}
)

// Plays implements suite.Player: the model step that makes the real runtime send method with
// params, or, when it cannot be made to, why (specific to the params, for the scenario's
// unsupported reason).
func (p *Proxy) Plays(method string, params json.RawMessage) (*standin.ModelStep, string) {
	var v map[string]json.RawMessage
	if json.Unmarshal(params, &v) != nil {
		return nil, "the params are not a JSON object"
	}
	switch method {
	case "hooks.invoke":
		var hook string
		var input map[string]json.RawMessage
		_ = json.Unmarshal(v["hookType"], &hook)
		_ = json.Unmarshal(v["input"], &input)
		if extra := outside(v, "hookType", "input"); extra != "" {
			return nil, "the real runtime's hooks.invoke carries only hookType and input (measured on 1.0.85); the scenario's has " + extra
		}
		if extra := outside(input, hookInputKeys...); extra != "" {
			return nil, "the real runtime's hook inputs carry only " + strings.Join(hookInputKeys, ", ") + " (measured on 1.0.85); the scenario's " + hook + " input has " + extra
		}
		switch {
		case slices.Contains(everyTurnHooks, hook):
			return nil, ""
		case hook == "preToolUse":
			return &standin.ModelStep{Tool: "glob", Arguments: map[string]any{"pattern": "*.conformance"}}, ""
		}
		return nil, fmt.Sprintf("the real runtime invokes only the hooks %s every turn and preToolUse around a tool call (measured on 1.0.85); no model step makes it invoke %q", strings.Join(everyTurnHooks, ", "), hook)
	case "permission.requested":
		// The real runtime asks for permission before it runs a tool a client registered (kind
		// custom-tool, with toolCallId, toolName, toolDescription and args; measured on 1.0.85).
		// The proxy registers the scenario's tool on the SDK's session (an injected tool of
		// session.create), the model calls it, and the proxy answers the call the runtime then
		// sends, since no handler of the SDK's has that name. Only a custom-tool request with
		// nothing the runtime would not send is played.
		var req struct {
			Kind            string         `json:"kind"`
			ToolName        string         `json:"toolName"`
			ToolDescription string         `json:"toolDescription"`
			Args            map[string]any `json:"args"`
		}
		var inner map[string]json.RawMessage
		if _, ok := v["resolvedByHook"]; ok {
			return nil, "resolvedByHook marks a request a permissionRequest hook resolved, and the real runtime invokes none for an SDK's session (measured on 1.0.85: with hooks registered, a custom tool's permission request came among userPromptSubmitted, userPromptTransformed, sessionStart, preToolUse, postToolUse, agentStop and sessionEnd only; a preToolUse hook answering allow keeps the request off the SDK altogether), so resolvedByHook cannot be put on the wire there"
		}
		if json.Unmarshal(v["permissionRequest"], &inner) != nil || json.Unmarshal(v["permissionRequest"], &req) != nil {
			return nil, "the scenario's permissionRequest is not an object"
		}
		if req.Kind != "custom-tool" || req.ToolName == "" {
			return nil, fmt.Sprintf("a %q permission request: the real runtime sends one only for its own built-in tool, with fields it computes from the call (paths, command text), so the scenario's exact request cannot be put on the wire; only a client tool's (custom-tool) request is played", req.Kind)
		}
		var extra []string
		if e := outside(v, "permissionRequest", "promptRequest", "agentMode"); e != "" {
			extra = append(extra, e)
		}
		if e := outside(inner, "kind", "toolName", "toolDescription", "args"); e != "" {
			extra = append(extra, "permissionRequest."+strings.ReplaceAll(e, ", ", ", permissionRequest."))
		}
		if len(extra) > 0 {
			return nil, "the real runtime's permission.requested for a client's tool carries only permissionRequest {kind, toolCallId, toolName, toolDescription, args}, promptRequest and agentMode, besides its requestId (measured on 1.0.85); the scenario's also has " + strings.Join(extra, ", ")
		}
		p.mu.Lock()
		p.played = append(p.played, playedTool{name: req.ToolName, description: req.ToolDescription})
		p.mu.Unlock()
		return &standin.ModelStep{Tool: req.ToolName, Arguments: req.Args}, ""
	case "elicitation.requested":
		// The runtime's own UI elicitation: the proxy sends session.ui.elicitation with these
		// params when the model reaches the step, and the runtime asks the SDK with
		// elicitation.requested carrying them as given, fields its schema does not name too
		// (measured on 1.0.85: elicitationSource and futureField reached the SDK unchanged), beside
		// the requestId it chooses.
		if _, ok := v["requestId"]; ok {
			return nil, "the real runtime chooses the elicitation's requestId itself; the scenario's cannot be put on the wire"
		}
		return &standin.ModelStep{Elicitation: params}, ""
	case "userInput.request":
		var q struct {
			Question string   `json:"question"`
			Choices  []string `json:"choices"`
		}
		if extra := outside(v, "question", "choices", "allowFreeform"); extra != "" {
			return nil, "the real runtime builds userInput.request from its ask_user tool's question and choices alone (measured on 1.0.85: ask_user called with toolCallId and futureField too sent only sessionId, question, choices and allowFreeform), so the scenario's " + extra + " cannot be put on the wire"
		}
		if json.Unmarshal(params, &q) != nil || q.Question == "" {
			return nil, "the real runtime's ask_user tool needs a question"
		}
		// ask_user takes only question and choices (its parameters in the model request, 1.0.85):
		// the runtime sends allowFreeform true whatever the scenario gives; the checks of the
		// scenarios that play here read the SDK's answer, which does not depend on it.
		args := map[string]any{"question": q.Question}
		if len(q.Choices) > 0 {
			args["choices"] = q.Choices
		}
		return &standin.ModelStep{Tool: "ask_user", Arguments: args}, ""
	}
	return nil, fmt.Sprintf("the real runtime sends %s only of its own accord, and no model step of this harness makes it do so", method)
}

// outside names m's keys outside keys ("" for none), sorted.
func outside(m map[string]json.RawMessage, keys ...string) string {
	var out []string
	for k := range m {
		if !slices.Contains(keys, k) {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}

// elicit has the real runtime ask the SDK for data (an elicitation.requested's message, mode and
// requestedSchema): session.ui.elicitation for the session of the current turn, sent on the
// SDK's own connection to the runtime with an id of the proxy's, and waits for its answer (the
// SDK's, relayed by the runtime) or 30 s.
func (p *Proxy) elicit(data json.RawMessage) {
	var params map[string]any
	_ = json.Unmarshal(data, &params)
	p.mu.Lock()
	conn, session := p.turnConn, p.turnSession
	w := p.upstream[conn]
	p.injectSeq++
	id := fmt.Sprintf("conformance-%d", p.injectSeq)
	answer := make(chan json.RawMessage, 1)
	if p.awaiting == nil {
		p.awaiting = map[string]chan json.RawMessage{}
	}
	p.awaiting[id] = answer
	p.mu.Unlock()
	if w == nil {
		p.rec.Notef("", "the elicitation could not be played: no session.send went through the proxy before the model call")
		return
	}
	params["sessionId"] = session
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "session.ui.elicitation", "params": params})
	p.rec.Add(transcript.Entry{Conn: conn, Dir: transcript.Note, Kind: KindInjected, Frame: body,
		Text: "the proxy asks the real runtime for the scenario's elicitation (its answer goes to the proxy, not the SDK)"})
	if err := w.Write(body); err != nil {
		p.rec.Notef(conn, "sending session.ui.elicitation: %v", err)
		return
	}
	select {
	case a := <-answer:
		p.rec.Add(transcript.Entry{Conn: conn, Dir: transcript.Note, Kind: KindInjected, Frame: a,
			Text: "the real runtime's answer to the proxy's session.ui.elicitation"})
	case <-time.After(30 * time.Second):
		p.rec.Notef(conn, "the real runtime did not answer the proxy's session.ui.elicitation within 30 s")
	}
}

// answered takes a runtime frame that answers a request of the proxy's own (elicit), and says
// whether it did.
func (p *Proxy) answered(body []byte) bool {
	if !bytes.Contains(body, []byte(`"conformance-`)) {
		return false
	}
	var m wire.Message
	if json.Unmarshal(body, &m) != nil || !m.IsResponse() {
		return false
	}
	var id string
	if json.Unmarshal(m.ID, &id) != nil {
		return false
	}
	p.mu.Lock()
	ch, ok := p.awaiting[id]
	delete(p.awaiting, id)
	p.mu.Unlock()
	if ok {
		ch <- body
	}
	return ok
}

// playedTool is a tool the proxy registers on the SDK's session so that the real runtime asks
// for permission to run it (permission.requested); the proxy answers its calls.
type playedTool struct{ name, description string }

// addPlayedTools adds the played tools to a session.create or session.resume the proxy forwards,
// and says what it added ("" for nothing).
func (p *Proxy) addPlayedTools(params map[string]json.RawMessage) string {
	p.mu.Lock()
	played := append([]playedTool(nil), p.played...)
	p.mu.Unlock()
	if len(played) == 0 {
		return ""
	}
	var tools []map[string]any
	if raw, ok := params["tools"]; ok {
		_ = json.Unmarshal(raw, &tools)
	}
	var names []string
	for _, t := range played {
		tools = append(tools, map[string]any{"name": t.name, "description": t.description,
			"parameters": map[string]any{"type": "object", "additionalProperties": true}})
		names = append(names, t.name)
	}
	params["tools"], _ = json.Marshal(tools)
	return "added tool(s) " + strings.Join(names, ", ") + " (the scenario's permission request: the real runtime asks for permission before it runs a client's tool; the proxy answers its calls)"
}

// answerPlayedTool answers the runtime's call of a played tool (an external_tool.requested
// event on conn) with a text, on the SDK's connection to the runtime with an id of the proxy's.
func (p *Proxy) answerPlayedTool(conn string, params json.RawMessage) {
	var ev standin.FrameParams
	if json.Unmarshal(params, &ev) != nil || ev.Event.Type != "external_tool.requested" {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	mine := slices.ContainsFunc(p.played, func(t playedTool) bool { return t.name == ev.Event.Data.ToolName })
	w := p.upstream[conn]
	if !mine || w == nil {
		return
	}
	p.injectSeq++
	id := fmt.Sprintf("conformance-%d", p.injectSeq)
	if p.awaiting == nil {
		p.awaiting = map[string]chan json.RawMessage{}
	}
	answer := make(chan json.RawMessage, 1)
	p.awaiting[id] = answer
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "session.tools.handlePendingToolCall",
		"params": map[string]any{"sessionId": ev.SessionID, "requestId": ev.Event.Data.RequestID, "result": ev.Event.Data.ToolName + ": done (played by the conformance proxy)"}})
	p.rec.Add(transcript.Entry{Conn: conn, Dir: transcript.Note, Kind: KindInjected, Frame: body,
		Text: "the proxy answers the runtime's call of the tool it registered for the scenario's permission request"})
	_ = w.Write(body)
	go func() {
		select {
		case a := <-answer:
			p.rec.Add(transcript.Entry{Conn: conn, Dir: transcript.Note, Kind: KindInjected, Frame: a, Text: "the real runtime's answer to the proxy's session.tools.handlePendingToolCall"})
		case <-time.After(30 * time.Second):
		}
	}()
}
