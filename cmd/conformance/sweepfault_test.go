//go:build linux

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/text"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDriverLostDuringASweep proves, on the real, published SDKs and their real drivers, that a
// driver lost in the middle of a long sweep scenario never stalls a run (issue 33): `conformance
// run` is started on one feature, and once the sweep scenario's transcript shows the sweep under
// way the driver is SIGKILLed (a crash), or SIGSTOPped with every member of its process group (a
// hang: the driver neither answers nor exits), or the run itself gets SIGINT. A crash or a hang
// must end the run within 90 s of the fault with exit status 1, every scenario of the feature in
// results.json (as many as an undisturbed run reports), the faulted one failed with a message
// naming the crash or the hang, and, its transcript shows, the fault came mid-sweep and the
// scenario was not handed a new driver to go on with; SIGINT must end it with 130 within 30 s,
// the reports written.
// Whatever the fault, no process the run started (each inherits a marker in its environment)
// may be left behind. The bounds are those of a stall (before the fix a run went on for
// 15 minutes and more), not speed measurements.
//
// Linux only: it finds the processes in /proc and stops a process group.
func TestDriverLostDuringASweep(t *testing.T) {
	if testing.Short() {
		t.Skip("runs real SDKs through their drivers")
	}
	const (
		handlers  = "features/schema/generated_handlers.feature"
		rpc       = "features/schema/generated_rpc.feature"
		fields    = "features/surface/fields.feature"
		reached   = "features/surface/handlers.feature"
		exchanges = "features/schema/request_handler.feature"

		handlerSweep  = "every runtime-to-SDK method reaches the application's handler and carries its answer back"
		sessionRPC    = "every public session method carries the application's params and the runtime's result"
		fieldSweep    = "every declared session config field, set alone, reaches session.create and session.resume unchanged"
		reachedSweep  = "every declared handler is reached when the runtime calls it"
		exchangeSweep = "every model request reaches the application's request handler and its response goes back"
	)
	// Each sweep is recognized in its transcript by the frames it is made of; `need` of them show
	// it under way (an undisturbed sweep sends many times as many).
	runtimeRequest := func(e transcript.Entry) bool { return e.Dir == transcript.RuntimeToSDK && isRequest(e, "") }
	generatedCall := func(e transcript.Entry) bool {
		return e.Dir == transcript.SDKToRuntime && isRequest(e, "session.") && !isRequest(e, "session.create")
	}
	sessionCreate := func(e transcript.Entry) bool {
		return e.Dir == transcript.SDKToRuntime && isRequest(e, "session.create")
	}
	rows := []struct {
		sdk, tool, feature, scenario string
		fault                        string // kill | stop | interrupt
		sweep                        func(transcript.Entry) bool
		need                         int
	}{
		{"node", "node", handlers, handlerSweep, "kill", runtimeRequest, 3},
		{"python", "python3", rpc, sessionRPC, "kill", generatedCall, 10},
		{"go", "go", fields, fieldSweep, "kill", sessionCreate, 5},
		{"node", "node", handlers, handlerSweep, "stop", runtimeRequest, 3},
		{"node", "node", handlers, handlerSweep, "interrupt", runtimeRequest, 3},
		{"node", "node", reached, reachedSweep, "kill", runtimeRequest, 5},
		{"node", "node", exchanges, exchangeSweep, "kill", runtimeRequest, 3},
		// No event-sweep row: its 149 notifications go out without waiting for answers, so a kill
		// cannot be made to land mid-sweep (one clean-clone run sent them all first).
		{"python", "python3", rpc, sessionRPC, "stop", generatedCall, 10},
		{"go", "go", fields, fieldSweep, "stop", sessionCreate, 5},
	}
	bin := buildCLI(t)
	root := repoDir(t)
	type prepared struct {
		launch   []string                 // the driver's argv, as `conformance prepare` prints it
		baseline map[string]report.Result // an undisturbed run's results, by scenario
		frames   int                      // the frames of the undisturbed sweep
	}
	cache := map[string]*prepared{}
	for _, row := range rows {
		t.Run(row.sdk+"/"+filepath.Base(row.feature)+"/"+row.fault, func(t *testing.T) {
			if _, err := exec.LookPath(row.tool); err != nil {
				if slices.Contains(required(), row.sdk) {
					t.Fatalf("%s is required here (CONFORMANCE_REQUIRE_SDKS) but %s is not installed", row.sdk, row.tool)
				}
				t.Skipf("%s is not installed", row.tool)
			}
			key := row.sdk + " " + row.feature
			p := cache[key]
			if p == nil {
				// Outside the timed part: the driver prepared (a cold one installs the SDK and
				// builds the driver), and an undisturbed run of the feature to compare with.
				p = &prepared{launch: prepareLaunch(t, bin, root, row.sdk)}
				base := t.TempDir()
				undisturbed := exec.Command(bin, "run", "--root", root, "--sdk", row.sdk, "--report-dir", base, row.feature)
				undisturbed.Dir = root // the feature paths are the checkout's
				out, err := undisturbed.CombinedOutput()
				res, rerr := report.ReadResults(filepath.Join(base, "results.json"))
				require.NoError(t, rerr, "the undisturbed run (%v):\n%s", err, out)
				p.baseline = map[string]report.Result{}
				for _, r := range res.Results {
					p.baseline[r.Scenario] = r
				}
				b, ok := p.baseline[row.scenario]
				require.True(t, ok, "the undisturbed run reports %q:\n%s", row.scenario, out)
				require.False(t, report.Failing(b.Status), "the undisturbed run must not fail %q (%s):\n%s", row.scenario, b.Message, out)
				p.frames = sweepFrames(t, filepath.Join(base, b.Transcript), row.sweep)
				require.Greater(t, p.frames, 2*row.need, "the undisturbed sweep sends more than twice the frames the test waits for")
				cache[key] = p
			}
			want := p.baseline[row.scenario]

			reports := t.TempDir()
			logPath := filepath.Join(t.TempDir(), "run.log")
			logf, err := os.Create(logPath)
			require.NoError(t, err)
			defer logf.Close()
			tail := func() string { return outputTail(logPath, 60) }
			marker := fmt.Sprintf("CONFORMANCE_SWEEPFAULT_TEST=%d-%s-%s", os.Getpid(), row.sdk, row.fault)
			// A hang inside a driver command ends on the command's timeout: 30 s rather than the
			// default minute keeps the stop rows short (a healthy command here takes < 3 s).
			cmd := exec.Command(bin, "run", "-v", "--root", root, "--sdk", row.sdk, "--timeout", "30s", "--report-dir", reports, row.feature)
			cmd.Dir = root
			cmd.Env = append(os.Environ(), marker)
			cmd.Stdout, cmd.Stderr = logf, logf // a file: Wait returns when the run exits
			require.NoError(t, cmd.Start())
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			t.Cleanup(func() {
				// Whatever the test's outcome, nothing it started is left: the run and every
				// process that inherited the marker (a stopped one too: SIGKILL ends it).
				_ = cmd.Process.Kill()
				for _, pid := range pidsWith(marker, nil, 0) {
					_ = syscall.Kill(pid, syscall.SIGKILL)
				}
			})

			// Wait for the sweep: the scenario's transcript has `need` of its frames.
			path := filepath.Join(reports, want.Transcript)
			drivers := newDriverWatch(marker, p.launch, cmd.Process.Pid)
			defer drivers.stop()
			seen, err := waitForSweep(path, row.sweep, row.need, 5*time.Minute, done)
			if err != nil {
				_ = cmd.Process.Kill()
				t.Fatalf("%v\n%s", err, tail())
			}

			// The fault.
			faulted := time.Now()
			var hit []int
			switch row.fault {
			case "kill", "stop":
				hit = drivers.pids()
				if len(hit) == 0 {
					hit = pidsWith(marker, p.launch, cmd.Process.Pid)
				}
				if len(hit) == 0 {
					_ = cmd.Process.Kill()
					t.Fatalf("no %s driver (%q) found among the run's processes %q\n%s", row.sdk, p.launch, processesWith(marker), tail())
				}
				for _, pid := range hit {
					if row.fault == "kill" {
						require.NoError(t, syscall.Kill(pid, syscall.SIGKILL))
					} else {
						// The driver and its group (the SDK may have started processes of its own):
						// alive, but never answering.
						pgid, err := syscall.Getpgid(pid)
						require.NoError(t, err)
						require.NoError(t, syscall.Kill(-pgid, syscall.SIGSTOP))
					}
				}
			case "interrupt":
				require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
				hit = []int{cmd.Process.Pid}
			}
			t.Logf("%s of %v after %d sweep frames", row.fault, hit, seen)

			bound := 90 * time.Second
			if row.fault == "interrupt" {
				bound = 30 * time.Second
			}
			var werr error
			select {
			case werr = <-done:
			case <-time.After(bound):
				_ = cmd.Process.Kill()
				<-done
				t.Fatalf("the run did not end within %s of the %s (a stall):\n%s", bound, row.fault, tail())
			}
			took := time.Since(faulted)
			t.Logf("the run ended %s after the %s", took.Round(10*time.Millisecond), row.fault)
			code := 0
			var ee *exec.ExitError
			if errors.As(werr, &ee) {
				code = ee.ExitCode()
			} else {
				require.NoError(t, werr)
			}
			wantCode := 1 // the faulted scenario failed
			if row.fault == "interrupt" {
				wantCode = 130
			}
			assert.Equal(t, wantCode, code, "exit status\n%s", tail())

			res, err := report.ReadResults(filepath.Join(reports, "results.json"))
			require.NoError(t, err, "results.json is written\n%s", tail())
			for _, f := range []string{"junit.xml", "summary.md"} {
				assert.FileExists(t, filepath.Join(reports, f))
			}
			got := map[string]report.Result{}
			for _, r := range res.Results {
				assert.Equal(t, row.sdk, r.SDK)
				assert.Contains(t, p.baseline, r.Scenario, "a result for a scenario of the feature")
				got[r.Scenario] = r
			}
			t.Logf("results.json: %d of the feature's %d scenarios (totals %v)", len(got), len(p.baseline), res.Totals)
			r, ok := got[row.scenario]
			switch row.fault {
			case "interrupt":
				// The reports hold what finished; the interrupted sweep did not pass.
				if ok {
					assert.NotEqual(t, report.Passed, r.Status, "the interrupted sweep cannot have passed: %s", r.Message)
				}
			default:
				assert.Len(t, got, len(p.baseline), "every scenario of the feature is reported\n%s", tail())
				require.True(t, ok, "the faulted scenario is reported\n%s", tail())
				assert.Equal(t, report.Failed, r.Status, "the faulted scenario failed: %s\n%s", r.Message, tail())
				named := map[string]*regexp.Regexp{
					"kill": regexp.MustCompile(`(?i)crash|exited|killed`),
					"stop": regexp.MustCompile(`(?i)hung|hang|timed out|not respond|unresponsive`),
				}[row.fault]
				assert.Regexp(t, named, r.Message, "the message names the %s", row.fault)
				t.Logf("the faulted scenario: %s: %s", r.Status, text.FirstLine(r.Message))
			}
			if row.fault != "interrupt" {
				// The fault came in the middle of the sweep (else the run proved nothing about a
				// sweep), and the scenario was not given a new driver to go on with: once its
				// transcript records the driver's end (a note on the driver's connection), nothing
				// more is sent to a driver.
				n := sweepFrames(t, path, row.sweep)
				assert.Less(t, n, p.frames, "the %s came before the sweep ended: %d of its %d frames sent", row.fault, n, p.frames)
				entries, err := transcript.Read(path)
				require.NoError(t, err)
				end, sent := -1, 0
				for i, e := range entries {
					switch {
					case end < 0 && e.Dir == transcript.Note && e.Conn == "driver":
						end = i
						t.Logf("the transcript: %s", e.Text)
					case end >= 0 && e.Dir == transcript.HarnessToDriver:
						sent++
					}
				}
				if assert.GreaterOrEqual(t, end, 0, "the transcript records the driver's end") {
					assert.Zero(t, sent, "commands sent to a driver after the scenario's driver was lost (a new driver mid-scenario)")
				}
			}
			// Nothing the run started outlives it (a stopped driver neither).
			var left []string
			for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
				if left = processesWith(marker); len(left) == 0 {
					break
				}
			}
			assert.Empty(t, left, "every process the run started is gone")
			if t.Failed() {
				t.Logf("the run's output:\n%s", tail())
			}
		})
	}
}

