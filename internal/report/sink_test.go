package report

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every result reaches both the stream (one whole JSON line each, even when SDKs report at
// once) and the records the renderers read.
func TestSinkStreamsAndCollects(t *testing.T) {
	dir := t.TempDir()
	res := &Results{}
	s, err := NewSink(dir, res)
	require.NoError(t, err)
	var wg sync.WaitGroup
	for _, sdk := range []string{"node", "go", "python"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				assert.NoError(t, s.Add(Result{Feature: "f.feature", Scenario: "s", SDK: sdk, Status: Passed}))
			}
		}()
	}
	wg.Wait()
	res.Tally()
	require.NoError(t, s.End())
	assert.Len(t, res.Results, 150)

	f, err := os.Open(filepath.Join(dir, "results.ndjson"))
	require.NoError(t, err)
	defer f.Close()
	var lines []map[string]json.RawMessage
	for sc := bufio.NewScanner(f); sc.Scan(); {
		var l map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(sc.Bytes(), &l), "line %d", len(lines)+1)
		lines = append(lines, l)
	}
	require.Len(t, lines, 152, "a header, every result, a footer")
	assert.Contains(t, lines[0], "header")
	assert.Contains(t, lines[151], "footer")

	back, complete, err := ReadStream(filepath.Join(dir, "results.ndjson"))
	require.NoError(t, err)
	assert.True(t, complete)
	assert.Len(t, back.Results, 150)
	assert.Equal(t, 150, back.Totals[Passed])
}

// A stream cut short (an interrupted run) reads back as incomplete, with what it holds.
func TestStreamWithoutFooterIsIncomplete(t *testing.T) {
	dir := t.TempDir()
	s, err := NewSink(dir, &Results{Harness: Harness{Version: "v"}})
	require.NoError(t, err)
	require.NoError(t, s.Add(Result{Feature: "f.feature", Scenario: "s", SDK: "go", Status: Failed}))
	require.NoError(t, s.Close())
	back, complete, err := ReadStream(filepath.Join(dir, "results.ndjson"))
	require.NoError(t, err)
	assert.False(t, complete)
	assert.Equal(t, "v", back.Harness.Version)
	assert.Len(t, back.Results, 1)
}

func TestTranscriptRelIsStable(t *testing.T) {
	a := TranscriptRel("go", "tools/x.feature", `a "quoted" name`)
	assert.Equal(t, a, TranscriptRel("go", "tools/x.feature", `a "quoted" name`))
	assert.NotEqual(t, a, TranscriptRel("go", "tools/x.feature", `a quoted name`), "names differing only in punctuation stay apart")
	assert.Regexp(t, `^transcripts/go/tools/x/a-quoted-name-[0-9a-f]{6}\.ndjson$`, a)
}

// A result the stream cannot take is not kept for results.json either: the two files hold the
// same results, and the run names the one lost as missing ("could not record").
func TestSinkKeepsOnlyWhatItStreamed(t *testing.T) {
	res := &Results{Schema: SchemaVersion}
	s, err := NewSink(t.TempDir(), res)
	require.NoError(t, err)
	require.NoError(t, s.Add(Result{Feature: "f.feature", Scenario: "a", SDK: "go", Status: Passed}))
	require.NoError(t, s.stream.Close()) // as a full disk or a lost folder would end it
	require.Error(t, s.Add(Result{Feature: "f.feature", Scenario: "b", SDK: "go", Status: Passed}))
	require.Len(t, res.Results, 1)
	assert.Equal(t, "a", res.Results[0].Scenario)
}
