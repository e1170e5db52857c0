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

// A run of two versions of node: every format has a column (suite) per node@version.
func TestSeveralVersionsOfOneSDK(t *testing.T) {
	res := &report.Results{
		SDKs: []report.SDK{{Name: "node", Version: "1.0.8", Status: report.Available}, {Name: "node", Version: "1.0.14", Status: report.Available},
			{Name: "go", Version: "v1.0.14", Status: report.Available}},
		Results: []report.Result{
			{Feature: "f.feature", Scenario: "s1", SDK: "node", Version: "1.0.8", Status: report.Failed, Message: "boom"},
			{Feature: "f.feature", Scenario: "s1", SDK: "node", Version: "1.0.14", Status: report.Passed},
			{Feature: "f.feature", Scenario: "s1", SDK: "go", Version: "v1.0.14", Status: report.Passed},
		},
	}
	dir := t.TempDir()
	require.NoError(t, Write(dir, res))

	md, err := os.ReadFile(filepath.Join(dir, "summary.md"))
	require.NoError(t, err)
	assert.Contains(t, string(md), "| node@1.0.8 | 1.0.8 |")
	assert.Contains(t, string(md), "node@1.0.14")

	b, err := os.ReadFile(filepath.Join(dir, "junit.xml"))
	require.NoError(t, err)
	var doc junitSuites
	require.NoError(t, xml.Unmarshal(b, &doc))
	var suites []string
	for _, s := range doc.Suites {
		suites = append(suites, s.Name)
	}
	assert.ElementsMatch(t, []string{"conformance.node@1.0.8", "conformance.node@1.0.14", "conformance.go"}, suites)

	got, err := report.ReadResults(filepath.Join(dir, "results.json"))
	require.NoError(t, err)
	assert.Equal(t, "node", got.Results[0].SDK, "results.json keeps the SDK and names the version")
	assert.Equal(t, "1.0.8", got.Results[0].Version)
}