// isRequest says whether e's frame is a request whose method starts with prefix.
func isRequest(e transcript.Entry, prefix string) bool {
	if len(e.Frame) == 0 {
		return false
	}
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	return json.Unmarshal(e.Frame, &m) == nil && m.Method != "" && len(m.ID) > 0 && strings.HasPrefix(m.Method, prefix)
}

// sweepFrames counts the entries of the transcript at path that satisfy sweep.
func sweepFrames(t *testing.T, path string, sweep func(transcript.Entry) bool) int {
	t.Helper()
	entries, err := transcript.Read(path)
	require.NoError(t, err)
	n := 0
	for _, e := range entries {
		if sweep(e) {
			n++
		}
	}
	return n
}

// prepareLaunch prepares sdk's driver and returns its argv from `conformance prepare`'s JSON.
// Preparing is outside the timed part: a cold preparation installs the SDK and builds its driver.
func prepareLaunch(t *testing.T, bin, root, sdk string) []string {
	t.Helper()
	cmd := exec.Command(bin, "prepare", "--root", root, "--sdk", sdk)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "conformance prepare --sdk %s:\n%s", sdk, stderr.String())
	var launch struct {
		Argv []string `json:"argv"`
	}
	// The launch is the JSON object that ends the output (progress lines may come before it).
	at := bytes.LastIndex(out, []byte("\n{"))
	require.NoError(t, json.Unmarshal(out[at+1:], &launch), "%s", out)
	require.NotEmpty(t, launch.Argv, "%s", out)
	return launch.Argv
}

