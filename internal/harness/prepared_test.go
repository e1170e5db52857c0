package harness

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/sdks"
	"github.com/copilot-sdk-conformance/conformance/steps"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every selected SDK is prepared before any scenario runs: one that cannot be is said then, with
// its cause, in one line before any SDK starts its scenarios; the others still run and report, and
// the run ends as a setup error (exit 2) that says the others' results are in the reports.
func TestAnSDKThatCannotBePreparedIsSaidBeforeAnyScenario(t *testing.T) {
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	exe, err := os.Executable()
	require.NoError(t, err)
	for _, fake := range []struct {
		name string
		fail bool
	}{{"fake", false}, {"fakebroken", true}} {
		defer sdks.Register(sdks.Recipe{
			Name: fake.name, Order: 99, DriverDir: t.TempDir(),
			Prepare: func(_ context.Context, pc sdks.PrepareContext) (sdks.Launch, error) {
				if fake.fail {
					time.Sleep(time.Second) // the slower of the two: the ready one waits for it
					return sdks.Launch{}, &sdks.Unavailable{Reason: "cannot build it: `npm ci` failed\nthe tail"}
				}
				return sdks.Launch{Argv: []string{exe}, Dir: pc.CacheDir,
					Env: []string{"FAKE_DRIVER=ok", "FAKE_DRIVER_MARKER=" + filepath.Join(t.TempDir(), "marker")}}, nil
			},
		})()
	}
	features := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(features, "f.feature"),
		[]byte("Feature: f\n  Scenario: s\n    When a session is created with no tools\n"), 0o644))
	var log bytes.Buffer
	res, err := Run(context.Background(), Config{Steps: steps.Initializer, Vocabulary: steps.Vocabulary(), RepoRoot: root,
		CacheRoot: t.TempDir(), SDKs: []string{"fake", "fakebroken"}, Paths: []string{features},
		CommandTimeout: 30 * time.Second, ReportDir: t.TempDir(), Log: &log})
	require.True(t, errors.Is(err, ErrSetup), "%v", err)
	assert.Contains(t, err.Error(), "fakebroken")
	assert.Contains(t, err.Error(), "the other SDKs ran: their 1 results are in the reports")
	require.NotNil(t, res)
	byName := map[string]report.SDK{}
	for _, s := range res.SDKs {
		byName[s.Name] = s
	}
	assert.Equal(t, report.Available, byName["fake"].Status)
	assert.Equal(t, report.Unavailable, byName["fakebroken"].Status)
	require.Len(t, res.Results, 2)
	for _, r := range res.Results {
		if r.SDK == "fake" {
			assert.Equal(t, report.Passed, r.Status, r.Message)
		}
	}

	out := log.String()
	prepared := strings.Index(out, "before any scenario: 1 of 2 SDKs run (fake); unavailable: fakebroken (")
	assert.Regexp(t, "unavailable: fakebroken \\([^\n]*cannot build it: `npm ci` failed\\)\n", out, "with its cause")
	running := strings.Index(out, "[fake] running")
	require.GreaterOrEqual(t, prepared, 0, out)
	require.GreaterOrEqual(t, running, 0, out)
	assert.Less(t, prepared, running, "the unavailable SDK is said before any scenario runs:\n%s", out)
}
