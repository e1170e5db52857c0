package main

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/copilot-sdk-conformance/conformance/internal/report"
)

// TestPlantedCredentialsReachNoReportFile runs the Node SDK with credentials planted where a
// schema or an SDK's types say a credential is (a provider's apiKey, bearerToken and header
// values, an MCP server's Authorization and x-api-key headers in session.create), a variable
// whose name says key in the harness's (and so the driver's) environment, and a fake GitHub token
// in the text of steps that fail (a Then step, which the scenario goes on after, and a When step,
// which ends it): neither the console output nor any file of the report folder holds one, and
// the options are still found on the wire (by their fingerprints).
func TestPlantedCredentialsReachNoReportFile(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the Node SDK")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	planted := []string{"planted-apikey-0001", "planted-bearer-0002", "planted-header-0003", "planted-mcpauth-0004",
		"planted-xapikey-0005", "planted-openai-0006", "ghp_PlantedStepToken0123456789"}
	provider := `{"type": "openai", "baseUrl": "http://127.0.0.1:1/v1", "apiKey": "planted-apikey-0001", "bearerToken": "planted-bearer-0002", "headers": {"X-Tenant": "planted-header-0003"}}`
	mcp := `{"web": {"type": "http", "url": "http://127.0.0.1:1/mcp", "tools": ["*"], "headers": {"Authorization": "Basic planted-mcpauth-0004", "x-api-key": "planted-xapikey-0005"}}}`
	bin := buildCLI(t)
	features, reports := t.TempDir(), t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(features, "secret.feature"), []byte(`Feature: credentials by contract
  Scenario: a provider's credentials
    When a session is created with the option "provider" set to `+provider+`
    Then the "session.create" request carries "provider" exactly as `+provider+`

  Scenario: an MCP server's credential headers
    When a session is created with the option "mcpServers" set to `+mcp+`
    Then the "session.create" request carries "mcpServers" exactly as `+mcp+`

  Scenario: a token in a Then step that fails
    When a session is created with no tools
    Then the "session.create" request has "gitHubToken" equal to "ghp_PlantedStepToken0123456789"

  Scenario: a token in a When step that fails
    When a session is created with the option "model" set to {not JSON, ghp_PlantedStepToken0123456789
`), 0o644))
	cmd := exec.Command(bin, "run", "--root", repoDir(t), "--sdk", "node", "--report-dir", reports, features)
	cmd.Env = append(os.Environ(), "OPENAI_API_KEY=planted-openai-0006", "CONFORMANCE_ECHO="+"planted-openai-0006")
	out, _ := cmd.CombinedOutput()
	for _, p := range planted {
		assert.NotContains(t, string(out), p, "the console output")
	}
	files := 0
	require.NoError(t, filepath.WalkDir(reports, func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		files++
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		for _, p := range planted {
			assert.False(t, strings.Contains(string(b), p), "%s holds %s", path, p)
		}
		return nil
	}))
	assert.Greater(t, files, 4, "the reports were written:\n%s", out)
	res, err := report.ReadResults(filepath.Join(reports, "results.json"))
	require.NoError(t, err, "%s", out)
	status := map[string]string{}
	for _, r := range res.Results {
		status[r.Scenario] = r.Status
	}
	assert.Equal(t, map[string]string{
		"a provider's credentials":           report.Passed,
		"an MCP server's credential headers": report.Passed,
		"a token in a Then step that fails":  report.Failed,
		"a token in a When step that fails":  report.Failed,
	}, status, "%s", out)
}
