package rundiff

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/copilot-sdk-conformance/conformance/internal/render"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// run writes a report folder with one transcript per result, whose session.create carries tools.
func run(t *testing.T, results []report.Result, tools map[string]string) string {
	dir := t.TempDir()
	for i, r := range results {
		if tools[r.Scenario] == "" {
			continue
		}
		rel := filepath.Join("transcripts", r.SDK, r.Scenario+".ndjson")
		require.NoError(t, os.MkdirAll(filepath.Join(dir, filepath.Dir(rel)), 0o755))
		line := `{"seq":1,"t_ms":0,"conn":"c1","dir":"sdk->runtime","frame":{"jsonrpc":"2.0","id":"4f1c2a9e-1b2c-4d3e-8f90-123456789abc","method":"session.create","params":{"sessionId":"x","tools":` + tools[r.Scenario] + `}}}` + "\n"
		require.NoError(t, os.WriteFile(filepath.Join(dir, rel), []byte(line), 0o644))
		results[i].Transcript = filepath.ToSlash(rel)
	}
	require.NoError(t, render.Write(dir, &report.Results{Results: results}))
	return filepath.Join(dir, "results.json")
}

func TestRuns(t *testing.T) {
	res := func(sdk, scenario, status string) report.Result {
		return report.Result{SDK: sdk, Feature: "f.feature", Scenario: scenario, Status: status, Message: "msg"}
	}
	same := map[string]string{"a": `[{"name":"t","isTerminal":true}]`}
	tests := []struct {
		name        string
		base, cand  []report.Result
		baseTools   map[string]string
		candTools   map[string]string
		wantKinds   []string
		wantFailing int
	}{
		{"identical runs", []report.Result{res("go", "a", report.Passed)}, []report.Result{res("go", "a", report.Passed)}, same, same, nil, 0},
		{"one regression", []report.Result{res("go", "a", report.Passed), res("go", "b", report.Passed)},
			[]report.Result{res("go", "a", report.Failed), res("go", "b", report.Passed)},
			same, map[string]string{"a": `[{"name":"t"}]`}, []string{NewFailure, PayloadChanged}, 1},
		{"fixed", []report.Result{res("node", "a", report.Failed)}, []report.Result{res("node", "a", report.Passed)}, nil, nil, []string{Fixed}, 0},
		{"xfail to xpass is a new failure", []report.Result{res("node", "a", report.XFail)}, []report.Result{res("node", "a", report.XPass)}, nil, nil, []string{NewFailure}, 1},
		{"passed to unsupported", []report.Result{res("go", "a", report.Passed)}, []report.Result{res("go", "a", report.Unsupported)}, nil, nil, []string{StatusChanged}, 0},
		{"new and removed", []report.Result{res("go", "a", report.Passed)}, []report.Result{res("go", "b", report.Passed), res("go", "c", report.Failed)}, nil, nil,
			[]string{NewFailure, NewScenario, Removed}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Runs(run(t, tt.base, tt.baseTools), run(t, tt.cand, tt.candTools))
			require.NoError(t, err)
			var kinds []string
			for _, c := range r.Changes {
				kinds = append(kinds, c.Kind)
			}
			assert.Equal(t, tt.wantKinds, kinds)
			assert.Equal(t, tt.wantFailing, r.NewFailures())
			if len(tt.wantKinds) == 0 {
				assert.Equal(t, "no changes\n", r.Text())
			}
		})
	}
}

func TestPayloadChangeNamesThePath(t *testing.T) {
	res := []report.Result{{SDK: "go", Feature: "f.feature", Scenario: "a", Status: report.Passed}}
	base := run(t, append([]report.Result(nil), res...), map[string]string{"a": `[{"name":"t","isTerminal":true}]`})
	cand := run(t, append([]report.Result(nil), res...), map[string]string{"a": `[{"name":"t","is_terminal":true}]`})
	r, err := Runs(base, cand)
	require.NoError(t, err)
	assert.Contains(t, r.Text(), "session.create#1 tools[0].isTerminal: base=true, candidate=<absent>")
	assert.Contains(t, r.Text(), "session.create#1 tools[0].is_terminal: base=<absent>, candidate=true")
}
