package compare

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/copilot-sdk-conformance/conformance/internal/canon"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPayloadsClassifies(t *testing.T) {
	dec := func(s string) any { v, err := canon.Decode([]byte(s)); require.NoError(t, err); return canon.Value(v) }
	by := map[string]map[string]any{
		"go":   {"session.create#1": dec(`{"tools":[{"name":"a"}],"availableTools":null}`)},
		"node": {"session.create#1": dec(`{"tools":[{"name":"a","isTerminal":false}]}`), "session.detach#1": dec(`{}`)},
	}
	checked := map[report.Check]bool{{Method: "session.create", Path: "tools[0].isTerminal"}: true}
	got := map[string]string{}
	for _, d := range Payloads(by, checked) {
		got[d.Request+" "+d.Path] = d.Class
	}
	assert.Equal(t, map[string]string{
		"session.create#1 tools[0].isTerminal": report.Normative,
		"session.create#1 availableTools":      report.Informational,
		"session.detach#1 ":                    report.Informational,
	}, got)
}

func TestClassify(t *testing.T) {
	tests := []struct {
		checked, method, path, want string
	}{
		{"session.create:tools[0].isTerminal", "session.create", "tools[0].isTerminal", report.Normative},
		{"session.create:tools[0].isTerminal", "session.create", "tools[0]", report.Normative},
		{"session.create:tools[0]", "session.create", "tools[0].metadata.x", report.Normative},
		{"session.create:tools[0].isTerminal", "session.resume", "tools[0].isTerminal", report.Informational},
		{"session.create:tools[0].isTerminal", "session.create", "tools[1].isTerminal", report.Informational},
		{"session.create:**.is_terminal", "session.create", "tools[3].is_terminal", report.Normative},
		{"session.create:**.is_terminal", "session.create", "tools[3].name", report.Informational},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, classify(tt.method, tt.path, map[report.Check]bool{check(tt.checked): true}), "%+v", tt)
	}
}

// check reads "method:path" as results.json spells a check.
func check(s string) report.Check {
	var c report.Check
	_ = c.UnmarshalText([]byte(s))
	return c
}

func TestCovered(t *testing.T) {
	tests := []struct {
		name string
		vals map[string]string
		want bool
	}{
		{"one SDK has fewer values", map[string]string{"go": "process.args --remote", "node": "process.args --remote | not sent"}, true},
		{"different places", map[string]string{"go": "coauthorEnabled", "node": "session.options.update.coauthorEnabled"}, false},
		{"sent by one, not by the other", map[string]string{"go": "not sent", "node": "mcpServers"}, false},
		{"neither holds the other", map[string]string{"a": "x | y", "b": "x | z"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, covered(tt.vals))
		})
	}
}

// Answers to requests the runtime has in flight at once come in the order the runtime made the
// requests, whichever order the SDK sent them in.
func TestRequestListInRuntimeOrder(t *testing.T) {
	frame := func(dir, body string) transcript.Entry {
		return transcript.Entry{Dir: dir, Frame: json.RawMessage(body)}
	}
	ask := func(id string) transcript.Entry {
		return frame(transcript.RuntimeToSDK, `{"jsonrpc":"2.0","id":"`+id+`","method":"x.start","params":{"requestId":"`+id+`"}}`)
	}
	chunk := func(id, data string) transcript.Entry {
		return frame(transcript.SDKToRuntime, `{"jsonrpc":"2.0","id":9,"method":"x.chunk","params":{"requestId":"`+id+`","data":"`+data+`"}}`)
	}
	other := frame(transcript.SDKToRuntime, `{"jsonrpc":"2.0","id":8,"method":"y","params":{"requestId":"own"}}`)
	tests := []struct {
		name    string
		entries []transcript.Entry
	}{
		{"as asked", []transcript.Entry{ask("r1"), ask("r2"), chunk("r1", "a"), chunk("r1", "b"), chunk("r2", "c"), other}},
		{"interleaved", []transcript.Entry{ask("r1"), ask("r2"), chunk("r2", "c"), chunk("r1", "a"), other, chunk("r1", "b")}},
	}
	want := []string{"x.chunk r1 a", "x.chunk r1 b", "x.chunk r2 c"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, r := range RequestList(tt.entries) {
				p := r.Params.(map[string]any)
				if r.Method == "x.chunk" {
					got = append(got, fmt.Sprintf("%s %s %s", r.Method, p["requestId"], p["data"]))
				}
			}
			assert.Equal(t, want, got)
		})
	}
}

// A scenario that records report.NotCompared is left out of the payload comparison: its
// results' transcripts are not even read (a missing file is no error), while a scenario without
// it is compared.
func TestScenariosLeaveOutWhatAsksNotToBeCompared(t *testing.T) {
	store := transcript.NewStore(t.TempDir())
	for _, tc := range []struct {
		name     string
		observed map[string]string
		wantErr  bool
	}{
		{"asked not to be compared", map[string]string{report.NotCompared: "many clients at once"}, false},
		{"compared", nil, true}, // its transcripts are read, and there are none
	} {
		t.Run(tc.name, func(t *testing.T) {
			var rs []report.Result
			for _, sdk := range []string{"go", "node"} {
				rs = append(rs, report.Result{Feature: "f.feature", Scenario: "s", SDK: sdk, Status: report.Passed,
					Transcript: "transcripts/" + sdk + "/missing.ndjson", Observations: tc.observed})
			}
			comps, err := Scenarios(store, rs)
			if tc.wantErr {
				assert.Error(t, err)
				return
			}
			assert.NoError(t, err)
			assert.Empty(t, comps)
		})
	}
}
