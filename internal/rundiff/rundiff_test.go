package rundiff

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
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
	require.NoError(t, render.Write(dir, &report.Results{Schema: report.SchemaVersion, Harness: report.Harness{Version: "h"}, Results: results,
		Completeness: &report.Completeness{Complete: true, Planned: len(results), Reported: len(results)}}))
	return filepath.Join(dir, "results.json")
}

func TestRuns(t *testing.T) {
	res := func(sdk, scenario, status string) report.Result {
		r := report.Result{SDK: sdk, Feature: "f.feature", Scenario: scenario, Status: status, Message: "msg"}
		if status == report.Unsupported {
			r.Message, r.Capability = sdk+" SDK lacks capability tool.isTerminal: no isTerminal in this version", "tool.isTerminal"
		}
		return r
	}
	one := func(rs ...report.Result) []report.Result { return rs }
	same := map[string]string{"a": `[{"name":"t","isTerminal":true}]`}
	changed := map[string]string{"a": `[{"name":"t"}]`}
	tests := []struct {
		name                 string
		base, cand           []report.Result
		baseTools, candTools map[string]string
		allow                Allow
		want                 []string // "sdk scenario from→to [regression|allowed] payloads=N"
		regressions          int
	}{
		{name: "identical runs", base: one(res("go", "a", report.Passed)), cand: one(res("go", "a", report.Passed)), baseTools: same, candTools: same},
		{name: "passed to failed, with its payload change under it",
			base: one(res("go", "a", report.Passed), res("go", "b", report.Passed)), cand: one(res("go", "a", report.Failed), res("go", "b", report.Passed)),
			baseTools: same, candTools: changed, want: []string{"go a passed→failed regression payloads=1"}, regressions: 1},
		{name: "fixed", base: one(res("node", "a", report.Failed)), cand: one(res("node", "a", report.Passed)), want: []string{"node a failed→passed"}},
		{name: "xfail to xpass", base: one(res("node", "a", report.XFail)), cand: one(res("node", "a", report.XPass)),
			want: []string{"node a xfail→xpass regression"}, regressions: 1},
		{name: "xfail to failed", base: one(res("node", "a", report.XFail)), cand: one(res("node", "a", report.Failed)),
			want: []string{"node a xfail→failed regression"}, regressions: 1},
		{name: "passed to unsupported is a regression, without payloads of a scenario that did not run",
			base: one(res("node", "a", report.Passed)), cand: one(res("node", "a", report.Unsupported)), baseTools: same, candTools: changed,
			want: []string{"node a passed→unsupported regression"}, regressions: 1},
		{name: "allowed by SDK", base: one(res("node", "a", report.Passed)), cand: one(res("node", "a", report.Unsupported)),
			allow: Allow{report.Unsupported: {"node"}}, want: []string{"node a passed→unsupported allowed"}},
		{name: "allowed by capability", base: one(res("node", "a", report.Passed)), cand: one(res("node", "a", report.Unsupported)),
			allow: Allow{report.Unsupported: {"tool.isTerminal"}}, want: []string{"node a passed→unsupported allowed"}},
		{name: "allowing another SDK or status does not allow it",
			base: one(res("node", "a", report.Passed)), cand: one(res("node", "a", report.Unsupported)),
			allow: Allow{report.Unsupported: {"go", "session.setTools"}, report.Unavailable: {"node"}},
			want:  []string{"node a passed→unsupported regression"}, regressions: 1},
		{name: "passed to unavailable", base: one(res("dotnet", "a", report.Passed)), cand: one(res("dotnet", "a", report.Unavailable)),
			want: []string{"dotnet a passed→unavailable regression"}, regressions: 1},
		{name: "passed to skipped", base: one(res("go", "a", report.Passed)), cand: one(res("go", "a", report.Skipped)),
			want: []string{"go a passed→skipped regression"}, regressions: 1},
		{name: "a failure cannot be allowed", base: one(res("node", "a", report.Passed)), cand: one(res("node", "a", report.Failed)),
			allow: Allow{report.Unsupported: {"node"}}, want: []string{"node a passed→failed regression"}, regressions: 1},
		{name: "unsupported to unsupported is no change", base: one(res("go", "a", report.Unsupported)), cand: one(res("go", "a", report.Unsupported))},
		{name: "payload change on the same status", base: one(res("go", "a", report.Passed)), cand: one(res("go", "a", report.Passed)),
			baseTools: same, candTools: changed, want: []string{"go a passed→passed payloads=1"}},
		{name: "new and removed", base: one(res("go", "a", report.Passed)), cand: one(res("go", "b", report.Passed), res("go", "c", report.Failed)),
			want: []string{"go a passed→removed regression", "go c →failed regression", "go b →passed"}, regressions: 2},
		{name: "removal allowed", base: one(res("go", "a", report.Passed)), cand: nil,
			allow: Allow{Removed: {"go"}}, want: []string{"go a passed→removed allowed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Runs(run(t, tt.base, tt.baseTools), run(t, tt.cand, tt.candTools), tt.allow)
			require.NoError(t, err)
			var got []string
			for _, c := range r.Changes {
				s := fmt.Sprintf("%s %s %s→%s", c.SDK, c.Scenario, c.From, c.To)
				if c.Regression {
					s += " regression"
				}
				if c.AllowedBy != "" {
					s += " allowed"
				}
				if len(c.Payload) > 0 {
					s += fmt.Sprintf(" payloads=%d", len(c.Payload))
				}
				got = append(got, s)
			}
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.regressions, r.Regressions())
			if len(tt.want) == 0 {
				assert.Equal(t, "no changes\n", r.Text())
			}
		})
	}
}

