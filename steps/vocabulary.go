package steps

import (
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/suite"
	"github.com/copilot-sdk-conformance/conformance/steps/scenario"
)

// recorder lists the phrases in the order they are bound, with what each needs
// (scenario.Needing): a scenario.Lister.
type recorder struct {
	patterns []string
	needs    map[string]scenario.NeedsFunc
}

func (r *recorder) Step(expr, _ interface{}) { r.patterns = append(r.patterns, expr.(string)) }

func (r *recorder) Needs(expr string, needs scenario.NeedsFunc) { r.needs[expr] = needs }

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
			if c, ok := scenario.ToolOptionNeeds[col]; ok {
				out = append(out, c)
			}
			if col == "handler" {
				out = append(out, handlerNeeds(cell)...)
			}
		}
	}
	return out
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

// Vocabulary lists every phrase the steps bind with what it needs (suite.Step), without godog.
func Vocabulary() []suite.Step {
	r := &recorder{needs: map[string]scenario.NeedsFunc{}}
	register(r, scenario.New(nil))
	out := make([]suite.Step, 0, len(r.patterns))
	for _, p := range r.patterns {
		out = append(out, suite.Step{Pattern: p, Needs: r.needs[p]})
	}
	return out
}

// knownCapability reports whether c is one of suite.Capabilities.
func knownCapability(c string) bool { return suite.KnownCapability(c) }
