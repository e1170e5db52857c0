package scenario

import (
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/cucumber/godog"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const checkingFeature = `Feature: checks
  Scenario: every check runs
    Given a client
    When the application acts
    Then check 1 fails
    And check 2 passes
    And check 3 fails

  Scenario: a failed action ends the scenario
    When the application fails to act
    Then check 4 passes

  Scenario: an unsupported check ends the scenario
    Then check 5 fails
    And check 6 is unsupported
    And check 7 passes
`

// A failed Then step does not end its scenario: every later check runs and every failure is
// recorded; a failed When, or an unsupported step, still ends it.
func TestCheckingRunsEveryThenStep(t *testing.T) {
	var ran []string
	var scenarios []*Scenario
	s := godog.TestSuite{
		ScenarioInitializer: func(sc *godog.ScenarioContext) {
			w := &Scenario{}
			scenarios = append(scenarios, w)
			w.trackSteps(sc)
			c := checking{sc, w}
			c.Step(`^a client$`, func() error { ran = append(ran, "client"); return nil })
			c.Step(`^the application acts$`, func() error { ran = append(ran, "act"); return nil })
			c.Step(`^the application fails to act$`, func() error { ran = append(ran, "act fails"); return errors.New("the SDK raised boom") })
			c.Step(`^check (\d+) fails$`, func(n int) error {
				ran = append(ran, fmt.Sprint(n))
				w.Check("session.create", fmt.Sprintf("k%d", n))
				return fmt.Errorf("check %d failed", n)
			})
			c.Step(`^check (\d+) passes$`, func(n int) error { ran = append(ran, fmt.Sprint(n)); return nil })
			c.Step(`^check (\d+) is unsupported$`, func(n int) error {
				ran = append(ran, fmt.Sprint(n))
				return &ErrUnsupported{Reason: "no such API"}
			})
		},
		Options: &godog.Options{Format: "progress", Output: io.Discard, Strict: true,
			FeatureContents: []godog.Feature{{Name: "checks.feature", Contents: []byte(checkingFeature)}}},
	}
	s.Run()
	assert.Equal(t, []string{"client", "act", "1", "2", "3", "act fails", "5", "6"}, ran)
	require.Len(t, scenarios, 3)
	require.Len(t, scenarios[0].failures, 2)
	assert.Equal(t, []report.Check{{Method: "session.create", Path: "k1"}}, scenarios[0].failures[0].Checked)
	assert.Equal(t, []report.Check{{Method: "session.create", Path: "k3"}}, scenarios[0].failures[1].Checked)
	// The failed When and the unsupported step are godog's errors (the harness's lifecycle keeps
	// them); they end their scenarios: check 4 and check 7 never ran.
	assert.Empty(t, scenarios[1].failures)
	require.Len(t, scenarios[2].failures, 1)
}
