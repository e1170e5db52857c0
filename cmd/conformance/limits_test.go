//go:build linux

package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFullDiskIsASetupError: a run whose report folder or temporary folder is on a full file
// system (a small tmpfs, mounted where this process may: root) stops with exit status 2 naming
// the folder, before any SDK is prepared, instead of reporting every scenario as failed.
func TestFullDiskIsASetupError(t *testing.T) {
	full := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", full).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", full).Run() })
	bin := buildCLI(t)
	tests := []struct {
		name    string
		reports string
		tmp     string
		want    string
	}{
		{"the report folder", filepath.Join(full, "reports"), "", filepath.Join(full, "reports")},
		{"the temporary folder", filepath.Join(t.TempDir(), "reports"), full, full},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(bin, "run", "--root", repoDir(t), "--cache-dir", t.TempDir(), "--report-dir", tt.reports,
				"--sdk", "go", "--scenario", "a prompt sent and waited for returns the assistant's reply")
			cmd.Env = os.Environ()
			if tt.tmp != "" {
				cmd.Env = append(cmd.Env, "TMPDIR="+tt.tmp)
			}
			out, err := cmd.CombinedOutput()
			var ee *exec.ExitError
			require.True(t, errors.As(err, &ee), "%s", out)
			assert.Equal(t, 2, ee.ExitCode(), "%s", out)
			assert.Contains(t, string(out), tt.want+" has ")
			assert.Contains(t, string(out), "no room to write")
			assert.NotContains(t, string(out), "preparing driver", "stopped before any preparation")
		})
	}
}

// TestLowOpenFileLimitSizesTheJobs: under `ulimit -n 256` a run runs fewer scenarios at once than
// asked and says so.
func TestLowOpenFileLimitSizesTheJobs(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a scenario on the pinned go driver")
	}
	bin := buildCLI(t)
	cmd := exec.Command("sh", "-c", `ulimit -n 256 && exec "$@"`, "sh", bin, "run", "--root", repoDir(t),
		"--report-dir", t.TempDir(), "--sdk", "go", "--jobs", "32",
		"--scenario", "a prompt sent and waited for returns the assistant's reply")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "open-file limit 256: running 24 scenarios of each of 1 SDKs at once, not 32")
}