// TestTextOncePerScenario: each scenario appears once, with from → to, the flag that allowed
// it, and its payload changes grouped under it.
func TestTextOncePerScenario(t *testing.T) {
	base := []report.Result{
		{SDK: "node", Feature: "f.feature", Scenario: "a", Status: report.Passed},
		{SDK: "node", Feature: "f.feature", Scenario: "b", Status: report.Passed},
		{SDK: "go", Feature: "f.feature", Scenario: "a", Status: report.Passed},
	}
	cand := []report.Result{
		{SDK: "node", Feature: "f.feature", Scenario: "a", Status: report.Unsupported, Message: "node SDK lacks capability tool.isTerminal: none\nmore", Capability: "tool.isTerminal"},
		{SDK: "node", Feature: "f.feature", Scenario: "b", Status: report.Failed, Message: "boom", Rerun: "conformance run --sdk node --scenario b"},
		{SDK: "go", Feature: "f.feature", Scenario: "a", Status: report.Unsupported, Message: "go SDK lacks capability tool.isTerminal: none", Capability: "tool.isTerminal"},
	}
	tools := map[string]string{"a": `[{"name":"t","isTerminal":true}]`, "b": `[{"name":"t","isTerminal":true}]`}
	cTools := map[string]string{"a": `[{"name":"t"}]`, "b": `[{"name":"t","isTerminal":false}]`}
	r, err := Runs(run(t, base, tools), run(t, cand, cTools), Allow{report.Unsupported: {"go"}})
	require.NoError(t, err)
	assert.Equal(t, `REGRESSIONS (2; fail the gate)
  node  f.feature: a
    passed → unsupported: node SDK lacks capability tool.isTerminal: none
  node  f.feature: b
    passed → failed: boom
    payload session.create#1 tools[0].isTerminal: base=true, candidate=false
    rerun: conformance run --sdk node --scenario b

ALLOWED (1; by flag)
  go  f.feature: a
    passed → unsupported: go SDK lacks capability tool.isTerminal: none
    allowed by --allow-unsupported go

PAYLOAD CHANGES BY FIELD (1; across SDKs)
  session.create tools[].isTerminal: changed on node (1 scenario; true → false)

2 regressions, 1 allowed (scenario × SDK)
`, r.Text())
}

