package campaign

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/copilot-sdk-conformance/conformance/internal/harness"
	"github.com/copilot-sdk-conformance/conformance/internal/history"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
)

// recorded are four real Node SDK versions' runs (the history package's fixtures, kept as
// `conformance history --sdk node` wrote them).
var recorded = filepath.Join("..", "history", "testdata", "recorded")

// replayed is a RunFunc that runs nothing: it writes the recorded run of the version asked for
// into the report folder (only the scenario asked for, when one is), and counts the runs.
type replayed struct {
	mu   sync.Mutex
	runs []harness.Config
	// flip, when set, is the status a rerun of a failed scenario gets (a flaky failure).
	flip string
}

func (r *replayed) run(_ context.Context, cfg harness.Config) (*report.Results, error) {
	r.mu.Lock()
	r.runs = append(r.runs, cfg)
	r.mu.Unlock()
	var version string
	for _, vs := range cfg.Versions {
		version = vs[0]
	}
	src := filepath.Join(recorded, report.Target(cfg.SDKs[0], version))
	if err := os.CopyFS(cfg.ReportDir, os.DirFS(src)); err != nil {
		return nil, err
	}
	res, err := report.ReadResults(filepath.Join(src, "results.json"))
	if err != nil {
		return nil, err
	}
	if cfg.Scenario != "" {
		var kept []report.Result
		for _, x := range res.Results {
			if x.Scenario == cfg.Scenario {
				if r.flip != "" {
					x.Status, x.Message = r.flip, ""
				}
				kept = append(kept, x)
			}
		}
		res.Results = kept
	}
	// The recorded runs are of an older schemaVersion; what bisect's comparison reads strictly
	// is in this one's shape.
	res.Schema = report.SchemaVersion
	if res.Completeness == nil {
		res.Completeness = &report.Completeness{Complete: true, Planned: len(res.Results), Reported: len(res.Results)}
	}
	b, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	return res, os.WriteFile(filepath.Join(cfg.ReportDir, "results.json"), b, 0o644)
}

func recordedPlan(t *testing.T, r *replayed) HistoryPlan {
	return HistoryPlan{Config: harness.Config{ReportDir: t.TempDir(), RepoRoot: "/repo", Tags: "@x"}, SDK: "node",
		Versions: []string{"1.0.8", "1.0.9", "1.0.11", "1.0.13"}, Parallel: 2, Recheck: 10, Run: r.run}
}

// TestHistoryRunsEachVersionAndRechecks: each version runs once, alone, into SDK@VERSION/; the
// history finds the recorded changes; the failing side of each regression and fix runs again
// (that scenario alone, twice when it fails again) and its verdict is recorded.
func TestHistoryRunsEachVersionAndRechecks(t *testing.T) {
	for _, tt := range []struct {
		name, flip, verdict string
		reruns              int
	}{
		{"failures that come back", "", "reproduced: ", 2},
		{"failures that do not", report.Passed, "not reproduced: ", 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := &replayed{flip: tt.flip}
			p := recordedPlan(t, r)
			h, err := History(context.Background(), p)
			require.NoError(t, err)
			require.Len(t, h.Versions, 4)

			versions := map[string]int{}
			var rechecks []harness.Config
			for _, c := range r.runs {
				assert.Equal(t, []string{"node"}, c.SDKs)
				if c.Scenario != "" {
					rechecks = append(rechecks, c)
					continue
				}
				versions[c.Versions["node"][0]]++
				assert.Equal(t, "@x", c.Tags, "the shared flags reach every run")
				assert.Equal(t, filepath.Join(p.Config.ReportDir, report.Target("node", c.Versions["node"][0])), c.ReportDir)
			}
			assert.Equal(t, map[string]int{"1.0.8": 1, "1.0.9": 1, "1.0.11": 1, "1.0.13": 1}, versions)

			var checked []history.Change
			for _, v := range h.Versions {
				for _, c := range v.Changes {
					if c.Recheck != "" {
						checked = append(checked, c)
					}
				}
			}
			require.NotEmpty(t, checked, "the recorded regression and fix are rechecked")
			require.NotEmpty(t, rechecks)
			for _, c := range checked {
				assert.True(t, strings.HasPrefix(c.Recheck, tt.verdict), "%s %s: %s", c.Kind, c.Scenario, c.Recheck)
			}
			for _, c := range rechecks {
				assert.Empty(t, c.Tags, "a recheck runs its one scenario, whatever the tags")
				assert.Equal(t, []string{filepath.Join("/repo", "features", checked[0].Feature)}, c.Paths[:1])
			}
			assert.Len(t, rechecks, tt.reruns*countFailures(checked), "reruns per failure")
		})
	}
}

// countFailures is how many distinct failures the changes rest on (one recheck each).
func countFailures(cs []history.Change) int {
	seen := map[string]bool{}
	for _, c := range cs {
		seen[c.Scenario+"\t"+c.Feature+"\t"+strings.Fields(c.Recheck)[2]] = true
	}
	return len(seen)
}

// TestHistoryUnpreparedVersion: a version that does not prepare is unavailable with the
// preparation's answer, and is not run.
func TestHistoryUnpreparedVersion(t *testing.T) {
	r := &replayed{}
	p := recordedPlan(t, r)
	p.Recheck = 0
	p.Prepare = func(_ context.Context, v string) error {
		if v == "1.0.11" {
			return errors.New("npm: no such version")
		}
		return nil
	}
	h, err := History(context.Background(), p)
	require.NoError(t, err)
	assert.Len(t, r.runs, 3)
	for _, v := range h.Versions {
		if v.Version == "1.0.11" {
			assert.NotEqual(t, report.Available, v.Status)
			assert.Contains(t, v.Reason, "npm: no such version")
		}
	}
}

// TestHistoryInterrupted: an interrupted history starts nothing more and says so.
func TestHistoryInterrupted(t *testing.T) {
	r := &replayed{}
	p := recordedPlan(t, r)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := History(ctx, p)
	assert.ErrorIs(t, err, harness.ErrInterrupted)
	assert.Empty(t, r.runs)
}

// TestHistoryReference: the reference of the other SDKs runs first, at their pins, with the
// shared flags' versions for them; the comparison names it.
func TestHistoryReference(t *testing.T) {
	r := &replayed{}
	p := recordedPlan(t, r)
	p.Recheck, p.Others = 0, []string{"node"} // the reference replays node@1.0.13 as another SDK's run
	p.Config.Versions = map[string][]string{"node": {"1.0.13"}}
	_, err := History(context.Background(), p)
	require.NoError(t, err)
	require.NotEmpty(t, r.runs)
	var ref *harness.Config
	for i, c := range r.runs {
		if c.ReportDir == filepath.Join(p.Config.ReportDir, "reference") {
			ref = &r.runs[i]
		}
	}
	require.NotNil(t, ref, "the reference ran")
	assert.Equal(t, []string{"1.0.13"}, ref.Versions["node"])
	assert.Equal(t, "conformance history (reference)", ref.Command)
}

// TestRebuild compares the recorded versions again, running nothing.
func TestRebuild(t *testing.T) {
	h, err := Rebuild(recorded, "", true, history.Options{})
	require.NoError(t, err)
	assert.Equal(t, "node", h.SDK)
	assert.Len(t, h.Versions, 4)
	_, err = Rebuild(t.TempDir(), "", true, history.Options{})
	assert.ErrorContains(t, err, "--rebuild")
}
