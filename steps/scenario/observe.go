package scenario

import (
	"fmt"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/schemagen"
	"github.com/copilot-sdk-conformance/conformance/internal/standin"
	"github.com/copilot-sdk-conformance/conformance/internal/suite"
)

func (s *Scenario) Observe(key, value string) {
	if s.Observations == nil {
		s.Observations = map[string]string{}
	}
	s.Observations[key] = value
}

func (s *Scenario) Check(method, path string) {
	s.Checked = append(s.Checked, report.Check{Method: method, Path: path})
}

func (s *Scenario) Schemas() (*schemagen.Doc, error) {
	if sc, ok := s.T.(suite.Schemas); ok && sc.Schemas() != nil {
		return sc.Schemas(), nil
	}
	return nil, &ErrUnavailable{Reason: "the runtime's published schemas are not loaded for generation in this run (they come from the prepared Node SDK's platform package)"}
}

// ScriptedOnly is the stand-in, for a step that has the runtime send requests only a scripted
// runtime sends (runtime.script.request); on a runtime that asks of its own accord when its model
// does something (the real one) the step is unsupported with why, the scenario's own reason.
func (s *Scenario) ScriptedOnly(why string) (*standin.Server, error) {
	if _, ok := s.RT.(suite.Player); ok {
		return nil, Unplayable(why)
	}
	return s.StandIn("runtime.script.request")
}

// Unplayable is a request a runtime that asks of its own accord (the real one) cannot be made to
// send, with its reason for these params (suite.Player).
func Unplayable(why string) error {
	return &ErrUnsupported{Capability: "runtime.script.request", Reason: why}
}

// ObserveEdges records, per method, how many of its params' choices (a member's enum, anyOf
// branch, null, empty list or object, bound, string form, boolean) got every alternative in the
// generated cases (schemagen.Cases covers them all; a choice left out is named).
func (s *Scenario) ObserveEdges(doc *schemagen.Doc, methods []schemagen.Method) {
	var per []string
	members, covered := 0, 0
	for _, m := range methods {
		c := doc.EdgeCoverage(m)
		if c.Members == 0 {
			continue
		}
		members, covered = members+c.Members, covered+c.Covered
		line := fmt.Sprintf("%s %d/%d", m.Name, c.Covered, c.Members)
		if len(c.Missing) > 0 {
			line += " (not: " + strings.Join(c.Missing, ", ") + ")"
		}
		per = append(per, line)
	}
	s.Observe("params members with every edge", fmt.Sprintf("%d of %d: %s", covered, members, strings.Join(per, "; ")))
}
