package render

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"testing"

	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func sample() *report.Results {
	return &report.Results{
		SDKs: []report.SDK{{Name: "node", Version: "1.0.14", Status: report.Available}, {Name: "go", Version: "v1.0.14", Status: report.Available},
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
	r.Tally()
	md := MarkdownText(r)
	for _, want := range []string{
		"1 failed, 1 passed, 1 unavailable, 1 xfail",
		"| dotnet |  | unavailable | dotnet not found on PATH |",
		"| f.feature | s1 | ⚠️ xfail | ✅ passed | ⛔ unavailable |",
		"## Failures", "**s2** on **go** (failed): boom",
		"## Expected failures (known divergences)", "rerun: `go run ./cmd/conformance run --sdk node`",
		"| `session.create#1 tools[0].isTerminal` | go=<absent>, node=false |",
		"| `session.create#1 hooks` | go=<absent>, node=false | 2 | f.feature |",
	} {
		assert.Contains(t, md, want)
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
