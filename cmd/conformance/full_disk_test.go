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
