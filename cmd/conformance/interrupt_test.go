package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestInterruptMidRun sends SIGINT, then SIGTERM, to a run whose second scenario hangs (the
// runtime holds its answer to the SDK's tool replacement for ten minutes: the Node driver waits on
// it): the run exits 130 promptly, the reports hold the scenario that finished, and no process
// the run started is left (each inherits a marker in its environment).
func TestInterruptMidRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the Node SDK")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	becomeSubreaper(t) // an orphan of the run comes to this process, where leftBehind finds it
	bin := buildCLI(t)
	features := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(features, "slow.feature"), []byte(`Feature: slow
  Scenario: a quick one
    When a session is created with no tools

  @requires.session.rpc.tools.set
  Scenario: a slow one
    Given the runtime takes 600000 ms to answer each tool replacement
    And a session is created with no tools
    When the tools are replaced through the generated RPC with no tools
`), 0o644))
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			reports := t.TempDir()
			marker := fmt.Sprintf("CONFORMANCE_INTERRUPT_TEST=%d-%d", os.Getpid(), sig)
			// -v: every result is printed (the compact log prints only failures), so the test sees
			// the first scenario end.
			cmd := exec.Command(bin, "run", "-v", "--root", repoDir(t), "--sdk", "node", "--timeout", "10m", "--report-dir", reports, features)
			cmd.Env = append(os.Environ(), marker)
			out, err := cmd.StdoutPipe()
			require.NoError(t, err)
			cmd.Stderr = cmd.Stdout
			require.NoError(t, cmd.Start())
			var log strings.Builder
			started := make(chan struct{})
			go func() {
				sc := bufio.NewScanner(out)
				once := false
				for sc.Scan() {
					log.WriteString(sc.Text() + "\n")
					if strings.Contains(sc.Text(), "a quick one") && !once {
						once = true
						close(started)
					}
				}
			}()
			select {
			case <-started:
			case <-time.After(5 * time.Minute):
				_ = cmd.Process.Kill()
				t.Fatalf("the first scenario never finished:\n%s", log.String())
			}
			time.Sleep(2 * time.Second) // the slow scenario is waiting on the runtime now
			require.NoError(t, cmd.Process.Signal(sig))
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			var werr error
			select {
			case werr = <-done:
			case <-time.After(60 * time.Second):
				_ = cmd.Process.Kill()
				t.Fatalf("the run did not end within 60s of %s:\n%s", sig, log.String())
			}
			var ee *exec.ExitError
			require.True(t, errors.As(werr, &ee), "%s", log.String())
			assert.Equal(t, 130, ee.ExitCode(), "%s", log.String())

			res, err := report.ReadResults(filepath.Join(reports, "results.json"))
			require.NoError(t, err)
			var names []string
			for _, r := range res.Results {
				names = append(names, r.Scenario+": "+r.Status)
			}
			assert.Equal(t, []string{"a quick one: passed"}, names)
			// The run is INCOMPLETE, in every report: the slow scenario is named as interrupted,
			// and no report reads PASS.
			res, err = report.Load(filepath.Join(reports, "results.json"))
			require.NoError(t, err, "an interrupted run's results.json is readable")
			require.True(t, res.Incomplete())
			assert.Equal(t, 2, res.Completeness.Planned)
			assert.Equal(t, 1, res.Completeness.Reported)
			require.Len(t, res.Completeness.Missing, 1)
			assert.Equal(t, "a slow one", res.Completeness.Missing[0].Scenario)
			assert.Equal(t, report.MissingInterrupted, res.Completeness.Missing[0].Reason)
			summary, err := os.ReadFile(filepath.Join(reports, "summary.md"))
			require.NoError(t, err)
			assert.NotContains(t, string(summary), "PASS")
			assert.Contains(t, string(summary), "**INCOMPLETE**: 1 of 2 planned results missing (1 interrupted)")
			junit, err := os.ReadFile(filepath.Join(reports, "junit.xml"))
			require.NoError(t, err)
			assert.Contains(t, string(junit), "INCOMPLETE: no result: interrupted")
			page, err := os.ReadFile(filepath.Join(reports, "report.html"))
			require.NoError(t, err)
			assert.Contains(t, string(page), `id="incomplete"`)
			time.Sleep(500 * time.Millisecond)
			assert.Empty(t, processesWith(marker), "every process the run started is gone")
			assert.Empty(t, leftBehind(), "no descendant of the run is alive")
		})
	}
}

// processesWith lists the processes whose environment holds kv.
func processesWith(kv string) []string {
	var out []string
	procs, _ := filepath.Glob("/proc/[0-9]*/environ")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		for _, e := range strings.Split(string(b), "\x00") {
			if e == kv {
				cmdline, _ := os.ReadFile(filepath.Join(filepath.Dir(p), "cmdline"))
				out = append(out, filepath.Base(filepath.Dir(p))+": "+strings.ReplaceAll(string(cmdline), "\x00", " "))
			}
		}
	}
	return out
}
