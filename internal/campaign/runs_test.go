package campaign

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/copilot-sdk-conformance/conformance/internal/harness"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
)

// byVersion replays, for each run, the recorded Node run that pick names from its configuration.
func byVersion(r *replayed, pick func(harness.Config) string) RunFunc {
	return func(ctx context.Context, cfg harness.Config) (*report.Results, error) {
		cfg.SDKs, cfg.Versions, cfg.Scenario = []string{"node"}, map[string][]string{"node": {pick(cfg)}}, ""
		return r.run(ctx, cfg)
	}
}

// TestBisectFindsTheRecordedChange bisects the recorded Node versions: 1.0.9 changed the
// public-method sweep's checks (it failed on 1.0.8 already, so the statuses of 1.0.8 and 1.0.9
// are compared, not the checks) and 1.0.11 fixed it.
func TestBisectFindsTheRecordedChange(t *testing.T) {
	r := &replayed{}
	dir := t.TempDir()
	o, err := Bisect(context.Background(), harness.Config{ReportDir: dir}, "node", []string{"1.0.8", "1.0.9", "1.0.11", "1.0.13"}, r.run, nil)
	require.NoError(t, err)
	assert.Equal(t, "1.0.11", o.FirstChanged)
	assert.Equal(t, "1.0.9", o.LastGood)
	for _, s := range o.Steps {
		assert.Equal(t, filepath.Join(dir, report.Target("node", s.Version)), s.Dir)
	}
	ran := map[string]int{}
	for _, c := range r.runs {
		v := c.Versions["node"][0]
		ran[v]++
		assert.Equal(t, fmt.Sprintf("conformance bisect (node %s)", v), c.Command)
	}
	for v, n := range ran {
		assert.Equal(t, 1, n, "%s ran once", v)
	}
	assert.Equal(t, 1, ran["1.0.8"], "good runs first")
}

// TestBisectStopsOnARunWithoutResults: a run that wrote no results.json ends the search with its error.
func TestBisectStopsOnARunWithoutResults(t *testing.T) {
	failing := func(context.Context, harness.Config) (*report.Results, error) {
		return nil, errors.New("docker: no daemon")
	}
	_, err := Bisect(context.Background(), harness.Config{ReportDir: t.TempDir()}, "node", []string{"1.0.8", "1.0.9"}, failing, nil)
	assert.ErrorContains(t, err, "docker: no daemon")
}

// TestMatrixRunsEachRuntime: one run per runtime version into runtime@V/, the matrix written
// beside them, failed when a version's run has a failing result.
func TestMatrixRunsEachRuntime(t *testing.T) {
	r := &replayed{}
	recordedOf := map[string]string{"1.0.84": "1.0.8", "1.0.85": "1.0.11"}
	run := byVersion(r, func(c harness.Config) string { return recordedOf[c.RuntimeVersion] })
	dir := t.TempDir()
	m, failed, err := Matrix(context.Background(), harness.Config{ReportDir: dir, Runtime: harness.RuntimeReal}, []string{"1.0.84", "1.0.85"}, run, nil, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"1.0.84", "1.0.85"}, m.Runtimes)
	require.Len(t, r.runs, 2)
	for _, c := range r.runs {
		assert.Equal(t, harness.RuntimeReal, c.Runtime)
	}
	assert.True(t, failed, "1.0.8's run failed a scenario")
	assert.FileExists(t, filepath.Join(dir, "compat.json"))
	assert.FileExists(t, filepath.Join(dir, "compat.md"))
}

// TestFidelityRunsBothRuntimes: the stand-in run, then the real one (with its runtime version),
// compared; the files written and the time said.
func TestFidelityRunsBothRuntimes(t *testing.T) {
	r := &replayed{}
	run := byVersion(r, func(c harness.Config) string {
		if c.Runtime == harness.RuntimeReal {
			return "1.0.9"
		}
		return "1.0.8"
	})
	dir := t.TempDir()
	noSchema := func(context.Context) ([]byte, string, string) { return nil, "", "not in this test" }
	md, err := Fidelity(context.Background(), FidelityPlan{Config: harness.Config{ReportDir: dir, RuntimeVersion: "1.0.85"}, Run: run, Schema: noSchema})
	require.NoError(t, err)
	require.Len(t, r.runs, 2)
	assert.Equal(t, harness.RuntimeStandIn, r.runs[0].Runtime)
	assert.Empty(t, r.runs[0].RuntimeVersion, "the stand-in has no version")
	assert.Equal(t, harness.RuntimeReal, r.runs[1].Runtime)
	assert.Equal(t, "1.0.85", r.runs[1].RuntimeVersion)
	assert.Contains(t, md, "## Time")
	for _, f := range []string{"fidelity.md", "fidelity.json", "stand-in/results.json", "real/results.json"} {
		assert.FileExists(t, filepath.Join(dir, f))
	}

	// --compare runs nothing and compares what is there.
	r.runs = nil
	md, err = Fidelity(context.Background(), FidelityPlan{Config: harness.Config{ReportDir: dir}, CompareOnly: true, Run: run, Schema: noSchema})
	require.NoError(t, err)
	assert.Empty(t, r.runs)
	assert.NotContains(t, md, "## Time")
}

// TestBenchMeasuresTheParts: the parts end where the run's console log says (the schema named,
// the last SDK done), and the cold run starts from an empty cache that the warm one reuses.
func TestBenchMeasuresTheParts(t *testing.T) {
	r := &replayed{}
	var caches []string
	run := func(ctx context.Context, cfg harness.Config) (*report.Results, error) {
		caches = append(caches, cfg.CacheRoot)
		fmt.Fprintln(cfg.Progress.Writer(), "runtime schema: recorded")
		cfg.Progress.Done("node")
		return byVersion(r, func(harness.Config) string { return "1.0.13" })(ctx, cfg)
	}
	b, err := Bench(context.Background(), harness.Config{ReportDir: t.TempDir()}, run)
	require.NoError(t, err)
	require.NotNil(t, b.Results)
	var names []string
	for _, p := range b.Phases {
		names = append(names, p.Name)
	}
	assert.Equal(t, []string{"schema", "scenarios", "drivers stopped and reports"}, names)

	caches = nil
	var done int
	cold, warm, err := ColdWarm(context.Background(), harness.Config{ReportDir: t.TempDir()}, run, nil, func(*BenchRun) { done++ })
	require.NoError(t, err)
	require.NotNil(t, cold)
	require.NotNil(t, warm)
	assert.Equal(t, 2, done)
	require.Len(t, caches, 2)
	assert.Equal(t, caches[0], caches[1], "the warm run uses what the cold one cached")
	assert.NoDirExists(t, caches[0], "the bench's own cache is removed after")
}
