package scenario

import (
	"encoding/json"
	"maps"
	"slices"
)

// Binder is what registering phrases needs of godog's ScenarioContext, so that the phrases can
// also be listed without godog running anything (steps.Vocabulary). World and every sweep bind
// their phrases through one: godog's, wrapped in checking, in a run; a lister in Vocabulary.
type Binder interface {
	Step(expr, stepFunc interface{})
}

// NeedsFunc is what a use of a phrase needs, from the phrase's groups (args) and its data table.
type NeedsFunc func(args []string, table [][]string) []string

// Lister is a Binder that lists the phrases and keeps what each needs (Needing).
type Lister interface {
	Binder
	Needs(expr string, needs NeedsFunc)
}

// ToolOptionNeeds is the capability each tool option needs when a scenario sets it.
var ToolOptionNeeds = map[string]string{
	"isTerminal":           "tool.isTerminal",
	"overridesBuiltInTool": "tool.overridesBuiltInTool",
	"skipPermission":       "tool.skipPermission",
	"defer":                "tool.defer",
	"metadata":             "tool.metadata",
}

// Needs is the NeedsFunc of a phrase that always needs caps.
func Needs(caps ...string) NeedsFunc {
	return func([]string, [][]string) []string { return caps }
}

// Needing binds the next phrase with what a use of it needs (args are the phrase's groups,
// table its data table): the capabilities beyond the baseline every driver has (transport.tcp,
// create, send). The plan fails a scenario whose @requires tags miss one of them.
func Needing(sc Binder, needs NeedsFunc) Binder {
	return needingBinder{sc, needs}
}

type needingBinder struct {
	Binder
	needs NeedsFunc
}

func (n needingBinder) Step(expr, fn interface{}) {
	if l, ok := n.Binder.(Lister); ok {
		l.Needs(expr.(string), n.needs)
	}
	n.Binder.Step(expr, fn)
}

// CommandNeeds is every capability a driver command needs, derived from the command and its
// arguments (drivers/PROTOCOL.md: the harness sends an option, a tool option or a handler action
// only when hello declared its capability). A driver that declared all of them and still answers
// unsupported has a fault (see Scenario.Unsupported): an unsupported answer always names a
// capability the driver declared false.
func CommandNeeds(cmd string, args any) []string {
	var a map[string]any
	if b, err := json.Marshal(args); err == nil {
		_ = json.Unmarshal(b, &a)
	}
	var out []string
	switch cmd {
	case "connect":
		if a["cliPath"] != nil {
			out = append(out, "transport.stdio")
		} else {
			out = append(out, "transport.tcp")
		}
		out = append(out, prefixed("connect.option.", a["options"])...)
		if _, ok := a["fields"]; ok {
			out = append(out, "surface")
		}
	case "resumeSession":
		out = append(out, "session.resume")
	case "setTools", "setToolsConcurrently":
		out = append(out, "session.setTools")
	case "setToolsRpc":
		out = append(out, "session.rpc.tools.set")
		if v, ok := a["tools"]; ok && v == nil {
			out = append(out, "session.rpc.tools.set.nil")
		}
	case "clearContext":
		out = append(out, "session.clearContext")
	case "hold", "release":
		out = append(out, "handler.hold")
	case "surface":
		out = append(out, "surface")
	case "rpc", "rpcBatch":
		// An unsupported outcome for one method inside the batch is that method's absence from
		// the generated layer; an unsupported answer to the command itself is not.
		out = append(out, "rpc.generated")
	case "convert":
		out = append(out, "convert.roundtrip")
	}
	if cmd == "createSession" || cmd == "resumeSession" {
		out = append(out, prefixed("session.option.", a["options"])...)
		if _, ok := a["gitHubToken"]; ok {
			out = append(out, "session.gitHubToken")
		}
		if _, ok := a["fields"]; ok {
			out = append(out, "surface")
		}
		if _, ok := a["surfaceHandlers"]; ok {
			out = append(out, "surface.handlers")
		}
	}
	if _, ok := a["cancelAfterMs"]; ok {
		out = append(out, cancelNeeds(cmd, a))
	}
	if cmd == "createSession" || cmd == "resumeSession" || cmd == "connect" {
		if _, ok := a["handlers"]; ok {
			out = append(out, "rpc.handlers")
		}
	}
	if cmd != "setToolsRpc" { // raw wire definitions: no tool options of the SDK's tool API
		tools, _ := a["tools"].([]any)
		if sets, ok := a["toolSets"].([]any); ok {
			for _, set := range sets {
				more, _ := set.([]any)
				tools = append(tools, more...)
			}
		}
		for _, t := range tools {
			out = append(out, toolNeeds(t)...)
		}
	}
	return dedupe(out)
}

// cancelNeeds is the capability of a command given cancelAfterMs: call.cancel.<the SDK call>, a
// send that waits for the reply being sendAndWait (PROTOCOL.md "The application cancels a call").
func cancelNeeds(cmd string, a map[string]any) string {
	if wait, _ := a["wait"].(bool); cmd == "send" && wait {
		return "call.cancel.sendAndWait"
	}
	return "call.cancel." + cmd
}

// toolNeeds is what one protocol Tool needs: each option it sets and its handler's action.
func toolNeeds(tool any) []string {
	t, _ := tool.(map[string]any)
	var out []string
	for _, k := range slices.Sorted(maps.Keys(t)) {
		if c, ok := ToolOptionNeeds[k]; ok {
			out = append(out, c)
		}
	}
	h, _ := t["handler"].(map[string]any)
	if _, ok := h["waitFor"]; ok {
		out = append(out, "tool.handler.waitFor")
	}
	switch h["action"] {
	case "clearContext":
		out = append(out, "session.clearContext")
	case "returnValue":
		out = append(out, "tool.result.value")
	case "returnResult":
		r, _ := h["result"].(map[string]any)
		out = append(out, ResultNeeds(r)...)
	}
	return out
}

// prefixed is prefix+key for each key of an options object, in order.
func prefixed(prefix string, options any) []string {
	m, _ := options.(map[string]any)
	var out []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, prefix+k)
	}
	return out
}

func dedupe(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// Needs turns a missing capability into unsupported, naming it, with the driver's note.
func (s *Scenario) Needs(caps ...string) error {
	for _, c := range caps {
		if reason, _, lacking := s.Lacks(c); lacking {
			return &ErrUnsupported{Reason: reason, Capability: c}
		}
	}
	return nil
}

// resultCapabilities are the capabilities a result object's fields need.
var resultCapabilities = map[string]string{
	"binaryResultsForLlm": "tool.result.binary",
	"sessionLog":          "tool.result.sessionLog",
	"toolTelemetry":       "tool.result.telemetry",
}

// ResultNeeds is what returning the result object r needs: the result type, each field's
// capability, and metadata on a binary result.
func ResultNeeds(r map[string]any) []string {
	out := []string{"tool.result.object"}
	for _, k := range slices.Sorted(maps.Keys(r)) {
		if c, ok := resultCapabilities[k]; ok {
			out = append(out, c)
		}
	}
	bins, _ := r["binaryResultsForLlm"].([]any)
	for _, b := range bins {
		if m, _ := b.(map[string]any); m != nil {
			if _, ok := m["metadata"]; ok {
				return append(out, "tool.result.binary.metadata")
			}
		}
	}
	return out
}
