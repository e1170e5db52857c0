package rundiff

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/copilot-sdk-conformance/conformance/internal/render"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sweptCase is one case of a sweep: its key and the params of the request it made.
type sweptCase struct {
	key    string
	params map[string]any
}

// sweepRun writes a report folder with one scenario whose transcript holds a session.create,
// then one request per case (each answered), noted afterwards as the steps note a sweep's
// requests once it ran: a case note on the connection from the request's seq and one ending
// it after.
func sweepRun(t *testing.T, cases []sweptCase) string {
	dir := t.TempDir()
	rel := filepath.Join("transcripts", "go", "sweep.ndjson")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, filepath.Dir(rel)), 0o755))
	rec, err := transcript.New(filepath.Join(dir, rel))
	require.NoError(t, err)
	frame := func(dir string, v map[string]any) {
		v["jsonrpc"] = "2.0"
		b, err := json.Marshal(v)
		require.NoError(t, err)
		rec.Frame("c1", dir, b)
	}
	frame(transcript.SDKToRuntime, map[string]any{"id": 1, "method": "session.create", "params": map[string]any{"tools": []any{}}})
	frame(transcript.RuntimeToSDK, map[string]any{"id": 1, "result": map[string]any{"sessionId": "s1"}})
	seqs := make([]int, len(cases))
	for i, c := range cases {
		params := map[string]any{"sessionId": "s1"}
		for k, v := range c.params {
			params[k] = v
		}
		seqs[i] = rec.Len() + 1
		frame(transcript.SDKToRuntime, map[string]any{"id": i + 2, "method": "session.options.update", "params": params})
		frame(transcript.RuntimeToSDK, map[string]any{"id": i + 2, "result": nil})
	}
	for i, c := range cases {
		rec.Case("c1", seqs[i], c.key)
		rec.Case("c1", seqs[i]+1, "")
	}
	require.NoError(t, rec.Close())
	res := []report.Result{{SDK: "go", Feature: "schema.feature", Scenario: "sweep", Status: report.Passed, Transcript: filepath.ToSlash(rel)}}
	require.NoError(t, render.Write(dir, &report.Results{Schema: report.SchemaVersion, Harness: report.Harness{Version: "h"}, Results: res,
		Completeness: &report.Completeness{Complete: true, Planned: 1, Reported: 1}}))
	return filepath.Join(dir, "results.json")
}

// A sweep's requests are paired by their case key, never by position: a case gained or lost in
// the middle of the sweep, or the cases sent in another order, leave every other case's request
// compared with the same case's, so the diff names only the case that changed.
func TestDiffNamesOnlyTheCaseThatChanged(t *testing.T) {
	// Cases alike enough that pairing by what they carry alone would mix them up: each edge
	// changes one member of the same every-field value.
	all := map[string]any{"model": "m", "reasoningEffort": "low", "sessionCapabilities": map[string]any{"tools": true}}
	edge := func(k string, v any) map[string]any {
		out := map[string]any{}
		for kk, vv := range all {
			out[kk] = vv
		}
		out[k] = v
		return out
	}
	c := func(key string, params map[string]any) sweptCase {
		return sweptCase{key: "session.options.update " + key, params: params}
	}
	required := c("required", map[string]any{})
	every := c("all", all)
	effort := c("edge /reasoningEffort high", edge("reasoningEffort", "high"))
	noCaps := c("edge /sessionCapabilities empty object", edge("sessionCapabilities", map[string]any{}))
	nullModel := c("edge /model null", edge("model", nil))
	base := []sweptCase{required, every, effort, nullModel}
	tests := []struct {
		name       string
		base, cand []sweptCase
		want       []string // the payload changes, "where: base → candidate"
	}{
		{"a case gained in the middle", base, []sweptCase{required, every, noCaps, effort, nullModel},
			[]string{"session.options.update#1 [session.options.update edge /sessionCapabilities empty object]: not sent → sent"}},
		{"a case lost in the middle", []sweptCase{required, every, noCaps, effort, nullModel}, base,
			[]string{"session.options.update#1 [session.options.update edge /sessionCapabilities empty object]: sent → not sent"}},
		{"the same cases in another order", base, []sweptCase{nullModel, effort, required, every}, nil},
		{"one case's request changed, one gained before it", base,
			[]sweptCase{required, every, noCaps, c("edge /reasoningEffort high", edge("reasoningEffort", "medium")), nullModel},
			[]string{
				"session.options.update#1 [session.options.update edge /reasoningEffort high] reasoningEffort: \"high\" → \"medium\"",
				"session.options.update#1 [session.options.update edge /sessionCapabilities empty object]: not sent → sent",
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Runs(sweepRun(t, tt.base), sweepRun(t, tt.cand), nil)
			require.NoError(t, err)
			var got []string
			for _, ch := range r.Changes {
				for _, p := range ch.Payload {
					got = append(got, p.Where+": "+p.Base+" → "+p.Candidate)
				}
			}
			assert.ElementsMatch(t, tt.want, got)
			if len(tt.want) == 0 {
				assert.Empty(t, r.Changes)
				return
			}
			assert.NotContains(t, r.Text(), "session.create", "the requests outside the sweep are no case's and unchanged")
			assert.Equal(t, 1, strings.Count(r.Text(), "go  schema.feature: sweep"), "one scenario changed")
		})
	}
}
