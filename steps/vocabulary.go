package steps

import (
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
	if strings.HasPrefix(h, "clears the context") {
		return []string{"session.clearContext"}
	}
	return nil
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

// commandNeeds is the capability a driver command needs: a driver that declared it and answers
// unsupported has a fault (see do).
var commandNeeds = map[string]string{
	"resumeSession":        "session.resume",
	"setTools":             "session.setTools",
	"setToolsConcurrently": "session.setTools",
	"setToolsRpc":          "session.rpc.tools.set",
	"clearContext":         "session.clearContext",
	"rpc":                  "rpc.generated",
	"rpcBatch":             "rpc.generated",
	"surface":              "surface",
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
