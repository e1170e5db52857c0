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
)

// TestPlantedTokenReachesNoReportFile runs the Node SDK with a token in the environment the SDKs
// read it from, echoed in what the application passes its SDK (a prompt, a tool's result, an
// expectation the run fails on, so the token is quoted in failure messages), and another token
// in the application's per-session option (gitHubToken): no file under the report folder holds
// either.
func TestPlantedTokenReachesNoReportFile(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the Node SDK")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	const token = "ghp_PlantedReportToken0123456789"
	const optionToken = "ghp_PlantedOptionToken9876543210"
	bin := buildCLI(t)
	features, reports := t.TempDir(), t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(features, "secret.feature"), []byte(`Feature: a token the application holds
  Scenario: the token in a prompt and in an expectation that fails
    When the prompt "log in with `+token+`" is sent and the SDK waits for the reply
    Then the "session.send" request has "prompt" equal to "log in with `+token+`"
    And the reply is "`+token+`"

  Scenario: the token in a tool's result
    Given a tool "login" that returns "`+token+`"
    And the model calls the tool "login"
    When the prompt "log in" is sent and the SDK waits for the reply
    Then the SDK answered the call to "login" with the text "`+token+`"

  @requires.session.gitHubToken
  Scenario: the token in the application's options
    When a session is created with the GitHub token "`+optionToken+`"
    Then the "session.create" request carried the token "`+optionToken+`" at "gitHubToken", recorded only by its fingerprint
    And the "session.create" request has "gitHubToken" equal to "`+optionToken+`"
`), 0o644))
	cmd := exec.Command(bin, "run", "--root", repoDir(t), "--sdk", "node", "--report-dir", reports, features)
	cmd.Env = append(os.Environ(), "GH_TOKEN="+token, "COPILOT_GITHUB_TOKEN="+token)
	out, _ := cmd.CombinedOutput()
	assert.NotContains(t, string(out), token, "the console output")
	assert.NotContains(t, string(out), optionToken, "the console output")
	files := 0
	require.NoError(t, filepath.WalkDir(reports, func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		files++
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.False(t, strings.Contains(string(b), token), "%s holds the planted token", path)
		assert.False(t, strings.Contains(string(b), optionToken), "%s holds the token of the application's options", path)
		return nil
	}))
	assert.Greater(t, files, 4, "the reports were written:\n%s", out)
	assert.FileExists(t, filepath.Join(reports, "results.json"), "%s", out)
}
