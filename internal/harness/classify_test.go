package harness

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/copilot-sdk-conformance/conformance/internal/expect"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/suite"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
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
			r := classify(Config{}, &state{}, m, unit{sdk: sdk.Name, version: sdk.Version, label: sdk.Name}, sdk, tt.o)
			assert.Equal(t, tt.status, r.Status, r.Message)
			for _, c := range tt.contains {
				assert.Contains(t, r.Message, c)
			}
			assert.Equal(t, tt.capability, r.Capability)
		})
	}
}

// Every frame is judged by the schema: a violation no known entry names fails the scenario (a
// passing one, and an expected failure too, as a failure its entry does not explain), naming the
// method, pointer, message and keyword; a known one is reported with its entry and fails nothing.
// A run of the whole suite that never shows a known violation on a version in its range lists the
// entry as stale.
func TestClassifyJudgesEverySchemaViolation(t *testing.T) {
	m, err := expect.Parse([]byte(`
- sdk: go
  scenario: listed
  reason: Go sends null
  link: drivers/go/README.md
  message: 'want \[\], got null'
`), "manifest.yaml", []expect.Scenario{{Feature: "f.feature", Name: "listed"}, {Feature: "f.feature", Name: "s"}}, []string{"go"})
	require.NoError(t, err)
	dir := t.TempDir()
	path := filepath.Join(dir, expect.ViolationsFile)
	require.NoError(t, os.WriteFile(path, []byte(`
- sdk: go
  versions: "<= 1.0.14"
  method: session.create
  pointer: /tools/\d+
  message: missing property 'description'
  reason: Tool.Description is omitempty
  link: drivers/go/README.md
- sdk: go
  method: gitHubToken.getToken answer
  message: got null, want object
  reason: the handler's nil
  link: drivers/go/README.md
`), 0o644))
	m.Violations, err = expect.LoadViolations(path, []string{"go"})
	require.NoError(t, err)
	known := transcript.Violation{Method: "session.create", Pointer: "/tools/0", Message: "missing property 'description'", Keyword: "required"}
	answer := transcript.Violation{Method: "gitHubToken.getToken", Pointer: "/result", Message: "got null, want object", Keyword: "type", Answer: true}
	asRequest := answer
	asRequest.Answer = false // the same words in a request are not the known answer
	unknown := transcript.Violation{Method: "session.tools.set", Pointer: "/tools", Message: "got null, want array", Keyword: "type"}
	tests := []struct {
		name       string
		scenario   string
		version    string
		o          suite.Outcome
		status     string
		contains   []string
		knownWhere []string
	}{
		{name: "known violations fail nothing", scenario: "s", version: "1.0.14",
			o: suite.Outcome{SchemaViolations: []transcript.Violation{known, answer}}, status: report.Passed,
			knownWhere: []string{path + ":2", path + ":9"}},
		{name: "an unknown violation fails a passing scenario", scenario: "s", version: "1.0.14",
			o: suite.Outcome{SchemaViolations: []transcript.Violation{known, unknown}}, status: report.Failed,
			contains:   []string{"1 of the frames the SDK sent break the runtime's schema", "session.tools.set: /tools: got null, want array (keyword type)"},
			knownWhere: []string{path + ":2"}},
		{name: "a known violation outside its versions is unknown", scenario: "s", version: "1.0.15",
			o: suite.Outcome{SchemaViolations: []transcript.Violation{known}}, status: report.Failed,
			contains: []string{"session.create: /tools/0: missing property 'description' (keyword required)"}},
		{name: "an answer's entry does not excuse a request", scenario: "s", version: "1.0.14",
			o: suite.Outcome{SchemaViolations: []transcript.Violation{asRequest}}, status: report.Failed,
			contains: []string{"gitHubToken.getToken: /result: got null, want object"}},
		{name: "an unknown violation in an expected failure is a failure its entry does not explain", scenario: "listed", version: "1.0.14",
			o: suite.Outcome{Err: errors.New("tools: want [], got null"), Failures: []suite.Failure{{Message: "tools: want [], got null"}},
				SchemaViolations: []transcript.Violation{unknown}}, status: report.Failed,
			contains: []string{"not the known divergence"}},
		{name: "an unsupported scenario that broke the schema is failed", scenario: "s", version: "1.0.14",
			o:      suite.Outcome{Unsupported: "go SDK lacks capability tool.defer", Capability: "tool.defer", SchemaViolations: []transcript.Violation{unknown}},
			status: report.Failed, contains: []string{"got null, want array"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.o.Feature, tt.o.Scenario = "f.feature", tt.scenario
			sdk := report.SDK{Name: "go", Version: tt.version, Status: report.Available}
			r := classify(Config{}, &state{}, m, unit{sdk: sdk.Name, version: sdk.Version, label: sdk.Name}, sdk, tt.o)
			assert.Equal(t, tt.status, r.Status, r.Message)
			for _, c := range tt.contains {
				assert.Contains(t, r.Message, c)
			}
			assert.Equal(t, tt.knownWhere, r.KnownViolations)
		})
	}

	t.Run("an entry never observed in a run of every scenario is stale", func(t *testing.T) {
		res := &report.Results{SDKs: []report.SDK{{Name: "go", Version: "1.0.14", Status: report.Available}},
			Results: []report.Result{{SDK: "go", Version: "1.0.14", KnownViolations: []string{path + ":2"}}}}
		pinned := func(string, string) bool { return true }
		stale := staleViolations(m.Violations, res, pinned)
		require.Len(t, stale, 1)
		assert.Contains(t, stale[0], path+":9: go gitHubToken.getToken answer")
		assert.Contains(t, stale[0], "was not observed on go@1.0.14")
		res.SDKs[0].Version = "1.0.15" // the first entry does not hold there; the second does, unseen
		assert.Len(t, staleViolations(m.Violations, res, pinned), 1)
		// An older version than the pin is not judged: it may not have the method at all.
		assert.Empty(t, staleViolations(m.Violations, res, func(string, string) bool { return false }))
	})
}

