package harness

import (
	"errors"
	"testing"

	"github.com/copilot-sdk-conformance/conformance/internal/expect"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/suite"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A listed scenario is xfail only when its failure is the one the entry names; any other failure
// is failed, with both the expected and the observed failure in the message.
func TestClassifyAppliesTheEntryStrictly(t *testing.T) {
	m, err := expect.Parse([]byte(`
- sdk: go
  scenario: s
  reason: Go sends null
  link: drivers/go/README.md
  request: session.tools.set
  path: tools
  message: 'want \[\], got null'
`), "manifest.yaml", []expect.Scenario{{Feature: "f.feature", Name: "s"}}, []string{"go"})
	require.NoError(t, err)
	sdk := report.SDK{Name: "go", Version: "1.0.14"}
	tests := []struct {
		name       string
		o          suite.Outcome
		status     string
		contains   []string
		capability string
	}{
		{name: "the named failure is xfail",
			o:      suite.Outcome{Err: errors.New("tools: want [], got null"), Checked: []report.Check{{Method: "session.tools.set", Path: "tools"}}},
			status: report.XFail, contains: []string{"known divergence (manifest.yaml:2): Go sends null"}},
		{name: "the named failure among the failures of later checks is failed",
			o: suite.Outcome{Err: errors.New("2 steps failed"), Checked: []report.Check{{Method: "session.tools.set", Path: "tools"}, {Method: "session.create", Path: "model"}},
				Failures: []suite.Failure{
					{Message: "tools: want [], got null", Checked: []report.Check{{Method: "session.tools.set", Path: "tools"}}},
					{Message: "model: want \"gpt-5\", the key is absent", Checked: []report.Check{{Method: "session.create", Path: "model"}}},
				}},
			status: report.Failed, contains: []string{"not the known divergence", "observed last check session.create model"}},
		{name: "the same value at the same path elsewhere in the message is not enough",
			o:      suite.Outcome{Err: errors.New("tools: want [], the key is absent"), Checked: []report.Check{{Method: "session.tools.set", Path: "tools"}}},
			status: report.Failed, contains: []string{"a message matching /want \\[\\], got null/"}},
		{name: "a failure elsewhere is failed, expected and observed shown",
			o:      suite.Outcome{Err: errors.New("step \"x\": the SDK raised boom"), Checked: []report.Check{{Method: "session.create", Path: "tools[0].name"}}},
			status: report.Failed, contains: []string{"the SDK raised boom", "not the known divergence",
				"expected a failed check of session.tools.set tools with a message matching /want \\[\\], got null/ (manifest.yaml:2)", "observed last check session.create tools[0].name"}},
		{name: "a failure before any payload check is failed",
			o: suite.Outcome{Err: errors.New("driver crashed")}, status: report.Failed,
			contains: []string{"observed no payload check"}},
		{name: "a pass of a listed scenario is xpass", o: suite.Outcome{}, status: report.XPass},
		{name: "unsupported carries its capability",
			o:      suite.Outcome{Unsupported: "go SDK lacks capability tool.defer", Capability: "tool.defer"},
			status: report.Unsupported, capability: "tool.defer"},
		{name: "unsupported without a capability is failed",
			o:      suite.Outcome{Unsupported: "the driver cannot"},
			status: report.Failed, contains: []string{"unsupported without a capability", "the driver cannot"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.o.Feature, tt.o.Scenario = "f.feature", "s"
			r := classify(Config{}, m, unit{sdk: sdk.Name, version: sdk.Version, label: sdk.Name}, sdk, tt.o)
			assert.Equal(t, tt.status, r.Status, r.Message)
			for _, c := range tt.contains {
				assert.Contains(t, r.Message, c)
			}
			assert.Equal(t, tt.capability, r.Capability)
		})
	}
}