// waitForSweep polls the transcript at path (written as the scenario runs) until need of its
// entries satisfy sweep, and returns how many it saw. It polls tightly: the fastest sweep
// (Node's handlers) lasts a few hundred milliseconds.
func waitForSweep(path string, sweep func(transcript.Entry) bool, need int, timeout time.Duration, exited <-chan error) (int, error) {
	deadline := time.Now().Add(timeout)
	var f *os.File
	defer func() {
		if f != nil {
			f.Close()
		}
	}()
	var pending []byte
	buf := make([]byte, 1<<16)
	n := 0
	for {
		if f == nil {
			f, _ = os.Open(path)
		}
		if f != nil {
			for {
				k, err := f.Read(buf)
				pending = append(pending, buf[:k]...)
				if k == 0 || err != nil {
					break
				}
			}
			for {
				i := bytes.IndexByte(pending, '\n')
				if i < 0 {
					break
				}
				var e transcript.Entry
				if json.Unmarshal(pending[:i], &e) == nil && sweep(e) {
					n++
				}
				pending = pending[i+1:]
			}
			if n >= need {
				return n, nil
			}
		}
		select {
		case err := <-exited:
			return n, fmt.Errorf("the run ended (%v) before the sweep was seen under way (%d frames of it in %s)", err, n, path)
		default:
		}
		if time.Now().After(deadline) {
			return n, fmt.Errorf("the sweep was not under way within %s (%d frames of it in %s)", timeout, n, path)
		}
		time.Sleep(time.Millisecond)
	}
}