// A source build is matched as the version it would be released as (sdks.SourceVersion): not
// as its placeholder, which every "<=" range would hold, nor as its commit, which none would.
// An xpass on it names the entry's range and the version it was compared as.
func TestClassifyMatchesASourceBuildAsItsReleaseVersion(t *testing.T) {
	m, err := expect.Parse([]byte(`
- sdk: python
  versions: "<= 1.0.9"
  scenario: s
  reason: fixed in 1.0.10
  link: l
  message: 'want true'
- sdk: go
  versions: "< 1.0.10"
  scenario: s
  reason: fixed in 1.0.10
  link: l
  message: 'want true'
`), "manifest.yaml", []expect.Scenario{{Feature: "f.feature", Name: "s"}}, []string{"go", "python"})
	require.NoError(t, err)
	failing := suite.Outcome{Err: errors.New("isTerminal: want true, the key is absent")}
	tests := []struct {
		name, sdk, version, matched string
		o                           suite.Outcome
		status                      string
		contains                    []string
	}{
		{name: "a build after the range passes plainly", sdk: "python", version: "0.0.0.dev0 (git v1.0.9-6-g4e95dee; matched as 1.0.10-0.6)",
			o: suite.Outcome{}, status: report.Passed},
		{name: "a build after the range that fails is a plain failure", sdk: "python", version: "0.0.0.dev0 (git v1.0.9-6-g4e95dee; matched as 1.0.10-0.6)",
			o: failing, status: report.Failed},
		{name: "a build inside the range fails as known", sdk: "go", version: "git go/v1.0.9-6-g4e95dee; matched as 1.0.10-0.6",
			o: failing, status: report.XFail},
		{name: "a build inside the range that passes names the range and the version compared", sdk: "go",
			version: "git go/v1.0.9-6-g4e95dee; matched as 1.0.10-0.6", matched: "1.0.10-0.6 (go/v1.0.9 + 6 commits)",
			o: suite.Outcome{}, status: report.XPass,
			contains: []string{"remove the entry at manifest.yaml:8", `narrow its versions ("< 1.0.10") to exclude 1.0.10-0.6 (go/v1.0.9 + 6 commits), the version this source build is matched as`}},
		{name: "a build with no release version matches no range", sdk: "python", version: "0.0.0.dev0 (git abc1234; no release version)",
			o: suite.Outcome{}, status: report.Passed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.o.Feature, tt.o.Scenario = "f.feature", "s"
			sdk := report.SDK{Name: tt.sdk, Version: tt.version, Matched: tt.matched}
			r := classify(Config{}, &state{}, m, unit{sdk: sdk.Name, version: sdk.Version, label: sdk.Name}, sdk, tt.o)
			assert.Equal(t, tt.status, r.Status, r.Message)
			for _, c := range tt.contains {
				assert.Contains(t, r.Message, c)
			}
		})
	}
}
