package render

import (
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/text"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func sample() *report.Results {
	return &report.Results{
		SDKs: []report.SDK{{Name: "node", Version: "1.0.14", Status: report.Available, Notes: map[string]string{"session.setTools": "no setTools in 1.0.14"}}, {Name: "go", Version: "v1.0.14", Status: report.Available},
			{Name: "dotnet", Status: report.Unavailable, Reason: "dotnet not found on PATH"}},
		Results: []report.Result{
			{Feature: "f.feature", Scenario: "s1", SDK: "node", Status: report.XFail, Message: "want absent\nknown divergence", Rerun: "go run ./cmd/conformance run --sdk node"},
			{Feature: "f.feature", Scenario: "s1", SDK: "go", Status: report.Passed},
			{Feature: "f.feature", Scenario: "s1", SDK: "dotnet", Status: report.Unavailable, Message: "dotnet not found on PATH"},
			{Feature: "f.feature", Scenario: "s2", SDK: "go", Status: report.Failed, Message: "boom"},
		},
		Comparisons: []report.Comparison{
			{Feature: "f.feature", Scenario: "s1", SDKs: []string{"go", "node"}, Differences: []report.Difference{
				{Request: "session.create#1", Path: "tools[0].isTerminal", Class: report.Normative, Values: map[string]string{"go": "<absent>", "node": "false"}},
				{Request: "session.create#1", Path: "hooks", Class: report.Informational, Values: map[string]string{"go": "<absent>", "node": "false"}},
			}},
			{Feature: "f.feature", Scenario: "s2", SDKs: []string{"go", "node"}, Differences: []report.Difference{
				{Request: "session.create#1", Path: "hooks", Class: report.Informational, Values: map[string]string{"go": "<absent>", "node": "false"}},
			}},
		},
	}
}

func TestMarkdown(t *testing.T) {
	r := sample()
	r.Results = append(r.Results,
		report.Result{Feature: "f.feature", Scenario: "s3", SDK: "node", Status: report.Unsupported, Capability: "session.setTools", Message: "node SDK lacks capability session.setTools: no setTools in 1.0.14"},
		report.Result{Feature: "f.feature", Scenario: "s4", SDK: "node", Status: report.Unsupported, Capability: "session.setTools", Message: "node SDK lacks capability session.setTools: no setTools in 1.0.14"},
		report.Result{Feature: "f.feature", Scenario: "s2", SDK: "dotnet", Status: report.Unavailable, Message: "dotnet not found on PATH; install the .NET 8 SDK"})
	r.Results[3].Transcript, r.Results[3].Rerun = "transcripts/go/f/s2.ndjson", "go run ./cmd/conformance run --sdk go --scenario s2 features/f.feature"
	r.Comparisons = append(r.Comparisons, report.Comparison{Feature: "f.feature", Scenario: "s2", SDKs: []string{"go", "node"}, Differences: []report.Difference{
		{Request: "session.create#1", Path: "tools[0].name", Class: report.Normative, Values: map[string]string{"go": `"b"`, "node": `"a"`}}}})
	r.Timing = []report.Timing{{SDK: "go", Drivers: 2, WallMS: 1500, SDKCallsMS: 2500, Overhead: report.Stats{P50: 1.5},
		Observations: map[string]int{"slow-close": 3}, Worst: map[string]float64{"slow-close": 1001},
		Example: map[string]string{"slow-close": "stopClient returned 1001 ms after the runtime's last answer"}}}
	r.Tally()
	md := MarkdownText(r)
	for _, want := range []string{
		"❌ **FAIL**: 1 failed, 0 passed unexpectedly (xpass). 1 failed, 1 passed, 1 xfail, 2 unsupported, 2 unavailable.",
		"| dotnet |  | 2 unavailable | **unavailable**: dotnet not found on PATH |",
		"| f | s1 | ⚠️ | ✅ | ⛔ |",
		"### s2 on go (failed)", "boom",
		"- payload `session.create#1 tools[0].name`: go=\"b\"; node=\"a\"",
		"- transcript: `transcripts/go/f/s2.ndjson`", "- rerun: `go run ./cmd/conformance run --sdk go --scenario s2 features/f.feature`",
		"## Expected failures (known divergences)",
		"| f: s1 | `session.create#1 tools[0].isTerminal` | go=<absent>, node=false |",
		"| `session.create#1 hooks` | node=false, go=<absent> | 2 | 1 |",
		"- **node** lacks `session.setTools`: 2 scenarios. no setTools in 1.0.14",
		"- **dotnet**: 2 scenarios unavailable: dotnet not found on PATH",
		"| go | 2 | 1.5 s | 2.5 s | 1.5 ms |", "3 slow-close (worst 1001 ms)",
	} {
		assert.Contains(t, md, want)
	}
	assert.Equal(t, 1, strings.Count(md, "session.setTools"), "unsupported is one line per SDK and capability")
	order := []string{"**FAIL**", "## Scenarios by SDK", "## Failures", "## Expected failures", "## Payload differences", "## Not run", "## Timing"}
	for i := 1; i < len(order); i++ {
		assert.Less(t, strings.Index(md, order[i-1]), strings.Index(md, order[i]), "%s comes before %s", order[i-1], order[i])
	}
}