func TestPayloadChangeNamesThePath(t *testing.T) {
	res := []report.Result{{SDK: "go", Feature: "f.feature", Scenario: "a", Status: report.Passed}}
	base := run(t, append([]report.Result(nil), res...), map[string]string{"a": `[{"name":"t","isTerminal":true}]`})
	cand := run(t, append([]report.Result(nil), res...), map[string]string{"a": `[{"name":"t","is_terminal":true}]`})
	r, err := Runs(base, cand, nil)
	require.NoError(t, err)
	assert.Contains(t, r.Text(), "session.create#1 tools[0].isTerminal: base=true, candidate=<absent>")
	assert.Contains(t, r.Text(), "session.create#1 tools[0].is_terminal: base=<absent>, candidate=true")
	assert.Equal(t, 1, strings.Count(r.Text(), "go  f.feature: a"), "the scenario appears once")
}

// A renamed scenario keeps its stable id: diff pairs it with its old name (its status and
// payloads compared) instead of reporting one case removed and another new.
func TestRenamedScenarioIsTheSameCase(t *testing.T) {
	tools := map[string]string{"old name": `[{"name":"t","isTerminal":true}]`, "new name": `[{"name":"t"}]`}
	base := run(t, []report.Result{{SDK: "go", Feature: "f.feature", Scenario: "old name", ID: "abc", Status: report.Passed}}, tools)
	cand := run(t, []report.Result{{SDK: "go", Feature: "f.feature", Scenario: "new name", ID: "abc", Status: report.Failed, Message: "boom"}}, tools)
	r, err := Runs(base, cand, nil)
	require.NoError(t, err)
	require.Len(t, r.Changes, 1, "one case, not a removed and a new one")
	c := r.Changes[0]
	assert.Equal(t, []string{"new name", "f.feature: old name", report.Passed, report.Failed}, []string{c.Scenario, c.Was, c.From, c.To})
	assert.True(t, c.Regression)
	assert.Len(t, c.Payload, 1, "the payloads of the old and the new name are compared")
	assert.Contains(t, r.Text(), "renamed from f.feature: old name")

	// Without ids (an older results.json) they stay two cases.
	base = run(t, []report.Result{{SDK: "go", Feature: "f.feature", Scenario: "old name", Status: report.Passed}}, tools)
	cand = run(t, []report.Result{{SDK: "go", Feature: "f.feature", Scenario: "new name", Status: report.Passed}}, tools)
	r, err = Runs(base, cand, nil)
	require.NoError(t, err)
	assert.Len(t, r.Changes, 2)
}

// Comparing through a request cache gives what reading every transcript gives, across several
// scenarios compared at once; a forgotten run is read again.
func TestCompareWithCacheIsCompare(t *testing.T) {
	var res []report.Result
	base, cand := map[string]string{}, map[string]string{}
	for _, s := range []string{"a", "b", "c", "d", "e"} {
		res = append(res, report.Result{SDK: "go", Feature: "f.feature", Scenario: s, Status: report.Passed})
		base[s], cand[s] = `[{"name":"t"}]`, `[{"name":"t"}]`
	}
	cand["b"], cand["d"] = `[{"name":"u"}]`, `[]`
	bp := run(t, append([]report.Result(nil), res...), base)
	cp := run(t, append([]report.Result(nil), res...), cand)
	b, err := report.ReadResults(bp)
	require.NoError(t, err)
	c, err := report.ReadResults(cp)
	require.NoError(t, err)
	want := Compare(b, c, filepath.Dir(bp), filepath.Dir(cp), nil)
	require.Len(t, want.Changes, 2)
	rq := &Requests{}
	for range 2 { // the second time from the cache
		assert.Equal(t, want, CompareWith(rq, b, c, filepath.Dir(bp), filepath.Dir(cp), nil))
	}
	rq.Forget(filepath.Dir(bp))
	assert.Len(t, rq.m, 5, "only the candidate's transcripts are kept")
	assert.Equal(t, want, CompareWith(rq, b, c, filepath.Dir(bp), filepath.Dir(cp), nil))
}

