package canon

import "strings"

// Documented defaults: where the SDKs differ only by sending a value the runtime treats exactly
// like an absent key, the difference is harmless and Defaults drops the key before payloads are
// compared. Everything not listed here is compared as sent (and the features check it).
// These equivalences belong to the informational cross-SDK comparison (internal/compare) only:
// no feature step applies them (ToolAnswer, below, is the one form both use). A scenario in which the application set a value checks that the
// value is on the wire as set ([] present as [], false present as false); an SDK that drops it
// fails there, and where that is a known divergence it is listed in
// fixtures/expected-failures.yaml with the SDK source that drops it.
//
// Decided from the runtime's published schema (api.schema.json; session.create/resume are not
// in it, session.options.update has the same option keys and is a patch: "Patches the
// genuinely-mutable subset of session options", so there an absent key means "unchanged") and
// from the SDK sources:
//   - session.create and session.resume:
//   - availableTools: null -> absent. Go's request struct has `json:"availableTools"` without
//     omitempty, so an unset allowlist is sent as null; the schema types the key as an array,
//     and null and absent both mean "no allowlist".
//   - requestPermission, requestUserInput, requestElicitation, requestExitPlanMode,
//     requestAutoModeSwitch, requestMcpApps, hooks: false -> absent. The runtime sends the
//     matching request only when the flag is true; Node and Python send false when no handler
//     is registered, Go and Rust leave the key out.
//   - disableResume: false -> absent (session.resume). "when true, skips emitting the
//     session.resume event" (the SDKs' docs); Go's SuppressResumeEvent is a plain bool.
//   - session.create only: excludedTools, disabledSkills, skillDirectories, pluginDirectories,
//     instructionDirectories, additionalDirectories: [] -> absent. A new session starts with no
//     exclusions and no extra directories, so an empty denylist or directory list is the
//     default. NOT on session.resume: resume re-applies options to an existing session, where
//     an absent key may keep the old value and [] clears it, so there [] must be kept.
//
// Normative (not normalized, the features check them):
//   - availableTools: [] (an empty allowlist: no tools) versus absent (every tool).
//   - includeSubAgentStreamingEvents absent versus true: Node, Go and Python send true when the
//     application leaves it unset (documented "@default true"); the runtime's own default is not
//     published, so leaving the key out (Rust 1.0.28) may change what the application receives.
//
// A request only one SDK sends is not normalized either: Rust sends session.skills.reload after
// session.resume (session.rs, Client::resume_session); it reloads the session's skills, which a
// resumed session already has, so the comparison lists it as informational.

var falseMeansAbsent = map[string]bool{
	"requestPermission": true, "requestUserInput": true, "requestElicitation": true,
	"requestExitPlanMode": true, "requestAutoModeSwitch": true, "requestMcpApps": true,
	"hooks": true, "disableResume": true,
}

var emptyMeansAbsentOnCreate = map[string]bool{
	"excludedTools": true, "disabledSkills": true, "skillDirectories": true,
	"pluginDirectories": true, "instructionDirectories": true, "additionalDirectories": true,
}

// AbsentEquivalent reports whether a top-level key of a method's params, with this value, means
// the same to the runtime as the key left out.
func AbsentEquivalent(method, key string, value any) bool {
	if method != "session.create" && method != "session.resume" {
		return false
	}
	switch v := value.(type) {
	case nil:
		return key == "availableTools"
	case bool:
		return !v && falseMeansAbsent[key]
	case []any:
		return len(v) == 0 && method == "session.create" && emptyMeansAbsentOnCreate[key]
	}
	return false
}

// Defaults returns params (a decoded object) without the keys AbsentEquivalent says are
// defaults, so that SDKs differing only there compare equal; a tool answer in the form of
// ToolAnswer.
func Defaults(method string, params any) any {
	if method == ToolAnswerMethod {
		return ToolAnswer(params)
	}
	m, ok := params.(map[string]any)
	if !ok {
		return params
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		if !AbsentEquivalent(method, k, v) {
			out[k] = v
		}
	}
	return out
}

// ToolAnswerMethod is the request that carries a tool's result from the SDK to the runtime.
const ToolAnswerMethod = "session.tools.handlePendingToolCall"

// ToolAnswer is a handlePendingToolCall answer (decoded params) in the one form in which answers
// are compared as a whole, across SDKs and by the features' whole-answer step. Two equivalences,
// both the runtime's own reading:
//   - result as a bare string S is {"textResultForLlm": S, "resultType": "success"}: the
//     schema's ExternalToolResult is "string or expanded result object", and the runtime reads a
//     string as the success text (Node sends a returned string bare, Go and Python expanded);
//   - a textResultForLlm that is the JSON text of an object or array (a typed value the SDK
//     serialised) is compared as that JSON value: serialisers differ in spacing only (Python's
//     json.dumps writes ", " and ": "), which the model reads the same. Key order inside it is
//     not compared here.
//
// Everything else stays as sent: a top-level error versus a failure result object, a missing
// resultType, an extra or missing field are differences.
func ToolAnswer(params any) any {
	m, ok := params.(map[string]any)
	if !ok {
		return params
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	switch r := m["result"].(type) {
	case string:
		out["result"] = map[string]any{"textResultForLlm": decodedText(r), "resultType": "success"}
	case map[string]any:
		res := make(map[string]any, len(r))
		for k, v := range r {
			res[k] = v
		}
		if t, ok := r["textResultForLlm"].(string); ok {
			res["textResultForLlm"] = decodedText(t)
		}
		out["result"] = res
	}
	return out
}

// decodedText is t's JSON value when t is the JSON text of an object or array, else t.
func decodedText(t string) any {
	s := strings.TrimSpace(t)
	if !strings.HasPrefix(s, "{") && !strings.HasPrefix(s, "[") {
		return t
	}
	v, err := Decode([]byte(s))
	if err != nil {
		return t
	}
	return v
}
