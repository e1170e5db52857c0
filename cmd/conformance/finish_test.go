package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// run, merge and replay finish the same way (package finish): the same records give a
// byte-identical summary.md. A replay of a run keeps the run's records (its SDKs, schema source
// and timing) and re-derives every status from the transcripts; a merge of a run's shards holds
// the same results, but no timing (each shard's is its own machine's), so it is compared with
// the whole run's summary up to the timing section, and exactly with its own replay.
func TestRunMergeAndReplayWriteTheSameSummary(t *testing.T) {
	bin := buildCLI(t)
	// A feature with expected failures, and one whose steps read a spawned runtime's argv and
	// the requests after a create (a replay must grow the transcript as the recorded one grew).
	features := []string{"features/tools/is_terminal.feature", "features/session/handshake.feature"}
	summary := func(dir string) string {
		b, err := os.ReadFile(filepath.Join(dir, "summary.md"))
		require.NoError(t, err)
		return string(b)
	}
	cli := func(args ...string) {
		code, out := runCLI(t, bin, args...)
		require.Less(t, code, 2, "%s", out)
	}
	whole, replayed := t.TempDir(), t.TempDir()
	cli(append([]string{"run", "--sdk", "go", "--report-dir", whole}, features...)...)
	res, err := report.ReadResults(filepath.Join(whole, "results.json"))
	require.NoError(t, err)
	if res.SDKs[0].Status != report.Available {
		t.Skipf("go is unavailable: %s", res.SDKs[0].Reason)
	}
	require.NotEmpty(t, res.Timing, "the run timed its SDK")
	cli("replay", filepath.Join(whole, "results.json"), "--report-dir", replayed)
	assert.Equal(t, summary(whole), summary(replayed), "run and its replay")

	var shards []string
	for _, s := range []string{"1/2", "2/2"} {
		dir := t.TempDir()
		cli(append([]string{"run", "--sdk", "go", "--shard", s, "--report-dir", dir}, features...)...)
		shards = append(shards, filepath.Join(dir, "results.json"))
	}
	merged, mergedReplay := t.TempDir(), t.TempDir()
	cli(append([]string{"merge", "--report-dir", merged}, shards...)...)
	cli("replay", filepath.Join(merged, "results.json"), "--report-dir", mergedReplay)
	assert.Equal(t, summary(merged), summary(mergedReplay), "merge and its replay")
	untimed, _, _ := strings.Cut(summary(whole), "\n## Timing")
	assert.Equal(t, untimed, summary(merged), "run and merge, up to the run's timing")

	for _, dir := range []string{whole, replayed, merged, mergedReplay} {
		back, complete, err := report.ReadStream(filepath.Join(dir, report.StreamFile))
		require.NoError(t, err)
		assert.True(t, complete, "%s: results.ndjson has its footer", dir)
		assert.Len(t, back.Results, len(res.Results), dir)
	}
}