// The gate reads only what it can trust: an unreadable file or an incomplete run, as base or as
// candidate, is an error naming the file and what is wrong (exit 2), never an empty side.
func TestRunsRefusesWhatItCannotTrust(t *testing.T) {
	good := run(t, []report.Result{{SDK: "go", Feature: "f.feature", Scenario: "s", Status: report.Passed}}, nil)
	incompleteDir := t.TempDir()
	require.NoError(t, render.Write(incompleteDir, &report.Results{Schema: report.SchemaVersion, Harness: report.Harness{Version: "h"},
		Results: []report.Result{{SDK: "go", Feature: "f.feature", Scenario: "s", Status: report.Passed}},
		Completeness: &report.Completeness{Planned: 2, Reported: 1, Missing: []report.Missing{
			{Feature: "f.feature", Scenario: "t", SDK: "go", Reason: report.MissingInterrupted}}}}))
	incomplete := filepath.Join(incompleteDir, "results.json")
	file := func(text string) string {
		p := filepath.Join(t.TempDir(), "results.json")
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
		return p
	}
	tests := []struct {
		name string
		bad  string
		want string
	}{
		{"null", file("null"), "holds null"},
		{"empty object", file("{}"), "no schemaVersion"},
		{"unknown field", file(`{"foo":1}`), "no schemaVersion"},
		{"results null", file(`{"schemaVersion":2,"harness":{"version":"h"},"sdks":[],"results":null,"completeness":{"complete":true,"planned":0,"reported":0}}`), "at /results"},
		{"another schema version", file(`{"schemaVersion":1,"harness":{"version":"h"},"sdks":[],"results":[]}`), "schemaVersion 1"},
		{"unknown status", file(`{"schemaVersion":2,"harness":{"version":"h"},"sdks":[],"results":[{"feature":"f","scenario":"s","sdk":"go","status":"banana"}],"completeness":{"complete":true,"planned":1,"reported":1}}`), "/results/0/status"},
		{"incomplete run", incomplete, "is an incomplete run (INCOMPLETE: 1 of 2 planned results missing (1 interrupted); the first: f.feature / t on go, interrupted)"},
	}
	for _, tt := range tests {
		for _, side := range []string{"base", "candidate"} {
			t.Run(tt.name+" as "+side, func(t *testing.T) {
				a, b := tt.bad, good
				if side == "candidate" {
					a, b = good, tt.bad
				}
				_, err := Runs(a, b, nil)
				require.ErrorIs(t, err, report.ErrUnreadable)
				assert.Contains(t, err.Error(), tt.bad)
				assert.Contains(t, err.Error(), tt.want)
			})
		}
	}
}

// bigReport has a regression, a new divergence, a capability gained and many payload changes.
func bigReport() *Report {
	r := &Report{
		Compared: []Compared{
			{SDK: "go", Base: &report.SDK{Name: "go", Version: "v1.0.9", Source: "/src/base/go", Status: "available"}, Candidate: &report.SDK{Name: "go", Version: "v1.0.10", Source: "/src/head/go", Status: "available"}},
			{SDK: "node", Base: &report.SDK{Name: "node", Status: report.Unavailable, Reason: "npm ci failed"}, Candidate: &report.SDK{Name: "node", Status: report.Unavailable, Reason: "npm ci failed"}},
		},
		Capabilities: []CapabilityChange{{SDK: "go", Capability: "tool.isTerminal", Gained: true}},
		Changes: []Change{
			{SDK: "go", Feature: "f.feature", Scenario: "broke", From: report.Passed, To: report.Failed, Message: "boom", Regression: true, Rerun: "conformance run --scenario broke"},
			{SDK: "java", Feature: "t.feature", Scenario: "explicit false", From: report.Unsupported, To: report.XFail, Message: "isTerminal: false sent"},
			{SDK: "go", Feature: "t.feature", Scenario: "terminal", From: report.Unsupported, To: report.Passed},
		},
	}
	for i := range 200 {
		r.Changes = append(r.Changes, Change{SDK: "go", Feature: "p.feature", Scenario: fmt.Sprintf("scenario %03d", i), From: report.Passed, To: report.Passed,
			Payload: []Payload{{Where: "session.create#1 tools[0].isTerminal", Request: "session.create#1", Path: "tools[0].isTerminal", Base: "<absent>", Candidate: "true"}}})
	}
	r.Fields = fields(r.Changes)
	return r
}

