package merge

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/copilot-sdk-conformance/conformance/internal/finish"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// writeTranscript records a scenario that sent one session.create with the given model.
func writeTranscript(t *testing.T, dir, rel, sdk, model string) {
	rec, err := transcript.New(filepath.Join(dir, rel))
	require.NoError(t, err)
	rec.Scenario(transcript.Header{Name: "s", Feature: "f.feature", SDK: sdk})
	rec.Frame("c1", transcript.SDKToRuntime, []byte(`{"jsonrpc":"2.0","id":1,"method":"session.create","params":{"model":"`+model+`"}}`))
	require.NoError(t, rec.Close())
}

// The same records give the same summary.md, whether one run finished them or a merge of its
// shards did: one finish (package finish) for both. The merged folder also gets a complete
// results.ndjson (header, every result, footer).
func TestMergeAndRunFinishTheSameWay(t *testing.T) {
	results := []report.Result{
		{Feature: "f.feature", Scenario: "s", SDK: "node", Status: report.Passed, Transcript: report.TranscriptRel("node", "f.feature", "s")},
		{Feature: "f.feature", Scenario: "s", SDK: "go", Status: report.Failed, Message: "boom", Transcript: report.TranscriptRel("go", "f.feature", "s")},
		{Feature: "f.feature", Scenario: "t", SDK: "go", Status: report.Unsupported, Capability: "tool.isTerminal", Message: "lacks it"},
	}
	sdkList := []report.SDK{{Name: "node", Status: report.Available, Version: "1"}, {Name: "go", Status: report.Available, Version: "v1"}}
	harness := report.Harness{Version: "h", Schema: "unavailable: test"}
	write := func(dir string, rs []report.Result) {
		for _, r := range rs {
			if r.Transcript != "" {
				writeTranscript(t, dir, r.Transcript, r.SDK, r.SDK+"-model")
			}
		}
	}

	// One run: results streamed into the sink, then the finish.
	run := t.TempDir()
	write(run, results)
	res := &report.Results{Schema: report.SchemaVersion, Harness: harness, SDKs: sdkList,
		Completeness: &report.Completeness{Complete: true, Planned: len(results), Reported: len(results)}}
	sink, err := report.NewSink(run, res)
	require.NoError(t, err)
	for _, r := range results {
		require.NoError(t, sink.Add(r))
	}
	require.NoError(t, finish.Finish(run, res, finish.Options{Sink: sink}))

	// The same run in two shards, merged.
	var inputs []string
	for i, part := range [][]report.Result{{results[1]}, {results[0], results[2]}} {
		dir := t.TempDir()
		write(dir, part)
		h := harness
		h.Shard = &report.Shard{Index: i + 1, Count: 2, Plan: "p", Keys: 3}
		shard := &report.Results{Schema: report.SchemaVersion, Harness: h, SDKs: sdkList, Results: part,
			Completeness: &report.Completeness{Complete: true, Planned: len(part), Reported: len(part)}}
		require.NoError(t, finish.Finish(dir, shard, finish.Options{}))
		inputs = append(inputs, filepath.Join(dir, "results.json"))
	}
	merged := t.TempDir()
	_, err = Merge(merged, inputs, "merge", Options{})
	require.NoError(t, err)

	a, err := os.ReadFile(filepath.Join(run, "summary.md"))
	require.NoError(t, err)
	b, err := os.ReadFile(filepath.Join(merged, "summary.md"))
	require.NoError(t, err)
	assert.Equal(t, string(a), string(b))
	assert.Contains(t, string(a), "go-model", "the comparison read the transcripts")

	for _, dir := range []string{run, merged} {
		back, complete, err := report.ReadStream(filepath.Join(dir, report.StreamFile))
		require.NoError(t, err)
		assert.True(t, complete, dir)
		assert.Len(t, back.Results, 3)
		assert.Equal(t, 1, back.Totals[report.Failed])
		var whole report.Results
		b, err := os.ReadFile(filepath.Join(dir, "results.json"))
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(b, &whole))
		assert.ElementsMatch(t, whole.Results, back.Results)
	}
}