func TestMarkdownPass(t *testing.T) {
	r := &report.Results{SDKs: []report.SDK{{Name: "go", Status: report.Available}},
		Results: []report.Result{{Feature: "f.feature", Scenario: "s1", SDK: "go", Status: report.Passed}}}
	r.Tally()
	md := MarkdownText(r)
	assert.True(t, strings.HasPrefix(md, "# Copilot SDK conformance\n\n✅ **PASS**"), md)
	assert.NotContains(t, md, "## Failures")
}

func TestMarkdownVerdictIsTheRunsExitStatus(t *testing.T) {
	for _, tc := range []struct {
		name    string
		status  string
		cross   []report.CrossSDK
		verdict string
	}{
		{"passed", report.Passed, nil, "✅ **PASS**: every result passed or failed only as known. 1 passed."},
		{"a known cross-SDK difference", report.Passed, []report.CrossSDK{{Request: "session.create", Field: "f", Status: report.XFail}}, "✅ **PASS**"},
		{"a failed result", report.Failed, nil, "❌ **FAIL**: 1 failed, 0 passed unexpectedly (xpass). 1 failed."},
		{"a cross-SDK difference not known, every result passed", report.Passed,
			[]report.CrossSDK{{Request: "session.create", Field: "f", Status: report.Failed}, {Request: "session.resume", Field: "f", Status: report.XPass}},
			"❌ **FAIL**: 0 failed, 0 passed unexpectedly (xpass), 2 cross-SDK field differences failing (*Cross-SDK field differences*). 1 passed."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &report.Results{SDKs: []report.SDK{{Name: "go", Status: report.Available}},
				Results:  []report.Result{{Feature: "f.feature", Scenario: "s1", SDK: "go", Status: tc.status}},
				CrossSDK: tc.cross}
			r.Tally()
			lines := strings.SplitN(MarkdownText(r), "\n", 4)
			assert.Equal(t, "# Copilot SDK conformance", lines[0])
			assert.True(t, strings.HasPrefix(lines[2], tc.verdict), "the verdict first: %s", lines[2])
		})
	}
}

func TestMarkdownStaysWithinTheJobSummaryLimit(t *testing.T) {
	r := sample()
	long := strings.Repeat("x", 2000)
	for i := range 1000 {
		r.Results = append(r.Results, report.Result{Feature: "f.feature", Scenario: fmt.Sprintf("failing %d", i), SDK: "go", Status: report.Failed, Message: long})
	}
	r.Tally()
	md := MarkdownText(r)
	assert.LessOrEqual(t, len(md), MaxSummaryBytes)
	assert.True(t, strings.Contains(md, "## Features by SDK"), "the matrix fits, per feature for so many scenarios")
	assert.True(t, strings.Contains(md, "| f | 1002 | ⚠️1 | ❌1001 ✅1 | ⛔1 |"), "one row per feature with the counts per status")
	assert.Contains(t, md, "1001 to act on; the first 5 in full", "the failures are counted")
	assert.Contains(t, md, "### failing 0 on go", "the first failures in full")
	_, section, _ := strings.Cut(md, "\n## Failures")
	section, _, _ = strings.Cut(section, "\n## ")
	assert.Equal(t, maxFailureDetails, strings.Count(section, "\n### "), "then one line each")
	assert.Contains(t, md, "- **failing 4** on go (failed, `f.feature`): "+strings.Repeat("x", 160)+"…")
	assert.Contains(t, md, fmt.Sprintf("\n%d more: `status` failed or xpass in results.json", 1001-maxFailureDetails-maxFailureLines), "and the rest counted, with where they are")
	assert.Equal(t, 0, strings.Count(md, "```")%2, "no code block left open")
}

