package steps

import (
	"github.com/copilot-sdk-conformance/conformance/steps/handlerset"
	"github.com/copilot-sdk-conformance/conformance/steps/scenario"

	"github.com/copilot-sdk-conformance/conformance/internal/driver"
	"github.com/copilot-sdk-conformance/conformance/internal/suite"
	"github.com/cucumber/godog"
)

// ErrUnsupported marks a step the SDK version cannot perform (suite.ErrUnsupported): godog
// skips the rest of the scenario and the harness reports it as unsupported, never as passed.
type ErrUnsupported = suite.ErrUnsupported

// ErrUnavailable marks a step whose input this run does not have (suite.ErrUnavailable): a
// setup problem reported unavailable with its reason, never unsupported and never passed.
type ErrUnavailable = suite.ErrUnavailable

// world is the plain phrases' state of one scenario on one SDK, over the core every step
// shares (scenario.Scenario); each sweep keeps its own state in its own type.
type world struct {
	*scenario.Scenario
	tried        *driver.Response // the outcome of the last "tries to" step
	replacements int              // replacements made at once by the last "replaced N times at once"
	handlers     *handlerset.Set  // the application's runtime-to-SDK handlers and the requests the runtime was made to send (shared with the handler and pending sweeps)
}

// Initializer returns godog's scenario initializer for one SDK (a suite.Initializer): the
// phrases and the steps' side of each scenario. The harness wraps it in the scenario's
// lifecycle (which scenarios run, the transcript, the @requires gate, the recording runtime,
// the outcome); the steps see a scenario that reached the SDK through t.Scenario(). godog
// calls it once per scenario, so every engine's state is the scenario's own.
func Initializer(t suite.Target) func(*godog.ScenarioContext) {
	return func(sc *godog.ScenarioContext) {
		s := scenario.New(t)
		register(s.Bind(sc), s)
	}
}

// register binds world's phrases and every engine's on s.
func register(b scenario.Binder, s *scenario.Scenario) {
	w := &world{Scenario: s, handlers: &handlerset.Set{}}
	s.Handlers = w.handlers.Args
	s.Opened = append(s.Opened, w.handlers.Note)
	w.register(b)
}
