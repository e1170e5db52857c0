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
	require.NoError(t, s.Close())
	assert.Len(t, res.Results, 150)

	f, err := os.Open(filepath.Join(dir, "results.ndjson"))
	require.NoError(t, err)
	defer f.Close()
	n := 0
	for sc := bufio.NewScanner(f); sc.Scan(); n++ {
		var r Result
		require.NoError(t, json.Unmarshal(sc.Bytes(), &r), "line %d", n+1)
	}
	assert.Equal(t, 150, n)
}

func TestTranscriptRelIsStable(t *testing.T) {
	a := TranscriptRel("go", "tools/x.feature", `a "quoted" name`)
	assert.Equal(t, a, TranscriptRel("go", "tools/x.feature", `a "quoted" name`))
	assert.NotEqual(t, a, TranscriptRel("go", "tools/x.feature", `a quoted name`), "names differing only in punctuation stay apart")
	assert.Regexp(t, `^transcripts/go/tools/x/a-quoted-name-[0-9a-f]{6}\.ndjson$`, a)
}
