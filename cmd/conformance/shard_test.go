package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runCLI runs the CLI in the checkout and returns its exit code and output.
func runCLI(t *testing.T, bin string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = repoDir(t)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if err != nil {
		require.ErrorAs(t, err, &ee, "%s", out)
		return ee.ExitCode(), string(out)
	}
	return 0, string(out)
}

// outcome is what a merge must keep of a result: everything but the rerun command line.
type outcome struct{ Status, Message, Transcript, Expected string }

// requestNumber is a request's place in its transcript ("request #43"): frames the runtime and
// the SDK send concurrently (events beside a handler's call) interleave differently in any two
// runs, sharded or not, so the number is left out of the comparison.
var requestNumber = regexp.MustCompile(`#\d+`)

func outcomes(t *testing.T, res *report.Results) map[string]outcome {
	m := map[string]outcome{}
	for _, r := range res.Results {
		k := r.Feature + " / " + r.Scenario + " on " + r.SDK
		require.NotContains(t, m, k, "one result per key")
		m[k] = outcome{r.Status, requestNumber.ReplaceAllString(r.Message, "#N"), r.Transcript, r.Expected}
	}
	return m
}

// TestShardsMergeToTheUnshardedRun runs node and go once whole and once as four shards, merges the
// shards and checks the merged report equals the whole run's: the same results, SDKs and
// cross-SDK comparisons (recomputed over the shards' transcripts). A missing shard, or a shard
// given twice, is an error.
func TestShardsMergeToTheUnshardedRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs node and go five times: not in -short mode")
	}
	for _, tool := range []string{"npm", "go"} {
		if _, err := exec.LookPath(tool); err != nil && len(required()) == 0 {
			t.Skipf("%s is not installed", tool)
		}
	}
	bin := buildCLI(t)
	whole := t.TempDir()
	wantCode, out := runCLI(t, bin, "run", "--sdk", "node,go", "--report-dir", whole)
	require.Less(t, wantCode, 2, "%s", out)
	want, err := report.ReadResults(filepath.Join(whole, "results.json"))
	require.NoError(t, err)
	assert.Nil(t, want.Harness.Shard)

	const n = 4
	var shards []string
	total := 0
	for i := 1; i <= n; i++ {
		dir := t.TempDir()
		code, out := runCLI(t, bin, "run", "--sdk", "node,go", "--shard", fmt.Sprintf("%d/%d", i, n), "--report-dir", dir)
		require.Less(t, code, 2, "%s", out)
		res, err := report.ReadResults(filepath.Join(dir, "results.json"))
		require.NoError(t, err)
		s := res.Harness.Shard
		require.NotNil(t, s, "shard %d records its shard", i)
		assert.Equal(t, []int{i, n}, []int{s.Index, s.Count})
		assert.InDelta(t, float64(s.Keys)/n, s.Selected, 1, "shard %d holds its even share of %d keys", i, s.Keys)
		assert.Len(t, res.Results, s.Selected, "shard %d ran exactly its keys", i)
		total += len(res.Results)
		shards = append(shards, filepath.Join(dir, "results.json"))
	}
	assert.Equal(t, len(want.Results), total, "the shards together ran the whole matrix once")

	merged := t.TempDir()
	code, out := runCLI(t, bin, append([]string{"merge", "--report-dir", merged}, shards...)...)
	assert.Equal(t, wantCode, code, "merge exits as the whole run did\n%s", out)
	got, err := report.ReadResults(filepath.Join(merged, "results.json"))
	require.NoError(t, err)
	assert.Equal(t, outcomes(t, want), outcomes(t, got))
	assert.Equal(t, want.Totals, got.Totals)
	assert.Equal(t, want.Comparisons, got.Comparisons, "comparisons recomputed over all shards")
	require.Len(t, got.SDKs, len(want.SDKs))
	for i := range want.SDKs {
		assert.Equal(t, []string{want.SDKs[i].Name, want.SDKs[i].Status, want.SDKs[i].Version},
			[]string{got.SDKs[i].Name, got.SDKs[i].Status, got.SDKs[i].Version})
	}
	for _, r := range got.Results {
		if r.Transcript != "" {
			assert.FileExists(t, filepath.Join(merged, r.Transcript))
		}
	}
	for _, f := range []string{"junit.xml", "summary.md"} {
		assert.FileExists(t, filepath.Join(merged, f))
	}

	code, out = runCLI(t, bin, append([]string{"merge", "--report-dir", t.TempDir()}, shards[:3]...)...)
	assert.Equal(t, 2, code, "%s", out)
	assert.Contains(t, out, "missing shard 4 of 4")
	code, out = runCLI(t, bin, "merge", "--report-dir", t.TempDir(), shards[0], shards[1], shards[2], shards[3], shards[1])
	assert.Equal(t, 2, code, "%s", out)
	assert.Contains(t, out, "overlapping shards")
}
