// Package scenariotest holds what the tests of the steps, the core and the sweeps share: a
// Target that only answers what a test asks of it.
package scenariotest

import "github.com/copilot-sdk-conformance/conformance/internal/suite"

// Target is a suite.Target that only answers SDK and Capability (all the unsupported checks
// use): every capability in Caps is declared, every other one lacking.
type Target struct {
	suite.Target
	Caps map[string]bool
}

// SDK is a fake SDK's name.
func (Target) SDK() string { return "fake" }

// Capability is whether Caps declares name, with the note a lacking one has.
func (c Target) Capability(name string) (bool, string) {
	return c.Caps[name], "no " + name
}
