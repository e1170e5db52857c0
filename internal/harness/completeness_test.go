package harness

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/cases"
	"github.com/copilot-sdk-conformance/conformance/internal/driver"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/suite"
	"github.com/copilot-sdk-conformance/conformance/steps"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A scenario that cannot open its transcript (here: its folder's place is taken by a file; under
// a low open-file limit, EMFILE) still ends in an outcome naming the cause, instead of ending
// before anything is recorded.
func TestScenarioWhoseTranscriptCannotBeOpenedHasAResult(t *testing.T) {
	features, reports := t.TempDir(), t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(features, "f.feature"), []byte(`Feature: f
  Scenario: first
    When a session is created with no tools

  Scenario: second
    When a session is created with no tools
`), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(reports, report.TranscriptsDir), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(reports, report.TranscriptsDir, "fake"), nil, 0o644)) // not a folder
	exe, err := os.Executable()
	require.NoError(t, err)
	var outcomes []suite.Outcome
	tg := &target{name: "fake", label: "fake", timeout: 30 * time.Second, reportDir: reports, progress: io.Discard,
		launcher: driver.Local{Argv: []string{exe}, Env: []string{"FAKE_DRIVER=ok", "FAKE_DRIVER_MARKER=" + filepath.Join(reports, "marker")}},
		finished: func(o suite.Outcome) { outcomes = append(outcomes, o) }}
	tg.hello = &driver.Hello{Capabilities: map[string]bool{"transport.tcp": true}}
	runSuite(Config{Steps: steps.Initializer, ReportDir: reports, Paths: []string{features}}, &state{}, features, tg)
	tg.close()
	require.Len(t, outcomes, 2, "every scenario has an outcome")
	for _, o := range outcomes {
		require.Error(t, o.Err, o.Scenario)
		assert.Contains(t, o.Err.Error(), "the scenario's transcript could not be opened")
		assert.Contains(t, o.Err.Error(), "not a directory")
		assert.Empty(t, o.Transcript)
	}
}

// Completeness names every planned key without a result, with the reason its target recorded,
// "interrupted" once the run's context ended, else "not run".
func TestCompletenessNamesEveryMissingKey(t *testing.T) {
	features := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(features, "f.feature"), []byte(`Feature: f
  Scenario: a
    When a session is created with no tools

  Scenario: b
    When a session is created with no tools

  @other
  Scenario: c
    When a session is created with no tools
`), 0o644))
	selected, err := cases.Select([]string{features}, "~@other", "")
	require.NoError(t, err)
	require.Len(t, selected, 2, "the tag expression applies as godog applies it")
	f := relFeature(features, filepath.Join(features, "f.feature"))
	info := []report.SDK{{Name: "node", Version: "1.0"}, {Name: "go", Version: "v1"}}

	node, golang := &target{name: "node"}, &target{name: "go"}
	node.accounted.recorded(f, "a")
	node.accounted.recorded(f, "b")
	golang.accounted.recorded(f, "a")
	golang.accounted.lost(f, "b", report.MissingUnrecorded+": disk full")
	c := completeness(context.Background(), features, selected, []*target{node, golang}, info, nil)
	assert.False(t, c.Complete)
	assert.Equal(t, 4, c.Planned)
	assert.Equal(t, 3, c.Reported)
	assert.Equal(t, []report.Missing{{Feature: f, Scenario: "b", SDK: "go", Version: "v1", Reason: "could not record: disk full"}}, c.Missing)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c = completeness(ctx, features, selected, []*target{node, {name: "go"}}, info, nil)
	require.Len(t, c.Missing, 2)
	assert.Equal(t, report.MissingInterrupted, c.Missing[0].Reason)
	c = completeness(context.Background(), features, selected, []*target{node, {name: "go"}}, info, nil)
	assert.Equal(t, report.MissingNotRun, c.Missing[0].Reason)
	assert.Equal(t, "INCOMPLETE: 2 of 4 planned results missing (2 not run)", c.Headline())

	shard := &target{name: "node", selected: map[string]bool{f + "\ta": true}}
	shard.accounted.recorded(f, "a")
	c = completeness(context.Background(), features, selected, []*target{shard}, info, nil)
	assert.True(t, c.Complete, "a shard plans only its own keys")
	assert.Equal(t, 1, c.Planned)
}