func TestAssembleCutsOrLeavesOutWhatDoesNotFit(t *testing.T) {
	section := func(name string, n int) string {
		return "\n## " + name + "\n\n" + strings.Repeat(strings.Repeat("y", 99)+"\n", n)
	}
	for _, tc := range []struct {
		name    string
		parts   []string
		kept    []string
		left    string // in the closing pointer; "" when everything fits
		dropped []string
	}{
		{name: "everything fits", parts: []string{section("A", 10), section("B", 10)}, kept: []string{"## A", "## B"}},
		{name: "a section too big for what is left is cut at a line, the next left out",
			parts: []string{section("A", 10), section("Big", 400), section("C", 5)},
			kept:  []string{"## A", "## Big"}, left: "*Big* (cut), *C*"},
		{name: "a section that does not fit in little room is left out, a smaller one after it kept",
			parts: []string{section("A", 180), section("Big", 400), section("C", 5)},
			kept:  []string{"## A", "## C"}, left: "*Big*", dropped: []string{"## Big"}},
		{name: "a cut code block is closed", parts: []string{"\n## Code\n\n```\n" + strings.Repeat("z\n", 20000) + "```\n"}, kept: []string{"## Code"}, left: "*Code* (cut)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := assemble(tc.parts, 20*1024)
			assert.LessOrEqual(t, len(md), 20*1024)
			for _, k := range tc.kept {
				assert.Contains(t, md, k)
			}
			for _, d := range tc.dropped {
				assert.NotContains(t, md, d)
			}
			assert.Equal(t, 0, strings.Count(md, "```")%2, "no code block left open")
			if tc.left == "" {
				assert.NotContains(t, md, "Left out")
				return
			}
			assert.True(t, strings.HasSuffix(md, "Left out to keep this summary within 20 KB: "+tc.left+". Every result, transcript and difference is in `report.html` and `results.json` beside this file.\n"), md[max(len(md)-300, 0):])
		})
	}
}

func TestJUnit(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, Write(dir, sample()))
	b, err := os.ReadFile(filepath.Join(dir, "junit.xml"))
	require.NoError(t, err)
	var doc junitSuites
	require.NoError(t, xml.Unmarshal(b, &doc))
	got := map[string][3]int{}
	for _, s := range doc.Suites {
		got[s.Name] = [3]int{s.Tests, s.Failures, s.Skipped}
	}
	assert.Equal(t, map[string][3]int{"conformance.node": {1, 0, 1}, "conformance.go": {2, 1, 0}, "conformance.dotnet": {1, 0, 1}}, got)
	back, err := report.ReadResults(filepath.Join(dir, "results.json"))
	require.NoError(t, err)
	assert.Equal(t, 1, back.Totals[report.Failed])
}

func TestClipMessageKeepsTheFirstLinesAndCountsTheRest(t *testing.T) {
	sweep := "step \"every event type reaches the application\": 3 generated events did not reach the application:\n"
	for i := range 100 {
		sweep += fmt.Sprintf("session.event%d: /data/field: want 1, got <absent>\n", i)
	}
	for _, tc := range []struct {
		name, msg, want string
	}{
		{"short", "boom", "boom"},
		{"a sweep's items", strings.TrimSpace(sweep), "… 85 more lines (results.json, report.html)"},
		{"one long line", strings.Repeat("x", 1000), strings.Repeat("x", 240) + "…"},
		{"a code fence in the message", "got ```", "got ` ` `"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := clipMessage(tc.msg, maxMessageBytes)
			assert.LessOrEqual(t, len(got), maxMessageBytes+300)
			assert.True(t, strings.HasSuffix(got, tc.want), got)
			assert.True(t, strings.HasPrefix(got, text.FirstLine(clipTo(tc.msg, 240))[:min(4, len(tc.msg))]))
		})
	}
}