// driverWatch keeps, in the background, the pids of the run's drivers (processes with the
// marker whose command line is the driver's launch), so that the fault is not delayed by a scan
// of /proc once the sweep is seen.
type driverWatch struct {
	mu   sync.Mutex
	seen []int
	quit chan struct{}
	wg   sync.WaitGroup
}

func newDriverWatch(marker string, launch []string, run int) *driverWatch {
	w := &driverWatch{quit: make(chan struct{})}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		for {
			pids := pidsWith(marker, launch, run)
			w.mu.Lock()
			w.seen = pids
			w.mu.Unlock()
			select {
			case <-w.quit:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	return w
}

func (w *driverWatch) pids() []int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.seen)
}

func (w *driverWatch) stop() { close(w.quit); w.wg.Wait() }

// pidsWith lists the processes whose environment holds kv and, when launch is given, whose
// command line is launch's (the driver: argv as `conformance prepare` prints it; the last
// argument, the script or binary, is enough) and whose parent is the run (not a process the SDK
// started).
func pidsWith(kv string, launch []string, run int) []int {
	var out []int
	procs, _ := filepath.Glob("/proc/[0-9]*/environ")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil || !slices.Contains(strings.Split(string(b), "\x00"), kv) {
			continue
		}
		dir := filepath.Dir(p)
		if len(launch) > 0 {
			cmdline, _ := os.ReadFile(filepath.Join(dir, "cmdline"))
			args := strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")
			if !slices.Equal(args, launch) && !slices.Contains(args, launch[len(launch)-1]) || parent(dir) != run {
				continue
			}
		}
		if pid, err := strconv.Atoi(filepath.Base(dir)); err == nil {
			out = append(out, pid)
		}
	}
	return out
}

// parent is the parent pid of the process whose /proc folder is dir.
func parent(dir string) int {
	b, _ := os.ReadFile(filepath.Join(dir, "stat"))
	s := string(b)
	s = s[strings.LastIndexByte(s, ')')+1:] // "pid (comm) state ppid …": comm may hold anything
	f := strings.Fields(s)
	if len(f) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}

// outputTail is the last n lines of the run's output.
func outputTail(path string, n int) string {
	f, err := os.Open(path)
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	b, _ := io.ReadAll(f)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = append([]string{fmt.Sprintf("… (%d lines before)", len(lines)-n)}, lines[len(lines)-n:]...)
	}
	return strings.Join(lines, "\n")
}