func TestTextSaysTheChangeFirst(t *testing.T) {
	text := bigReport().Text()
	var heads []string
	for _, l := range strings.Split(text, "\n") {
		if l != "" && !strings.HasPrefix(l, " ") {
			heads = append(heads, l)
		}
	}
	assert.Equal(t, []string{
		"COMPARED (2; base → candidate)",
		"CAPABILITIES (1; the driver's hello)",
		"REGRESSIONS (1; fail the gate)",
		"NEW DIVERGENCES (1; now an expected failure)",
		"NOW SUPPORTED (1; unsupported → passed)",
		"PAYLOAD CHANGES BY FIELD (1; across SDKs)",
		"PAYLOAD CHANGES PER SCENARIO (200; same status)",
		"1 regressions, 1 new divergences, 1 now supported, 200 payload changes (scenario × SDK)",
	}, heads)
	assert.Contains(t, text, "  go  v1.0.9 (/src/base/go) → v1.0.10 (/src/head/go)\n")
	assert.Contains(t, text, "  node  unavailable in both runs: npm ci failed\n")
	assert.Contains(t, text, "  go  gained tool.isTerminal\n")
	assert.Contains(t, text, "  session.create tools[].isTerminal: now sent by go (200 scenarios; true)\n")
}

// The comment fits its budget, cut from the least important end, and says what was cut and
// where the full diff is; what matters most is whole.
func TestMarkdownWithinBudget(t *testing.T) {
	r := bigReport()
	whole := r.Markdown("### title", 0, "")
	assert.NotContains(t, whole, "Cut to stay")
	assert.Equal(t, 200, strings.Count(whole, "p.feature: scenario "))
	for _, budget := range []int{3000, 6000, 20000} {
		md := r.Markdown("### title", budget, "the artifact conformance-pr-report (diff.txt)")
		assert.LessOrEqual(t, len(md), budget)
		assert.True(t, strings.HasPrefix(md, "### title\n\n**1 regressions, 1 new divergences, 1 now supported, 200 payload changes (scenario × SDK)**\n"), md)
		for _, must := range []string{"#### Compared (2", "#### Regressions (1", "boom", "#### New divergences (1", "tools[].isTerminal: now sent by go"} {
			assert.Contains(t, strings.ToLower(md), strings.ToLower(must), "budget %d", budget)
		}
		assert.Regexp(t, `#### PAYLOAD CHANGES PER SCENARIO \(\d+ of 200 shown; same status\)|payload changes per scenario \(200 entries\)`, md)
		assert.Regexp(t, `_Cut to stay within \d+ bytes: payload changes per scenario \(\d+ of 200 entries\)\. The full diff: the artifact conformance-pr-report \(diff.txt\)\._`, md)
	}
}

// An SDK that could not be prepared on one side changes each of its scenarios alike: one block
// with the count, not one per scenario, and no capability lines (it said no hello there).
func TestUnavailableSideIsOneBlock(t *testing.T) {
	var base, cand []report.Result
	for i := range 40 {
		s := fmt.Sprintf("s%02d", i)
		base = append(base, report.Result{SDK: "java", Feature: "f.feature", Scenario: s, Status: report.Passed})
		cand = append(cand, report.Result{SDK: "java", Feature: "f.feature", Scenario: s, Status: report.Unavailable, Message: "prepare java driver: mvn failed"})
	}
	b := &report.Results{SDKs: []report.SDK{{Name: "java", Version: "1.0.10", Status: report.Available, Capabilities: map[string]bool{"events": true}}}, Results: base}
	c := &report.Results{SDKs: []report.SDK{{Name: "java", Status: report.Unavailable, Reason: "prepare java driver: mvn failed"}}, Results: cand}
	r := Compare(b, c, t.TempDir(), t.TempDir(), nil)
	assert.Equal(t, 40, r.Regressions())
	assert.Empty(t, r.Capabilities)
	assert.Equal(t, `COMPARED (1; base → candidate)
  java  1.0.10 → unavailable: prepare java driver: mvn failed

REGRESSIONS (40; fail the gate)
  java  40 scenarios: passed → unavailable: prepare java driver: mvn failed
    f.feature: s00; f.feature: s01; f.feature: s02; and 37 more

40 regressions (scenario × SDK)
`, r.Text())
	md := r.Markdown("", 0, "")
	assert.Contains(t, md, "#### REGRESSIONS (40; fail the gate)")
}
