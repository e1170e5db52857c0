package realruntime

import (
	"encoding/json"
	"slices"

	"github.com/copilot-sdk-conformance/conformance/internal/runtime"
)

// Requests the real runtime sends the SDK of its own accord (measured on 1.0.85), which a
// scenario that scripts them on the stand-in can have it send:
//   - hooks.invoke: with hooks registered, every turn invokes userPromptSubmitted,
//     userPromptTransformed, sessionStart, agentStop and sessionEnd (reason "complete"), and
//     every tool call preToolUse (the model calls the read-only glob tool in the private
//     working directory for it);
//   - userInput.request: the model calls the runtime's ask_user tool (question, choices).
//
// Only requests whose params carry nothing the runtime would not put there itself are played: a
// scenario about fields the SDK does not know, or about the exact input a hook receives, stays
// unsupported (runtime.script.request).
var (
	everyTurnHooks = []string{"userPromptSubmitted", "userPromptTransformed", "sessionStart", "agentStop", "sessionEnd"}
	hookInputKeys  = []string{"timestamp", "cwd", "toolName", "toolArgs", "reason", "prompt", "source", "initialPrompt"}
)

// Plays implements suite.Player.
func (p *Proxy) Plays(method string, params json.RawMessage) (*runtime.ModelStep, bool) {
	var v map[string]json.RawMessage
	if json.Unmarshal(params, &v) != nil {
		return nil, false
	}
	switch method {
	case "hooks.invoke":
		var hook string
		var input map[string]json.RawMessage
		_ = json.Unmarshal(v["hookType"], &hook)
		_ = json.Unmarshal(v["input"], &input)
		if !only(v, "hookType", "input") || !only(input, hookInputKeys...) {
			return nil, false
		}
		switch {
		case slices.Contains(everyTurnHooks, hook):
			return nil, true
		case hook == "preToolUse":
			return &runtime.ModelStep{Tool: "glob", Arguments: map[string]any{"pattern": "*.conformance"}}, true
		}
	case "userInput.request":
		var q struct {
			Question string   `json:"question"`
			Choices  []string `json:"choices"`
		}
		if !only(v, "question", "choices", "allowFreeform") || json.Unmarshal(params, &q) != nil || q.Question == "" {
			return nil, false
		}
		args := map[string]any{"question": q.Question}
		if len(q.Choices) > 0 {
			args["choices"] = q.Choices
		}
		return &runtime.ModelStep{Tool: "ask_user", Arguments: args}, true
	}
	return nil, false
}

// only says whether m has no key outside keys.
func only(m map[string]json.RawMessage, keys ...string) bool {
	for k := range m {
		if !slices.Contains(keys, k) {
			return false
		}
	}
	return true
}
