package fidelity

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// run writes a report folder: one result per scenario status, each with a transcript of the
// given frames (sdk->runtime and runtime->sdk, alternating from the first).
func run(t *testing.T, statuses map[string]string, frames ...string) string {
	dir := t.TempDir()
	rec, err := transcript.New(filepath.Join(dir, "t.ndjson"))
	require.NoError(t, err)
	for i, f := range frames {
		dirn := transcript.SDKToRuntime
		if i%2 == 1 {
			dirn = transcript.RuntimeToSDK
		}
		rec.Frame("c1", dirn, []byte(f))
	}
	require.NoError(t, rec.Close())
	res := report.Results{SDKs: []report.SDK{{Name: "node", Version: "1", Status: report.Available}}}
	for sc, st := range statuses {
		res.Results = append(res.Results, report.Result{Feature: "f.feature", Scenario: sc, SDK: "node", Status: st, Message: "because " + sc, Transcript: "t.ndjson"})
	}
	b, err := json.Marshal(res)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "results.json"), b, 0o644))
	return dir
}

const schemaDoc = `{"server": {"ping": {"rpcMethod": "ping", "params": {"type": "object"},
  "result": {"type": "object", "properties": {"timestamp": {"type": "string"}}, "required": ["timestamp"]}},
  "gone": {"rpcMethod": "gone.method"}}}`

func TestCompare(t *testing.T) {
	standIn := run(t, map[string]string{"a": report.Passed, "b": report.Passed},
		`{"jsonrpc":"2.0","id":1,"method":"ping","params":{}}`, `{"jsonrpc":"2.0","id":1,"result":{"timestamp":5}}`)
	real := run(t, map[string]string{"a": report.Passed, "b": report.Failed},
		`{"jsonrpc":"2.0","id":1,"method":"ping","params":{}}`, `{"jsonrpc":"2.0","id":1,"result":{"timestamp":"2026-01-01T00:00:00Z","extra":true}}`,
		`{"jsonrpc":"2.0","id":2,"method":"gone.method","params":{}}`, `{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"no"}}`,
		`{"jsonrpc":"2.0","id":3,"method":"not.listed","params":{}}`, `{"jsonrpc":"2.0","method":"session.lifecycle","params":{}}`)
	r, err := Compare(standIn, real, []byte(schemaDoc))
	require.NoError(t, err)
	assert.Equal(t, 1, r.Same)
	assert.Equal(t, 2, r.Total)
	require.Len(t, r.Diffs, 1)
	assert.Equal(t, Diff{Feature: "f.feature", Scenario: "b", SDK: "node", StandIn: report.Passed, Real: report.Failed, Cause: "because b"}, r.Diffs[0])
	require.Len(t, r.Shapes, 1)
	assert.Equal(t, MethodShape{Method: "ping", OnlyStandIn: []string{"timestamp: number"}, OnlyReal: []string{"extra: boolean", "timestamp: string"}}, r.Shapes[0])
	assert.Equal(t, []string{"session.lifecycle"}, r.OnlyReal)
	require.NotNil(t, r.Skew)
	assert.Equal(t, []string{"gone.method"}, r.Skew.NotImplemented, "only methods the schema lists")
	assert.Equal(t, 1, r.Skew.Checked)
	assert.Empty(t, r.Skew.ResultViolations, "the real ping validates")
	assert.Contains(t, Markdown(r), "**1 of 2 results (50.0%) have the same status on both runtimes.**")
}

func TestIncompatible(t *testing.T) {
	entry := "fixtures/expected-failures.yaml:10"
	xfail := func(sdk, e string) report.Result {
		return report.Result{SDK: sdk, Version: "1", Status: report.XFail, Expected: e, Message: "step \"x\": connect: refused\nknown divergence"}
	}
	tests := []struct {
		name    string
		results []report.Result
		want    []string
	}{
		{name: "every result an expected failure of one entry, or unsupported",
			results: []report.Result{xfail("java", entry), xfail("java", entry), {SDK: "java", Version: "1", Status: report.Unsupported}},
			want:    []string{"java@1"}},
		{name: "one result passed: it connected",
			results: []report.Result{xfail("java", entry), {SDK: "java", Version: "1", Status: report.Passed}}},
		{name: "expected failures of two entries are two findings, not one incompatibility",
			results: []report.Result{xfail("java", entry), xfail("java", "fixtures/expected-failures.yaml:20")}},
		{name: "a failure is not explained by the incompatibility",
			results: []report.Result{xfail("java", entry), {SDK: "java", Version: "1", Status: report.Failed}}},
		{name: "nothing but unsupported says nothing about connecting",
			results: []report.Result{{SDK: "java", Version: "1", Status: report.Unsupported}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := incompatible(tt.results)
			var keys []string
			for k, why := range got {
				keys = append(keys, k)
				assert.Contains(t, why, entry)
				assert.Contains(t, why, "connect: refused")
			}
			assert.ElementsMatch(t, tt.want, keys)
		})
	}
}

// A difference whose side is an expected failure names the manifest entry, which says why it
// holds on that runtime only.
func TestCauseNamesTheExpectedFailure(t *testing.T) {
	standIn := run(t, map[string]string{"a": report.XFail})
	p := filepath.Join(standIn, "results.json")
	rr, err := report.ReadResults(p)
	require.NoError(t, err)
	rr.Results[0].Expected = "fixtures/expected-failures.yaml:959"
	b, err := json.Marshal(rr)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(p, b, 0o644))
	r, err := Compare(standIn, run(t, map[string]string{"a": report.Passed}), []byte(schemaDoc))
	require.NoError(t, err)
	require.Len(t, r.Diffs, 1)
	assert.Equal(t, "because a (expected failure fixtures/expected-failures.yaml:959)", r.Diffs[0].Cause)
}
