package merge

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/copilot-sdk-conformance/conformance/internal/render"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// writeShard writes a shard's results.json and returns its path.
func writeShard(t *testing.T, version string, index, count int, plan string, results ...report.Result) string {
	dir := t.TempDir()
	res := &report.Results{Schema: report.SchemaVersion, Harness: report.Harness{Version: version,
		Shard: &report.Shard{Index: index, Count: count, Plan: plan, Keys: 4}},
		SDKs: []report.SDK{{Name: "go", Status: report.Available, Version: "v1"}}, Results: results,
		Completeness: &report.Completeness{Complete: true, Planned: len(results), Reported: len(results)}}
	require.NoError(t, render.JSON(dir, res))
	return filepath.Join(dir, "results.json")
}

func result(scenario string) report.Result {
	return report.Result{Feature: "f.feature", Scenario: scenario, SDK: "go", Status: report.Passed}
}

func TestMergeRefusesWhatIsNotOneRun(t *testing.T) {
	one := writeShard(t, "1.0", 1, 2, "p", result("a"))
	two := writeShard(t, "1.0", 2, 2, "p", result("b"))
	tests := []struct {
		name   string
		inputs []string
		err    string
	}{
		{"missing shard", []string{one}, "missing shard 2 of 2"},
		{"same shard twice", []string{one, two, writeShard(t, "1.0", 2, 2, "p", result("c"))}, "overlapping shards"},
		{"a result in two shards", []string{one, writeShard(t, "1.0", 2, 2, "p", result("a"))}, "both hold f.feature / a on go"},
		{"harness versions differ", []string{one, writeShard(t, "2.0", 2, 2, "p", result("b"))}, "harness versions differ"},
		{"another plan", []string{one, writeShard(t, "1.0", 2, 2, "q", result("b"))}, "not one run's shards"},
		{"another count", []string{one, writeShard(t, "1.0", 2, 3, "p", result("b"))}, "not one run's shards"},
		{"not a shard", []string{one, writeUnsharded(t)}, "is not a shard"},
		{"nothing", nil, "no results.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Merge(t.TempDir(), tt.inputs, "merge", Options{})
			require.ErrorIs(t, err, ErrInput)
			assert.Contains(t, err.Error(), tt.err)
		})
	}

	t.Run("a whole set", func(t *testing.T) {
		out := t.TempDir()
		res, err := Merge(out, []string{two, one}, "merge", Options{})
		require.NoError(t, err)
		assert.Nil(t, res.Harness.Shard)
		require.Len(t, res.Results, 2)
		assert.Equal(t, []string{"a", "b"}, []string{res.Results[0].Scenario, res.Results[1].Scenario})
		assert.Equal(t, 2, res.Totals[report.Passed])
		for _, f := range render.All {
			assert.FileExists(t, filepath.Join(out, f.File))
		}
	})
}

func writeUnsharded(t *testing.T) string {
	dir := t.TempDir()
	require.NoError(t, render.JSON(dir, &report.Results{Schema: report.SchemaVersion, Harness: report.Harness{Version: "1.0"},
		Completeness: &report.Completeness{Complete: true}}))
	return filepath.Join(dir, "results.json")
}

// A shard that left planned results without one (interrupted) is refused; told
// --allow-incomplete, the merge is INCOMPLETE in every report: never a PASS.
func TestMergeOfAnInterruptedShard(t *testing.T) {
	one := writeShard(t, "1.0", 1, 2, "p", result("a"))
	dir := t.TempDir()
	interrupted := &report.Results{Schema: report.SchemaVersion, Harness: report.Harness{Version: "1.0",
		Shard: &report.Shard{Index: 2, Count: 2, Plan: "p", Keys: 4}},
		SDKs: []report.SDK{{Name: "go", Status: report.Available, Version: "v1"}}, Results: []report.Result{result("b")},
		Completeness: &report.Completeness{Planned: 2, Reported: 1, Missing: []report.Missing{
			{Feature: "f.feature", Scenario: "c", SDK: "go", Version: "v1", Reason: report.MissingInterrupted}}}}
	require.NoError(t, render.JSON(dir, interrupted))
	two := filepath.Join(dir, "results.json")

	_, err := Merge(t.TempDir(), []string{one, two}, "merge", Options{})
	require.ErrorIs(t, err, ErrInput)
	assert.Contains(t, err.Error(), two+" is an incomplete shard")
	assert.Contains(t, err.Error(), "f.feature / c on go@v1, interrupted")
	assert.Contains(t, err.Error(), "--allow-incomplete")

	out := t.TempDir()
	res, err := Merge(out, []string{one, two}, "merge", Options{AllowIncomplete: true})
	require.NoError(t, err)
	require.True(t, res.Incomplete())
	assert.Equal(t, 3, res.Completeness.Planned)
	assert.Equal(t, 2, res.Completeness.Reported)
	assert.Equal(t, []string{two}, res.Completeness.Allowed)

	summary, err := os.ReadFile(filepath.Join(out, "summary.md"))
	require.NoError(t, err)
	assert.NotContains(t, string(summary), "PASS")
	assert.Contains(t, string(summary), "**INCOMPLETE**: 1 of 3 planned results missing (1 interrupted); merged with --allow-incomplete from 1 incomplete shard")
	assert.Contains(t, string(summary), "- f.feature / c on go@v1: interrupted")
	junit, err := os.ReadFile(filepath.Join(out, "junit.xml"))
	require.NoError(t, err)
	assert.Contains(t, string(junit), `failures="1"`)
	assert.Contains(t, string(junit), "INCOMPLETE: no result: interrupted")
	page, err := os.ReadFile(filepath.Join(out, "report.html"))
	require.NoError(t, err)
	assert.Contains(t, string(page), `<div id="incomplete" role="alert"><strong>INCOMPLETE: 1 of 3`)
	back, err := report.Load(filepath.Join(out, "results.json"))
	require.NoError(t, err, "the merged results.json is readable, and says it is incomplete")
	assert.True(t, back.Incomplete())
}
