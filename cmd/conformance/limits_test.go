//go:build linux

package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
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

// TestSweepsHoldFewConnections: a sweep that opens a client of its own per case stops each one
// once the case is judged (the startup-order sweep 24 at a time; the surface probe's
// client options held 8 at most), so at no point of the scenario's transcript are more of its
// runtime connections open than those and the scenario's own few. Before, every case's stayed
// open until the sweep ended (go: 178 and 27 at once), most of a run's open files.
func TestSweepsHoldFewConnections(t *testing.T) {
	if testing.Short() {
		t.Skip("runs scenarios on the pinned go driver")
	}
	tests := []struct {
		name, scenario string
		atMost         int
	}{
		// steps.orderHeld judged cases' clients, a batch of steps.orderBatch running, and the client
		// that made the sessions resumed
		{"order sweep", "every declared option and handler, set alone on a client of its own, adds only its own requests and waits for the opening", 24 + 8 + 2},
		// steps.surfaceHeld finished cases' clients, the next one's, and the clients the session
		// fields are set on
		{"surface probe", "every declared session config field, set alone, reaches session.create and session.resume unchanged", 8 + 3},
	}
	bin := buildCLI(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reports := t.TempDir()
			out, err := exec.Command(bin, "run", "--root", repoDir(t), "--report-dir", reports, "--sdk", "go", "--scenario", tt.scenario).CombinedOutput()
			var ee *exec.ExitError
			if err != nil && !errors.As(err, &ee) {
				require.NoError(t, err, "%s", out)
			}
			res, err := report.ReadResults(filepath.Join(reports, "results.json"))
			require.NoError(t, err, "%s", out)
			require.Len(t, res.Results, 1, "%s", out)
			r := res.Results[0]
			require.NotEqual(t, report.Unavailable, r.Status, "%s", r.Message)
			entries, err := transcript.Read(filepath.Join(reports, r.Transcript))
			require.NoError(t, err)
			open, peak, conns := map[string]bool{}, 0, map[string]bool{}
			for _, e := range entries {
				switch {
				case e.Dir == transcript.SDKToRuntime && !conns[e.Conn]:
					conns[e.Conn], open[e.Conn] = true, true
				case e.Dir == transcript.Note && e.Text == "connection closed":
					delete(open, e.Conn)
				}
				peak = max(peak, len(open))
			}
			t.Logf("%d runtime connections, at most %d open at once", len(conns), peak)
			require.Greater(t, len(conns), 2*tt.atMost, "the sweep ran its cases")
			assert.LessOrEqual(t, peak, tt.atMost, "open runtime connections are bounded, not one per case")
		})
	}
}
