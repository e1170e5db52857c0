//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRunLeavesNothing runs the harness with the real Node driver over a scenario whose SDK
// spawns the runtime itself over stdio (a driver's child, and a temporary folder for the wrapper
// script): once the run has ended, no process it started is alive (this test process is a
// subreaper, so an orphan would be re-parented here and found) and its temporary folder holds no
// conformance-* folder.
func TestRunLeavesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the Node SDK")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	becomeSubreaper(t)
	bin := buildCLI(t)
	features := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(features, "stdio.feature"), []byte(`Feature: spawned
  @requires.transport.stdio
  Scenario: the SDK spawns the runtime
    Given an SDK client that starts the runtime itself over stdio
    When a session is created with the tools
    Then the first request is "connect"
`), 0o644))
	tmp := t.TempDir()
	cmd := exec.Command(bin, "run", "--root", repoDir(t), "--sdk", "node", "--report-dir", t.TempDir(), features)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "passed")
	assert.Empty(t, leftBehind(), "processes left behind by the run")
	left, _ := filepath.Glob(filepath.Join(tmp, "conformance-*"))
	assert.Empty(t, left, "temporary folders left behind by the run")
}