func TestMarkdownGroupsAScenarioFailingOnSeveralSDKs(t *testing.T) {
	rerun := func(sdk string) string {
		return "go run ./cmd/conformance run --sdk " + sdk + " --scenario 's1' features/f.feature"
	}
	for _, tc := range []struct {
		name     string
		results  []report.Result
		want     []string
		notWants []string
		order    []string
	}{
		{
			name: "the same scenario on three SDKs: one block, one rerun",
			results: []report.Result{
				{Feature: "f.feature", Scenario: "s1", SDK: "node", Status: report.Failed, Message: "step \"x\": want 1\ngot 2", Transcript: "transcripts/node/f/s1.ndjson", Rerun: rerun("node")},
				{Feature: "f.feature", Scenario: "s1", SDK: "go", Status: report.Failed, Message: "step \"x\": want 1\ngot 2", Transcript: "transcripts/go/f/s1.ndjson", Rerun: rerun("go")},
				{Feature: "f.feature", Scenario: "s1", SDK: "python", Status: report.Failed, Message: "step \"x\": want 1\ngot 3", Transcript: "transcripts/python/f/s1.ndjson", Rerun: rerun("python")},
			},
			want: []string{
				"3 to act on, in 1 scenario (",
				"### s1 on every SDK that ran it: node, go, python (failed)",
				"- go: the same message", "- python's message differs at: got 3",
				"- transcript (python): `transcripts/python/f/s1.ndjson`",
				"- rerun: `go run ./cmd/conformance run --sdk node,go,python --scenario 's1' features/f.feature`",
			},
		},
		{
			name: "reruns that differ in more than --sdk: one each",
			results: []report.Result{
				{Feature: "f.feature", Scenario: "s1", SDK: "node", Status: report.Failed, Message: "boom", Rerun: rerun("node") + " --sdk-version node=1.0.8"},
				{Feature: "f.feature", Scenario: "s1", SDK: "go", Status: report.Failed, Message: "boom", Rerun: rerun("go")},
			},
			want:     []string{"### s1 on every SDK that ran it: node, go (failed)", "- rerun (node): `" + rerun("node") + " --sdk-version node=1.0.8`", "- rerun (go): `" + rerun("go") + "`"},
			notWants: []string{"- rerun: "},
		},
		{
			name: "failed and xpass of one scenario are two things to act on, failed first",
			results: []report.Result{
				{Feature: "f.feature", Scenario: "s1", SDK: "node", Status: report.XPass, Message: "passed, but expected to fail"},
				{Feature: "f.feature", Scenario: "s1", SDK: "go", Status: report.Failed, Message: "boom"},
			},
			want:  []string{"2 to act on (", "### s1 on go (failed)\n", "### s1 on node (xpass)\n"},
			order: []string{"### s1 on go (failed)", "### s1 on node (xpass)"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &report.Results{SDKs: []report.SDK{{Name: "node", Status: report.Available}, {Name: "go", Status: report.Available}, {Name: "python", Status: report.Available}},
				Results: tc.results}
			r.Tally()
			md := failures(r)
			for _, w := range tc.want {
				assert.Contains(t, md, w)
			}
			for _, w := range tc.notWants {
				assert.NotContains(t, md, w)
			}
			for i := 1; i < len(tc.order); i++ {
				assert.Less(t, strings.Index(md, tc.order[i-1]), strings.Index(md, tc.order[i]))
			}
		})
	}
}

// The verdict names the SDKs to fix, each with its one-line causes (the first failure's gist,
// never only "2 steps failed:"); a failure every SDK that ran the scenario shows is set apart,
// and the failures one SDK shows come first in the Failures section.
func TestVerdictNamesTheSDKsToFix(t *testing.T) {
	r := &report.Results{SDKs: []report.SDK{{Name: "node", Status: report.Available}, {Name: "go", Status: report.Available}, {Name: "java", Status: report.Available}}}
	for _, sdk := range []string{"node", "go", "java"} {
		r.Results = append(r.Results, report.Result{Feature: "schema/generated_rpc.feature", Scenario: "every method", SDK: sdk, Status: report.Failed, Message: "the sweep found 3 problems:\n- a\n- b"})
	}
	r.Results = append(r.Results,
		report.Result{Feature: "tools/is_terminal.feature", Scenario: "a terminal tool", SDK: "go", Status: report.Failed, Message: "2 steps failed:\n1. step \"isTerminal is true\": want true, got <absent>\n2. step \"y\": boom"},
		report.Result{Feature: "tools/is_terminal.feature", Scenario: "a terminal tool", SDK: "node", Status: report.Passed},
		report.Result{Feature: "tools/is_terminal.feature", Scenario: "a terminal tool", SDK: "java", Status: report.Unsupported})
	r.Tally()
	md := MarkdownText(r)
	assert.Contains(t, md, "SDKs to fix:\n\n- **go**, 1 of its own: a terminal tool (failed): 2 steps failed: step \"isTerminal is true\": want true, got <absent>\n")
	assert.NotContains(t, md, "- **node**")
	assert.Contains(t, md, "Failing on every SDK that ran them (1; the feature, the harness or every SDK at once, not one SDK to send it to): every method (failed): the sweep found 3 problems: a\n")
	assert.Less(t, strings.Index(md, "### a terminal tool on go (failed)"), strings.Index(md, "### every method on every SDK that ran it: node, go, java (failed)"),
		"what one SDK fails comes before what every SDK fails")
}

// A section left out to fit is not pointed to: the verdict's pointer names the full report.
func TestNoPointerToALeftOutSection(t *testing.T) {
	got := assemble([]string{"verdict (*Big*) and (*Small*)\n", "\n## Small\n\nfits\n", "\n## Big\n\n" + strings.Repeat("z", 5000) + "\n"}, 3000)
	assert.Contains(t, got, "(*Small*)", "a section in the file may be pointed to")
	assert.NotContains(t, got, "(*Big*)")
	assert.Contains(t, got, "verdict (Big: in `report.html`, left out here)")
	assert.Contains(t, got, "Left out to keep this summary within 2 KB: *Big*")
}
