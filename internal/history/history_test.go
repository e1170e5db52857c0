package history

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
)

const (
	feature  = "tools/tool_results.feature"
	sCreate  = "a tool is sent"
	sResult  = "a result keeps its session log"
	sTerm    = "a terminal tool"
	sdkUnder = "node"
)

// scenarioRun is one scenario of a fake run: its status and the session.create params it sent.
type scenarioRun struct {
	status string
	create string // JSON params; "" sends nothing
}

// writeRun writes the transcripts of one fake run into dir and returns its records.
func writeRun(t *testing.T, dir, sdk, version string, caps map[string]bool, scenarios map[string]scenarioRun) *report.Results {
	t.Helper()
	res := &report.Results{Schema: 1, Totals: map[string]int{},
		SDKs: []report.SDK{{Name: sdk, Version: version, Status: report.Available, Capabilities: caps}}}
	for _, name := range slices.Sorted(maps.Keys(scenarios)) {
		s := scenarios[name]
		r := report.Result{Feature: feature, Scenario: name, SDK: sdk, Version: version, Status: s.status}
		if s.create != "" {
			r.Transcript = report.TranscriptRel(sdk, feature, name)
			rec, err := transcript.New(filepath.Join(dir, r.Transcript))
			require.NoError(t, err)
			rec.Add(transcript.Entry{Dir: transcript.SDKToRuntime, Conn: "c1",
				Frame: json.RawMessage(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"session.create","params":%s}`, s.create))})
			require.NoError(t, rec.Close())
		}
		res.Results = append(res.Results, r)
		res.Totals[s.status]++
	}
	return res
}

// history builds a three-version history (one unavailable in between) with a reference run of
// another SDK.
func history(t *testing.T) (*History, string) {
	root := t.TempDir()
	plain := `{"tools":[{"name":"search"}]}`
	terminal := `{"tools":[{"name":"search","isTerminal":false}]}`
	run := func(version string, caps map[string]bool, sc map[string]scenarioRun) Run {
		dir := filepath.Join(root, report.Target(sdkUnder, version))
		return Run{Version: version, Dir: dir, Results: writeRun(t, dir, sdkUnder, version, caps, sc)}
	}
	runs := []Run{
		run("1.0.8", map[string]bool{"tool.telemetry": true}, map[string]scenarioRun{
			sCreate: {report.Passed, plain},
			sResult: {report.Passed, plain},
			sTerm:   {status: report.Unsupported},
		}),
		{Version: "1.0.9-preview.1", Dir: filepath.Join(root, "node@1.0.9-preview.1"), Err: "npm error 404 No match found for version 1.0.9-preview.1"},
		run("1.0.9", map[string]bool{"tool.telemetry": true, "tool.isTerminal": true}, map[string]scenarioRun{
			sCreate: {report.Passed, terminal},
			sResult: {report.Failed, terminal},
			sTerm:   {report.Passed, terminal},
		}),
		run("1.0.11", map[string]bool{"tool.telemetry": true, "tool.isTerminal": true}, map[string]scenarioRun{
			sCreate: {report.Passed, terminal},
			sResult: {report.XFail, terminal}, // the manifest now knows it: no change
			sTerm:   {report.Passed, terminal},
		}),
	}
	refDir := filepath.Join(root, "reference")
	ref := &Reference{Name: "go at its pin", Dir: refDir, Results: writeRun(t, refDir, "go", "v1.0.14", nil, map[string]scenarioRun{
		sCreate: {report.Passed, terminal},
		sResult: {report.Passed, plain},
		sTerm:   {report.Passed, terminal},
	})}
	h := Build(runs, ref, Options{SDK: sdkUnder, Command: "conformance history --sdk node", Root: root,
		Rerun: func(_, prev, cur, feature, scenario string) string {
			return fmt.Sprintf("conformance run --sdk-version node=%s,%s --scenario %q features/%s", prev, cur, scenario, feature)
		}})
	return h, root
}

func TestBuildClassifiesEachChange(t *testing.T) {
	h, _ := history(t)
	require.Len(t, h.Versions, 4)
	assert.Equal(t, "", h.Versions[0].Previous, "the first version is the baseline")
	assert.Equal(t, report.Unavailable, h.Versions[1].Status)
	assert.Contains(t, h.Versions[1].Reason, "404", "the registry's answer is kept")
	v := h.Versions[2]
	assert.Equal(t, "1.0.8", v.Previous, "an unavailable version is skipped in the comparison")
	assert.Empty(t, h.Versions[3].Changes, "xfail after failed is the manifest, not the SDK")

	kinds := map[string]string{}
	for _, c := range v.Changes {
		kinds[c.Scenario+"/"+c.Capability] = c.Kind
	}
	assert.Equal(t, map[string]string{
		sCreate + "/":      SilentWire,
		sResult + "/":      Regression,
		sTerm + "/":        CapabilityGained,
		"/tool.isTerminal": CapabilityGained,
	}, kinds)
	assert.Equal(t, map[string]int{SilentWire: 1, Regression: 1, CapabilityGained: 2}, h.Counts)

	// The payload change is found once, named by its path, and said to agree with go (which
	// sends the new value).
	require.Len(t, v.Wire, 1)
	w := v.Wire[0]
	assert.Equal(t, "session.create gained tools[0].isTerminal (false)", w.Headline)
	assert.True(t, w.Silent)
	assert.Equal(t, SilentWire, w.Kind)
	assert.Len(t, w.Scenarios, 2, "the silent change and the regression's payload")
	// In the regressed scenario go kept the old payload: so go is neither in every scenario.
	assert.Empty(t, w.Agrees)
	for _, c := range v.Changes {
		if c.Kind == SilentWire {
			require.Len(t, c.Payload, 1)
			assert.Equal(t, map[string]string{"go": "false"}, c.Payload[0].Others)
			assert.Equal(t, "node@1.0.8/"+report.TranscriptRel(sdkUnder, feature, sCreate), c.Before)
			assert.Equal(t, "node@1.0.9/"+report.TranscriptRel(sdkUnder, feature, sCreate), c.After)
			assert.Contains(t, c.Rerun, "node=1.0.8,1.0.9")
		}
		if c.Kind == Regression {
			assert.Equal(t, map[string]string{"go": report.Passed}, c.Others)
			assert.Equal(t, map[string]string{"go": "<absent>"}, c.Payload[0].Others)
		}
	}
}

func TestCrossSDKVerdict(t *testing.T) {
	p := Payload{Before: "<absent>", After: "false", Others: map[string]string{"go": "false", "python": "<absent>", "rust": "true"}}
	agrees, differs := side(p)
	assert.Equal(t, []string{"go"}, agrees)
	assert.Equal(t, []string{"python"}, differs)
	assert.Equal(t, "now agrees with go; now differs from python", cross(agrees, differs))
}

func TestHeadline(t *testing.T) {
	tests := []struct{ method, path, before, after, want string }{
		{"session.create", "tools[0].isTerminal", "<absent>", "false", "session.create gained tools[0].isTerminal (false)"},
		{"session.create", "sessionLog", `"x"`, "<absent>", `session.create lost sessionLog (was "x")`},
		{"session.create", "tools", "[]", "<absent>", "session.create lost tools (was [])"},
		{"session.log", "", "not sent", "sent", "now sends session.log"},
		{"session.log", "", "sent", "not sent", "no longer sends session.log"},
		{"session.create", "mode", `"a"`, `"b"`, `session.create mode: "a" → "b"`},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Headline(tt.method, tt.path, tt.before, tt.after))
	}
}

func TestAt(t *testing.T) {
	v := map[string]any{"tools": []any{map[string]any{"name": "a", "x.y": map[string]any{"z": 1.0}}}}
	got, ok := At(v, "tools[0].x.y.z")
	assert.True(t, ok)
	assert.Equal(t, 1.0, got)
	_, ok = At(v, "tools[1].name")
	assert.False(t, ok)
	_, ok = At(v, "tools[0].missing")
	assert.False(t, ok)
}

func TestWriteRendersEveryFormat(t *testing.T) {
	h, root := history(t)
	require.NoError(t, Write(root, h))
	var back History
	body, err := os.ReadFile(filepath.Join(root, JSONFile))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(body, &back))
	assert.Equal(t, h.Counts, back.Counts)

	md, err := os.ReadFile(filepath.Join(root, MarkdownFile))
	require.NoError(t, err)
	for _, s := range []string{"## 1.0.9 (since 1.0.8)", "**silent wire change**: `session.create gained tools[0].isTerminal (false)`",
		"## Regressions\n\n- **regression** (1.0.9): " + feature + ": " + sResult + " — passed → failed", "404", "rerun: `conformance run --sdk-version node=1.0.8,1.0.9"} {
		assert.Contains(t, string(md), s)
	}

	page, err := os.ReadFile(filepath.Join(root, HTMLFile))
	require.NoError(t, err)
	assert.Contains(t, string(page), "session.create gained tools[0].isTerminal (false)")
	assert.Contains(t, string(page), `href="node@1.0.9/transcripts/`)
	assert.NotContains(t, string(page), "<link ", "self-contained")
	assert.False(t, strings.Contains(string(page), "src=\"http"), "nothing fetched")
}

func TestBrief(t *testing.T) {
	tests := []struct{ in, want string }{
		{"npm error 404", "npm error 404"},
		{"go mod tidy failed: exit status 1\ngo: downloading x\n\tserver response: This module version is not available.\n",
			"go mod tidy failed: exit status 1 … server response: This module version is not available."},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Brief(tt.in))
	}
}

func TestRecheckedTellsFlakyFromReproduced(t *testing.T) {
	h, _ := history(t)
	v := 2 // 1.0.9: a regression and a capability gained
	var reg int
	for i, c := range h.Versions[v].Changes {
		if c.Kind == Regression {
			reg = i
		}
	}
	c := h.Versions[v].Changes[reg]
	assert.Equal(t, "1.0.9", c.FailingSide(h.Versions[v]))

	h.Rechecked(v, reg, "1.0.9", report.Result{Status: report.XFail})
	assert.Equal(t, Regression, h.Versions[v].Changes[reg].Kind, "failed again: the regression stands")
	assert.Contains(t, h.Versions[v].Changes[reg].Recheck, "reproduced")

	h.Rechecked(v, reg, "1.0.9", report.Result{Status: report.Passed})
	assert.Equal(t, Flaky, h.Versions[v].Changes[reg].Kind)
	assert.Contains(t, h.Versions[v].Changes[reg].Recheck, "not reproduced: 1.0.9 was passed")
	assert.Equal(t, map[string]int{SilentWire: 1, CapabilityGained: 2, Flaky: 1}, h.Counts)
}

func TestToRecheck(t *testing.T) {
	h := &History{Versions: []Version{
		{Version: "1", Changes: []Change{{Kind: Fix, Scenario: "a"}, {Kind: Fix, Scenario: "b"}, {Kind: Fix, Scenario: "c"}, {Kind: Fix, Scenario: "d"}}},
		{Version: "2", Changes: []Change{{Kind: SilentWire, Scenario: "a"}, {Kind: Fix, Scenario: "e"}, {Kind: Regression, Scenario: "f"}}},
	}}
	// Regressions first; the four fixes of version 1 are the version's doing, not a flake.
	assert.Equal(t, []Recheck{{1, 2}, {1, 1}}, h.ToRecheck(10))
	assert.Equal(t, []Recheck{{1, 2}}, h.ToRecheck(1))
}

// A regression's line in history.md names what failed, not only how many steps did.
func TestMarkdownCellNamesTheFirstFailure(t *testing.T) {
	tests := []struct{ in, want string }{
		{"step \"x\": want [], got null", "step \"x\": want [], got null"},
		{"2 steps failed:\n1. step \"x\": want [], got null\n2. step \"y\": boom", "2 steps failed: step \"x\": want [], got null"},
		{"a | b\nmore", `a \| b`},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, mdCell(tt.in))
	}
}

// The other SDKs' value at a payload change is read from their request paired with the one the
// change names (diff's keys, against the transcript before), not from the request of the same
// number: the reference SDK sends the same session.create requests in another order.
func TestOthersPairedByValue(t *testing.T) {
	dir := t.TempDir()
	write := func(rel string, params ...string) string {
		rec, err := transcript.New(filepath.Join(dir, rel))
		require.NoError(t, err)
		for i, p := range params {
			rec.Add(transcript.Entry{Dir: transcript.SDKToRuntime, Conn: "c1",
				Frame: json.RawMessage(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"session.create","params":%s}`, i+1, p))})
		}
		require.NoError(t, rec.Close())
		return rel
	}
	before := filepath.Join(dir, write("before.ndjson", `{"name":"a"}`, `{"name":"b"}`, `{"name":"c"}`))
	ref := &Reference{Dir: dir, Results: &report.Results{
		SDKs: []report.SDK{{Name: "go", Version: "v1.0.14", Status: report.Available}},
		Results: []report.Result{{Feature: feature, Scenario: sCreate, SDK: "go", Version: "v1.0.14", Status: report.Passed,
			Transcript: write("go.ndjson", `{"name":"b","flag":true}`, `{"name":"c"}`, `{"name":"a"}`)}},
	}}
	// diff names b's request session.create#2 (its place in the transcript before).
	assert.Equal(t, map[string]string{"go": "true"}, ref.values(sdkUnder, feature, sCreate, "session.create#2", "flag", before))
	assert.Equal(t, map[string]string{"go": "<absent>"}, ref.values(sdkUnder, feature, sCreate, "session.create#3", "flag", before))
}

func TestFailureLines(t *testing.T) {
	both := "2 steps failed:\n1. step \"a\": 6 requests were not handled once, in 4 kinds:\n  external_tool.requested:\n    requestId r: 2 requests (#131 and #132)\n2. step \"b\": 1 request was answered:\n  x (#180)"
	alone := "step \"a\": 5 requests were not handled once, in 3 kinds:\n  permission.requested:\n    requestId p: 2 requests (#150 and #151)"
	tests := []struct {
		name string
		msg  string
		want []string
	}{
		{"a step alone", alone, []string{`step "a": N requests were not handled once, in N kinds:`, "permission.requested:", "requestId p: 2 requests (#N and #N)"}},
		{"numbered steps read as they would alone", both, []string{`step "a": N requests were not handled once, in N kinds:`, "external_tool.requested:",
			"requestId r: 2 requests (#N and #N)", `step "b": N request was answered:`, "x (#N)"}},
		{"the manifest's reasons are left out", "step \"c\": boom\nnot the known divergence: expected …", []string{`step "c": boom`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, failureLines(tt.msg))
		})
	}
	// Fixing one of two failed steps is a fix: no line of the step that still fails is new.
	assert.Empty(t, minus(failureLines(alone), failureLines(both+"\n  permission.requested:\n    requestId p: 2 requests (#150 and #151)")))
}
