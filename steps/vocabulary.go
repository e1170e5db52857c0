package steps

import (
	"encoding/json"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/suite"
)

// binder is what register needs of godog's ScenarioContext, so that the phrases can also be
// listed without godog running anything (Vocabulary).
type binder interface {
	Step(expr, stepFunc interface{})
}

// recorder lists the phrases in the order they are bound, with what each needs (needing).
type recorder struct {
	patterns []string
	needs    map[string]func([]string, [][]string) []string
}

func (r *recorder) Step(expr, _ interface{}) { r.patterns = append(r.patterns, expr.(string)) }

// toolOptionNeeds is the capability each tool option needs when a scenario sets it.
var toolOptionNeeds = map[string]string{
	"isTerminal":           "tool.isTerminal",
	"overridesBuiltInTool": "tool.overridesBuiltInTool",
	"skipPermission":       "tool.skipPermission",
	"defer":                "tool.defer",
	"metadata":             "tool.metadata",
}

// handlerNeeds is what a handler behaviour needs: clearing the context from a handler.
func handlerNeeds(h string) []string {
	var out []string
	if strings.HasPrefix(h, "clears the context") {
		out = append(out, "session.clearContext")
	}
	if strings.Contains(h, onceReturned) {
		out = append(out, "tool.handler.waitFor")
	}
	return out
}

// tableNeeds is what a tools table needs: each option column with a value, and the handlers.
func tableNeeds(table [][]string) []string {
	var out []string
	if len(table) == 0 {
		return nil
	}
	for _, row := range table[1:] {
		for i, cell := range row {
			if i >= len(table[0]) || cell == "" {
				continue
			}
			col := table[0][i]
			if c, ok := toolOptionNeeds[col]; ok {
				out = append(out, c)
			}
			if col == "handler" {
				out = append(out, handlerNeeds(cell)...)
			}
		}
	}
	return out
}

func needs(caps ...string) func([]string, [][]string) []string {
	return func([]string, [][]string) []string { return caps }
}

// isTerminalNeeds: isTerminal needs its capability only when the step sets it.
func isTerminalNeeds(a []string, _ [][]string) []string {
	if a[1] == "unset" {
		return nil
	}
	return []string{"tool.isTerminal"}
}

// replaceNeeds: a replacement needs setTools and whatever its tools table sets.
func replaceNeeds(_ []string, t [][]string) []string {
	return append(tableNeeds(t), "session.setTools")
}

// needing binds the next phrase with what a use of it needs (args are the phrase's groups,
// table its data table): the capabilities beyond the baseline every driver has (transport.tcp,
// create, send). The plan fails a scenario whose @requires tags miss one of them.
func needing(sc binder, needs func(args []string, table [][]string) []string) binder {
	return needingBinder{sc, needs}
}

type needingBinder struct {
	binder
	needs func([]string, [][]string) []string
}

func (n needingBinder) Step(expr, fn interface{}) {
	if r, ok := n.binder.(*recorder); ok {
		r.needs[expr.(string)] = n.needs
	}
	n.binder.Step(expr, fn)
}

// commandNeeds is every capability a driver command needs, derived from the command and its
// arguments (drivers/PROTOCOL.md: the harness sends an option, a tool option or a handler action
// only when hello declared its capability). A driver that declared all of them and still answers
// unsupported has a fault (see world.unsupported): an unsupported answer always names a
// capability the driver declared false.
func commandNeeds(cmd string, args any) []string {
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
	for _, k := range sortedMapKeys(t) {
		if c, ok := toolOptionNeeds[k]; ok {
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
		out = append(out, resultNeeds(r)...)
	}
	return out
}

// prefixed is prefix+key for each key of an options object, in order.
func prefixed(prefix string, options any) []string {
	m, _ := options.(map[string]any)
	var out []string
	for _, k := range sortedMapKeys(m) {
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

// Vocabulary lists every phrase the steps bind with what it needs (suite.Step), without godog.
func Vocabulary() []suite.Step {
	r := &recorder{needs: map[string]func([]string, [][]string) []string{}}
	(&world{}).register(r)
	out := make([]suite.Step, 0, len(r.patterns))
	for _, p := range r.patterns {
		out = append(out, suite.Step{Pattern: p, Needs: r.needs[p]})
	}
	return out
}

// knownCapability reports whether c is one of suite.Capabilities.
func knownCapability(c string) bool { return suite.KnownCapability(c) }
