package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/copilot-sdk-conformance/conformance/internal/history"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
)

// TestHistoryFindsAKnownWireChange runs the history of two real Go versions on the scenario
// where a known change shipped: v1.0.8 dropped a tool result's sessionLog, v1.0.9 sends it (as
// the Node SDK does). The history must find it at v1.0.9, with the field named, as a fix that
// makes Go agree with Node. Two versions and one scenario keep the test's cost small; the long
// history is a documented command (README, "The history of every version").
func TestHistoryFindsAKnownWireChange(t *testing.T) {
	if testing.Short() {
		t.Skip("prepares two published Go SDK versions: not in -short mode")
	}
	bin := buildCLI(t)
	out := t.TempDir()
	const scenario = "a result object with a session log and tool telemetry keeps every field"
	h := runHistory(t, bin, out, "--sdk", "go", "--from", "v1.0.8", "--to", "v1.0.9", "--compare-with", "node",
		"--report-dir", out, "--scenario", scenario, "features/tools/tool_results.feature")
	require.Len(t, h.Versions, 2)
	for _, v := range h.Versions {
		require.Equal(t, report.Available, v.Status, "%s: %s", v.Version, v.Reason)
	}
	v := h.Versions[1]
	assert.Equal(t, "v1.0.9", v.Version)
	assert.Equal(t, "v1.0.8", v.Previous)
	require.NotEmpty(t, v.Changes)
	c := v.Changes[0]
	assert.Equal(t, history.Fix, c.Kind)
	assert.Equal(t, scenario, c.Scenario)
	assert.Contains(t, c.Rerun, "--sdk-version go=v1.0.8,v1.0.9")
	assert.Equal(t, "reproduced: v1.0.8 failed again when rerun", c.Recheck, "the fix's failing side was run again")
	for _, p := range []string{c.Before, c.After} {
		assert.FileExists(t, filepath.Join(out, p), "the change links both transcripts")
	}
	ref, err := report.ReadResults(filepath.Join(out, "reference", "results.json"))
	require.NoError(t, err, "the reference run of node")
	nodeRan := len(ref.SDKs) == 1 && ref.SDKs[0].Status == report.Available
	if slices.Contains(required(), "node") {
		require.True(t, nodeRan, "node is required: %+v", ref.SDKs)
	}
	var headlines []string
	for _, w := range v.Wire {
		headlines = append(headlines, w.Headline)
		if strings.Contains(w.Headline, "gained result.sessionLog") && nodeRan {
			assert.Equal(t, []string{"node"}, w.Agrees, "Go now sends what Node sends")
		}
	}
	assert.True(t, slices.ContainsFunc(headlines, func(s string) bool {
		return strings.HasPrefix(s, "session.tools.handlePendingToolCall gained result.sessionLog")
	}), "the field is named: %v", headlines)
	for _, f := range []string{history.MarkdownFile, history.HTMLFile} {
		assert.FileExists(t, filepath.Join(out, f))
	}
}

// TestHistoryFindsAFixedRequestKind is the sample of the request-kind behaviour on older
// versions (features/behaviour/resolved_requests.feature): Go v1.0.11 still answers a tool call
// the runtime resolved while its handler ran and never tells the handler; the next version that
// prepares (v1.0.14; the proxy refuses v1.0.13 here) must show the fix, naming the request kind.
// About 15 s with both versions prepared.
func TestHistoryFindsAFixedRequestKind(t *testing.T) {
	if testing.Short() {
		t.Skip("prepares two published Go SDK versions: not in -short mode")
	}
	bin := buildCLI(t)
	out := t.TempDir()
	const scenario = "the application's tool handler is told when the runtime resolves its call"
	h := runHistory(t, bin, out, "--sdk", "go", "--from", "v1.0.11", "--to", "v1.0.14", "--compare-with", "none",
		"--recheck", "0", "--report-dir", out, "--scenario", scenario, "features/behaviour/resolved_requests.feature")
	require.Equal(t, "v1.0.11", h.Versions[0].Version)
	require.Equal(t, report.Available, h.Versions[0].Status, h.Versions[0].Reason)
	var fixed *history.Change
	for _, v := range h.Versions[1:] {
		for i, c := range v.Changes {
			if c.Scenario == scenario {
				require.Nil(t, fixed, "the scenario changes once")
				fixed = &v.Changes[i]
			}
		}
	}
	require.NotNil(t, fixed, "a later version fixes the scenario")
	assert.Equal(t, history.Fix, fixed.Kind)
	assert.Contains(t, fixed.NoLongerFails, "external_tool.requested:", "the fix names the request kind")
}

// runHistory runs `conformance history args…` writing to out, and reads the history it wrote.
func runHistory(t *testing.T, bin, out string, args ...string) history.History {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"history"}, args...)...)
	cmd.Dir = repoDir(t)
	log, err := cmd.CombinedOutput()
	t.Logf("conformance history:\n%s", log)
	require.NoError(t, err)
	body, err := os.ReadFile(filepath.Join(out, history.JSONFile))
	require.NoError(t, err)
	var h history.History
	require.NoError(t, json.Unmarshal(body, &h))
	return h
}

func TestHistoryFlags(t *testing.T) {
	others, file, err := referenceOf("go, python,node", "node")
	require.NoError(t, err)
	assert.Equal(t, []string{"go", "python"}, others, "the SDK under history is no reference of itself")
	assert.Empty(t, file)
	_, file, err = referenceOf("reports/latest/results.json", "node")
	require.NoError(t, err)
	assert.Equal(t, "reports/latest/results.json", file)
	_, _, err = referenceOf("cobol", "node")
	assert.ErrorContains(t, err, `"cobol" is no SDK`)
	others, _, err = referenceOf(compareNone, "node")
	require.NoError(t, err)
	assert.Empty(t, others)
}
