package harness

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/copilot-sdk-conformance/conformance/internal/driver"
	"github.com/copilot-sdk-conformance/conformance/internal/expect"
	"github.com/copilot-sdk-conformance/conformance/internal/finish"
	"github.com/copilot-sdk-conformance/conformance/internal/render"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/suite"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/copilot-sdk-conformance/conformance/steps"
)

// TestMain lets this test binary act as a misbehaving driver (not an SDK: it tests how the
// harness survives a driver that crashes or hangs in the middle of a run).
func TestMain(m *testing.M) {
	if mode := os.Getenv("FAKE_DRIVER"); strings.HasPrefix(mode, "shared") {
		fakeSharedDriver(mode, os.Getenv("FAKE_DRIVER_MARKER"))
		return
	} else if m := os.Getenv("FAKE_PING_DRIVER"); m != "" {
		fakePingDriver(m)
		return
	} else if strings.HasPrefix(mode, "pending") {
		fakePendingDriver(mode)
		return
	} else if strings.HasPrefix(mode, "sweep") {
		fakeSweepDriver(mode, os.Getenv("FAKE_DRIVER_MARKER"))
		return
	} else if mode != "" {
		fakeDriver(mode, os.Getenv("FAKE_DRIVER_MARKER"))
		return
	}
	os.Exit(m.Run())
}

// fakeDriver answers every command ok, except that the first process (no marker file yet)
// misbehaves on connect the way mode says (in mode alwayscrash every process crashes there):
// crash, hang, exit (quietly, without answering),
// garbage (a non-JSON line on stdout), flood (an endless stdout line). In mode unsupported every
// process declares session.setTools in hello and answers setTools unsupported; in mode
// unsupportedcreate it answers createSession unsupported.
func fakeDriver(mode, marker string) {
	_, err := os.Stat(marker)
	first := os.IsNotExist(err)
	if first {
		_ = os.WriteFile(marker, nil, 0o644)
	}
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		var c struct {
			ID   int    `json:"id"`
			Cmd  string `json:"cmd"`
			Args struct {
				Address string `json:"address"`
			} `json:"args"`
		}
		_ = json.Unmarshal(sc.Bytes(), &c)
		if c.Cmd == "connect" && sdkFaults[mode] != nil {
			if first {
				sdkFault(mode, c.Args.Address)
			}
			first = false
		}
		if c.Cmd == "connect" && (first || mode == "alwayscrash") {
			fmt.Fprintln(os.Stderr, "fatal: the SDK blew up")
			switch mode {
			case "crash", "alwayscrash":
				os.Exit(3)
			case "printenv": // a driver that dumps its environment, then dies
				for _, kv := range os.Environ() {
					fmt.Fprintln(os.Stderr, kv)
				}
				fmt.Fprintln(os.Stderr, "OPENAI_API_KEY="+os.Getenv("OPENAI_API_KEY")) // within the tail a message keeps
				os.Exit(3)
			case "exit":
				os.Exit(0)
			case "garbage":
				fmt.Println("Hello from the SDK's logger, on stdout")
			case "unknownid": // an answer to a command never sent, and none to connect
				fmt.Println(`{"id":9999,"outcome":"ok","result":{}}`)
				time.Sleep(time.Hour)
			case "notutf8":
				fmt.Println("{\"event\":\"tool.invoked\",\"args\":{\"tool\":\"\xff\"}}")
			case "oversize": // one 50 MB line, then the answer
				fmt.Println(`{"event":"tool.invoked","args":{"tool":"` + strings.Repeat("x", 50<<20) + `"}}`)
			case "flood":
				chunk := []byte(strings.Repeat("x", 1<<20))
				for {
					if _, err := os.Stdout.Write(chunk); err != nil {
						os.Exit(1)
					}
				}
			case "hang":
				time.Sleep(time.Hour)
			}
		}
		result, outcome := `{}`, "ok"
		switch c.Cmd {
		case "hello":
			result = `{"protocolVersion":1,"sdk":"fake","version":"1.0.0","capabilities":{"transport.tcp":true,"session.setTools":true}}`
		case "createSession":
			result = `{"sessionId":"s"}`
			if mode == "unsupportedcreate" {
				outcome = "unsupported"
			}
		case "setTools":
			if mode == "unsupported" {
				outcome = "unsupported"
			}
		}
		if outcome == "unsupported" {
			fmt.Printf(`{"id":%d,"outcome":"unsupported","reason":"not in this SDK"}`+"\n", c.ID)
		} else {
			fmt.Printf(`{"id":%d,"outcome":"ok","result":%s}`+"\n", c.ID, result)
		}
		if c.Cmd == "shutdown" {
			return
		}
	}
}

// sdkFaults are what an SDK stand-in sends the runtime: each is a misbehaving SDK, not a driver.
var sdkFaults = map[string]func(net.Conn){
	"badlength": func(c net.Conn) { fmt.Fprint(c, "Content-Length: twelve\r\n\r\n{\"id\":1}") },
	"nonjson":   func(c net.Conn) { fmt.Fprint(c, "Content-Length: 11\r\n\r\nhello world") },
	"strayanswer": func(c net.Conn) {
		body := `{"jsonrpc":"2.0","id":777,"result":{}}`
		fmt.Fprintf(c, "Content-Length: %d\r\n\r\n%s", len(body), body)
	},
	"sdknotutf8": func(c net.Conn) {
		fmt.Fprint(c, "Content-Length: 38\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\xfe\"}")
	},
	"huge": func(c net.Conn) {
		const size = 100 << 20
		fmt.Fprintf(c, "Content-Length: %d\r\n\r\n", size)
		chunk := []byte(strings.Repeat(" ", 1<<20))
		for i := 0; i < size>>20; i++ {
			if _, err := c.Write(chunk); err != nil {
				return
			}
		}
	},
	"requestflood": func(c net.Conn) {
		for i := 0; i < 20000; i++ {
			body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping","params":{}}`, i)
			if _, err := fmt.Fprintf(c, "Content-Length: %d\r\n\r\n%s", len(body), body); err != nil {
				return
			}
		}
	},
	"drop": func(c net.Conn) {
		fmt.Fprint(c, "Content-Length: 200\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"session.create\"")
	},
}

// sdkFault connects to the scenario's runtime as an SDK would and misbehaves; the connection is
// closed after (dropped mid-request for "drop").
func sdkFault(mode, address string) {
	c, err := net.Dial("tcp", address)
	if err != nil {
		fmt.Fprintln(os.Stderr, "dial:", err)
		return
	}
	go io.Copy(io.Discard, c) // the runtime's answers
	sdkFaults[mode](c)
	time.Sleep(200 * time.Millisecond)
	_ = c.Close()
}

// TestSDKFaultsEndOnlyTheirScenario: an SDK that sends the runtime a bad Content-Length, a
// non-JSON body, a frame of 100 MB, or drops the connection mid-request fails its scenario with
// a message naming the fault; the next scenario passes. (A flood of well-formed requests is
// TestSDKRequestFloodIsBounded.)
func TestSDKFaultsEndOnlyTheirScenario(t *testing.T) {
	features := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(features, "f.feature"), []byte(`Feature: f
  Scenario: first
    When a session is created with no tools

  Scenario: second
    When a session is created with no tools
`), 0o644))
	for mode, want := range map[string]string{"badlength": "twelve", "nonjson": "hello world", "huge": "104857600", "sdknotutf8": "frame body is not UTF-8 (byte 34)", "strayanswer": "a response to a request the runtime never sent (id 777)",
		"drop": "stream ended inside a 200-byte body"} {
		t.Run(mode, func(t *testing.T) {
			reports := t.TempDir()
			exe, err := os.Executable()
			require.NoError(t, err)
			var outcomes []suite.Outcome
			tg := &target{name: "fake", timeout: 30 * time.Second, reportDir: reports, progress: io.Discard,
				launcher: driver.Local{Argv: []string{exe}, Env: []string{"FAKE_DRIVER=" + mode, "FAKE_DRIVER_MARKER=" + filepath.Join(reports, "marker")}},
				finished: func(o suite.Outcome) { outcomes = append(outcomes, o) }}
			tg.hello = &driver.Hello{Capabilities: map[string]bool{"transport.tcp": true}}
			runSuite(Config{Steps: steps.Initializer, ReportDir: reports, Paths: []string{features}}, &state{}, features, tg)
			tg.close()
			require.Len(t, outcomes, 2, "the run goes on after the fault")
			require.Error(t, outcomes[0].Err)
			assert.Contains(t, outcomes[0].Err.Error(), "the SDK sent the runtime bytes that are not a well-formed frame")
			assert.Contains(t, outcomes[0].Err.Error(), want)
			assert.NoError(t, outcomes[1].Err, "the next scenario is not affected")
			assertCompleteReports(t, reports, outcomes)
		})
	}
}

func TestDriverFaultsEndOnlyTheirScenario(t *testing.T) {
	features := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(features, "f.feature"), []byte(`Feature: f
  Scenario: first
    When a session is created with no tools

  Scenario: second
    When a session is created with no tools
`), 0o644))
	for mode, want := range map[string]string{"crash": "driver crashed", "hang": "driver timed out", "exit": "exited",
		"garbage": "not a protocol line", "flood": "has no end after", "unknownid": "answers an id the harness never used (id 9999)",
		"notutf8": "is not UTF-8", "oversize": "is 52428843 bytes, over the 16777216-byte limit"} {
		t.Run(mode, func(t *testing.T) {
			reports := t.TempDir()
			exe, err := os.Executable()
			require.NoError(t, err)
			var outcomes []suite.Outcome
			timeout := 2 * time.Second // the hang ends on it
			switch mode {
			case "unknownid", "notutf8", "oversize":
				// A protocol break ends the command at once: were it to wait, it would fail as
				// "timed out", not with the message wanted.
				timeout = 60 * time.Second
			case "flood":
				// The line bound (64 MiB) must be reached before the command times out, and
				// pushing that through a pipe takes seconds on a loaded machine.
				timeout = 60 * time.Second
			}
			tg := &target{name: "fake", timeout: timeout, reportDir: reports, progress: io.Discard,
				launcher: driver.Local{Argv: []string{exe}, Env: []string{"FAKE_DRIVER=" + mode, "FAKE_DRIVER_MARKER=" + filepath.Join(reports, "marker")}},
				finished: func(o suite.Outcome) { outcomes = append(outcomes, o) }}
			tg.hello = &driver.Hello{Capabilities: map[string]bool{"transport.tcp": true}}
			runSuite(Config{Steps: steps.Initializer, ReportDir: reports, Paths: []string{features}}, &state{}, features, tg)
			tg.close()

			require.Len(t, outcomes, 2, "the run goes on after the fault")
			first, second := outcomes[0], outcomes[1]
			require.Error(t, first.Err)
			assert.Contains(t, first.Err.Error(), want)
			assert.Contains(t, first.Err.Error(), "fatal: the SDK blew up", "the driver's stderr tail is in the message")
			entries, err := transcript.Read(first.Transcript)
			require.NoError(t, err, "the transcript so far is kept")
			var sawConnect bool
			for _, e := range entries {
				sawConnect = sawConnect || (e.Dir == transcript.HarnessToDriver && strings.Contains(string(e.Frame), `"connect"`))
			}
			assert.True(t, sawConnect, "the transcript holds the command the driver died on")
			assert.NoError(t, second.Err, "a fresh driver serves the next scenario")
			assertCompleteReports(t, reports, outcomes)
			// A 50 MB line (and a 64 MB one without end) leaves a report folder of a few KB of
			// it: the transcript keeps a prefix with its size (issue 40: under 60 MB).
			assert.Less(t, dirSize(t, reports), int64(1<<20))
		})
	}
}

// TestDriverEnvironmentIsScrubbed: a driver that prints its environment (a credential in a
// variable whose name says key) before it dies puts it in no report file: it reaches the failure
// message through the stderr tail, scrubbed as the harness registered it at start.
func TestDriverEnvironmentIsScrubbed(t *testing.T) {
	const planted = "planted-openai-key-0011"
	t.Setenv("OPENAI_API_KEY", planted)
	transcript.AddSecretsFromEnv(os.Environ()) // as main does at start
	features := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(features, "f.feature"), []byte(`Feature: f
  Scenario: first
    When a session is created with no tools
`), 0o644))
	reports := t.TempDir()
	exe, err := os.Executable()
	require.NoError(t, err)
	var outcomes []suite.Outcome
	tg := &target{name: "fake", timeout: 30 * time.Second, reportDir: reports, progress: io.Discard,
		launcher: driver.Local{Argv: []string{exe}, Env: []string{"FAKE_DRIVER=printenv", "FAKE_DRIVER_MARKER=" + filepath.Join(reports, "marker")}},
		finished: func(o suite.Outcome) { outcomes = append(outcomes, o) }}
	tg.hello = &driver.Hello{Capabilities: map[string]bool{"transport.tcp": true}}
	runSuite(Config{Steps: steps.Initializer, ReportDir: reports, Paths: []string{features}}, &state{}, features, tg)
	tg.close()
	require.Len(t, outcomes, 1)
	require.Error(t, outcomes[0].Err)
	res := &report.Results{Schema: 1, SDKs: []report.SDK{{Name: "fake", Status: report.Available}}}
	res.Results = append(res.Results, classify(Config{ReportDir: reports}, &state{}, &expect.Manifest{}, unit{sdk: "fake", label: "fake"}, res.SDKs[0], outcomes[0]))
	require.NoError(t, finish.Finish(reports, res, finish.Options{})) // as a run ends
	assert.Contains(t, res.Results[0].Message, "OPENAI_API_KEY="+transcript.Redacted(planted), "the stderr tail is in the message, scrubbed")
	require.NoError(t, filepath.Walk(reports, func(path string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			b, rerr := os.ReadFile(path)
			require.NoError(t, rerr)
			assert.NotContains(t, string(b), planted, path)
		}
		return err
	}))
}

func dirSize(t *testing.T, dir string) int64 {
	var n int64
	require.NoError(t, filepath.Walk(dir, func(_ string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			n += info.Size()
		}
		return err
	}))
	return n
}

// assertCompleteReports renders the outcomes the way a run does and checks that every format
// holds both scenarios, the faulty one failed with its message.
func assertCompleteReports(t *testing.T, dir string, outcomes []suite.Outcome) {
	t.Helper()
	res := &report.Results{Schema: 1, SDKs: []report.SDK{{Name: "fake", Status: report.Available}}}
	for _, o := range outcomes {
		res.Results = append(res.Results, classify(Config{ReportDir: dir}, &state{}, &expect.Manifest{}, unit{sdk: "fake", label: "fake"}, res.SDKs[0], o))
	}
	require.NoError(t, render.Write(dir, res))
	got, err := report.ReadResults(filepath.Join(dir, "results.json"))
	require.NoError(t, err)
	require.Len(t, got.Results, 2)
	assert.Equal(t, report.Failed, got.Results[0].Status)
	assert.NotEmpty(t, got.Results[0].Message)
	assert.Equal(t, report.Passed, got.Results[1].Status)
	for _, f := range []string{"junit.xml", "summary.md"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		require.NoError(t, err)
		assert.Contains(t, string(b), "first", f)
		assert.Contains(t, string(b), "second", f)
	}
}

// A driver that answers unsupported to a command whose every capability it declared (setTools
// with session.setTools declared; createSession, which needs none) has a fault: the scenario
// fails, naming the capabilities; it is not excused as unsupported.
func TestDeclaredCapabilityAnsweredUnsupportedIsADriverFault(t *testing.T) {
	tests := []struct{ mode, want string }{
		{"unsupported", "driver fault: the fake driver answered unsupported to setTools, which needs only capabilities it declared in hello (session.setTools)"},
		{"unsupportedcreate", "driver fault: the fake driver answered unsupported to createSession, which needs only capabilities it declared in hello (none beyond the baseline every driver has)"},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			features, reports := t.TempDir(), t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(features, "f.feature"), []byte(`Feature: f
  @requires.session.setTools
  Scenario: replace
    Given a session is created with no tools
    When the tools are replaced with no tools
`), 0o644))
			exe, err := os.Executable()
			require.NoError(t, err)
			var outcomes []suite.Outcome
			tg := &target{name: "fake", timeout: 5 * time.Second, reportDir: reports, progress: io.Discard,
				launcher: driver.Local{Argv: []string{exe}, Env: []string{"FAKE_DRIVER=" + tt.mode, "FAKE_DRIVER_MARKER=" + filepath.Join(reports, "marker")}},
				finished: func(o suite.Outcome) { outcomes = append(outcomes, o) }}
			tg.hello = &driver.Hello{Capabilities: map[string]bool{"transport.tcp": true, "session.setTools": true}}
			runSuite(Config{Steps: steps.Initializer, ReportDir: reports, Paths: []string{features}}, &state{}, features, tg)
			tg.close()
			require.Len(t, outcomes, 1)
			assert.Empty(t, outcomes[0].Unsupported)
			require.Error(t, outcomes[0].Err)
			assert.Contains(t, outcomes[0].Err.Error(), tt.want)
		})
	}
}

// TestSDKRequestFloodIsBounded: an SDK that floods the runtime with well-formed requests does
// not stall the run: its scenario ends (the runtime closes at the scenario's end), what arrived
// is recorded, and the next scenario runs on a fresh runtime.
func TestSDKRequestFloodIsBounded(t *testing.T) {
	features, reports := t.TempDir(), t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(features, "f.feature"), []byte(`Feature: f
  Scenario: first
    When a session is created with no tools

  Scenario: second
    When a session is created with no tools
`), 0o644))
	exe, err := os.Executable()
	require.NoError(t, err)
	var outcomes []suite.Outcome
	tg := &target{name: "fake", timeout: 30 * time.Second, reportDir: reports, progress: io.Discard,
		launcher: driver.Local{Argv: []string{exe}, Env: []string{"FAKE_DRIVER=requestflood", "FAKE_DRIVER_MARKER=" + filepath.Join(reports, "marker")}},
		finished: func(o suite.Outcome) { outcomes = append(outcomes, o) }}
	tg.hello = &driver.Hello{Capabilities: map[string]bool{"transport.tcp": true}}
	runSuite(Config{Steps: steps.Initializer, ReportDir: reports, Paths: []string{features}}, &state{}, features, tg)
	tg.close()
	require.Len(t, outcomes, 2)
	entries, err := transcript.Read(outcomes[0].Transcript)
	require.NoError(t, err)
	pings := 0
	for _, e := range entries {
		if e.Dir == transcript.SDKToRuntime && strings.Contains(string(e.Frame), `"ping"`) {
			pings++
		}
	}
	assert.Greater(t, pings, 0, "the flood is in the transcript")
	assert.NoError(t, outcomes[1].Err)
}

// A schema step in a run without the runtime's schema is unavailable with its reason: a setup
// problem, never unsupported (no SDK lacks anything) and never passed.
func TestSchemaStepWithoutSchemaIsUnavailable(t *testing.T) {
	features, reports := t.TempDir(), t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(features, "f.feature"), []byte(`Feature: f
  Scenario: schema
    Given a session is created with no tools
    Then every request the SDK sent conforms to the runtime's published schema
`), 0o644))
	exe, err := os.Executable()
	require.NoError(t, err)
	var outcomes []suite.Outcome
	tg := &target{name: "fake", timeout: 5 * time.Second, reportDir: reports, progress: io.Discard,
		launcher: driver.Local{Argv: []string{exe}, Env: []string{"FAKE_DRIVER=unsupported", "FAKE_DRIVER_MARKER=" + filepath.Join(reports, "marker")}},
		finished: func(o suite.Outcome) { outcomes = append(outcomes, o) }}
	tg.hello = &driver.Hello{Capabilities: map[string]bool{"transport.tcp": true}}
	runSuite(Config{Steps: steps.Initializer, ReportDir: reports, Paths: []string{features}}, &state{}, features, tg)
	tg.close()
	require.Len(t, outcomes, 1)
	assert.NoError(t, outcomes[0].Err)
	assert.Empty(t, outcomes[0].Unsupported)
	assert.Contains(t, outcomes[0].Unavailable, "the runtime's published schema is not loaded")
}

// fakeSharedDriver is a driver.concurrent stand-in: every command runs in a goroutine of its
// own. The first process (no marker file yet) crashes, or hangs, once three connects are in
// flight; later ones answer every command ok.
func fakeSharedDriver(mode, marker string) {
	_, err := os.Stat(marker)
	first := os.IsNotExist(err)
	if first {
		_ = os.WriteFile(marker, nil, 0o644)
	}
	var mu sync.Mutex
	connects := 0
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		line := append([]byte(nil), sc.Bytes()...)
		go func() {
			var c struct {
				ID  int    `json:"id"`
				Cmd string `json:"cmd"`
			}
			_ = json.Unmarshal(line, &c)
			if c.Cmd == "connect" && first {
				mu.Lock()
				connects++
				n := connects
				mu.Unlock()
				if n < 3 {
					time.Sleep(time.Hour) // in flight until the third arrives
				}
				fmt.Fprintln(os.Stderr, "fatal: the SDK blew up")
				if mode == "sharedcrash" {
					os.Exit(3)
				}
				time.Sleep(time.Hour)
			}
			result := `{}`
			switch c.Cmd {
			case "hello":
				result = `{"protocolVersion":1,"sdk":"fake","version":"1.0.0","capabilities":{"transport.tcp":true,"driver.concurrent":true}}`
			case "createSession":
				result = `{"sessionId":"s"}`
			}
			mu.Lock()
			fmt.Printf(`{"id":%d,"outcome":"ok","result":%s}`+"\n", c.ID, result)
			mu.Unlock()
			if c.Cmd == "shutdown" {
				os.Exit(0)
			}
		}()
	}
}

// A shared driver that crashes or hangs with three scenarios in flight ends each of them with
// the driver's stderr tail and its transcript so far; the run goes on, on a fresh driver.
func TestSharedDriverFaultsEndEachScenarioInFlight(t *testing.T) {
	var feature strings.Builder
	feature.WriteString("Feature: f\n")
	for i := range 6 {
		fmt.Fprintf(&feature, "  Scenario: s%d\n    When a session is created with no tools\n\n", i)
	}
	features := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(features, "f.feature"), []byte(feature.String()), 0o644))
	for mode, want := range map[string]string{"sharedcrash": "driver crashed", "sharedhang": "timed out"} {
		t.Run(mode, func(t *testing.T) {
			reports := t.TempDir()
			exe, err := os.Executable()
			require.NoError(t, err)
			var mu sync.Mutex
			var outcomes []suite.Outcome
			tg := &target{name: "fake", timeout: 3 * time.Second, reportDir: reports, progress: io.Discard,
				launcher: driver.Local{Argv: []string{exe}, Env: []string{"FAKE_DRIVER=" + mode, "FAKE_DRIVER_MARKER=" + filepath.Join(reports, "marker")}},
				finished: func(o suite.Outcome) { mu.Lock(); outcomes = append(outcomes, o); mu.Unlock() }}
			tg.hello = &driver.Hello{Capabilities: map[string]bool{"transport.tcp": true, driver.Concurrent: true}}
			tg.pool = newPool(1, 3, 0, tg.startDriver, nil)
			runSuite(Config{Steps: steps.Initializer, ReportDir: reports, Paths: []string{features}, Jobs: 3}, &state{jobs: 3}, features, tg)
			tg.close()

			require.Len(t, outcomes, 6, "the run goes on after the fault")
			failed := 0
			for _, o := range outcomes {
				if o.Err == nil {
					continue
				}
				failed++
				msg := o.Err.Error()
				assert.True(t, strings.Contains(msg, want) || strings.Contains(msg, "driver crashed"), msg)
				assert.Contains(t, msg, "fatal: the SDK blew up", "the driver's stderr tail is in the message")
				entries, err := transcript.Read(o.Transcript)
				require.NoError(t, err, "the transcript so far is kept")
				var sawConnect bool
				for _, e := range entries {
					if e.Dir == transcript.HarnessToDriver || e.Dir == transcript.DriverToHarness {
						assert.NotContains(t, string(e.Frame), `/c1"`, "the transcript holds the scenario's own handles")
					}
					sawConnect = sawConnect || (e.Dir == transcript.HarnessToDriver && strings.Contains(string(e.Frame), `"connect"`))
				}
				assert.True(t, sawConnect, "the transcript holds the command the driver died on")
			}
			assert.Equal(t, 3, failed, "each scenario in flight on the faulty driver, and only those")
			assert.Equal(t, 2, tg.drivers().Started(), "a fresh driver serves the rest")
		})
	}
}

// A driver that dies on start twice in a row (here: on its first command after hello, every
// time) fails the SDK's remaining scenarios at once with the reason: no third driver is started
// and no scenario waits on one.
func TestDriverThatDiesOnStartTwiceEndsTheSDK(t *testing.T) {
	var feature strings.Builder
	feature.WriteString("Feature: f\n")
	for i := range 4 {
		fmt.Fprintf(&feature, "  Scenario: s%d\n    When a session is created with no tools\n\n", i)
	}
	outcomes, tg := runFake(t, feature.String(), 30*time.Second, map[string]bool{"transport.tcp": true}, []string{"FAKE_DRIVER=alwayscrash"}, nil)
	require.Len(t, outcomes, 4, "every scenario is reported")
	for i, o := range outcomes {
		require.Error(t, o.Err, o.Scenario)
		assert.Contains(t, o.Err.Error(), "fatal: the SDK blew up", "the stderr tail names the cause: %s", o.Scenario)
		if i >= 2 {
			assert.Contains(t, o.Err.Error(), "the driver died on start 2 times in a row", o.Scenario)
		}
	}
	assert.Equal(t, 2, tg.drivers().Started(), "no driver is started after the second died on start")
}

// A scenario that outlives its deadline (here a driver that never answers connect, with a
// command timeout far longer than the deadline) is ended as hung: its driver is killed, the
// outcome says which deadline passed, with the driver's stderr tail and the transcript so far,
// and the next scenario runs on a fresh driver.
func TestScenarioPastItsDeadlineEndsAsHung(t *testing.T) {
	outcomes, _ := runFake(t, `Feature: f
  Scenario: first
    When a session is created with no tools

  Scenario: second
    When a session is created with no tools
`, 10*time.Minute, map[string]bool{"transport.tcp": true}, []string{"FAKE_DRIVER=hang"}, func(tg *target) { tg.floor = 2 * time.Second })
	require.Len(t, outcomes, 2)
	require.Error(t, outcomes[0].Err)
	assert.Contains(t, outcomes[0].Err.Error(), "the scenario passed its deadline of 2s (the floor): hung")
	assert.Contains(t, outcomes[0].Err.Error(), "fatal: the SDK blew up", "the driver's stderr tail")
	entries, err := transcript.Read(outcomes[0].Transcript)
	require.NoError(t, err)
	var notes []string
	for _, e := range entries {
		notes = append(notes, e.Text)
	}
	assert.Contains(t, strings.Join(notes, "\n"), "the driver is killed")
	assert.NoError(t, outcomes[1].Err, "a fresh driver serves the next scenario")
}

// runFake runs the feature text on a fake driver (this test binary in FAKE_DRIVER mode, env
// added), with the given command timeout and capabilities; tweak adjusts the target before the
// run. It returns the outcomes in order and the closed target.
func runFake(t *testing.T, feature string, timeout time.Duration, caps map[string]bool, env []string, tweak func(*target)) ([]suite.Outcome, *target) {
	t.Helper()
	features, reports := t.TempDir(), t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(features, "f.feature"), []byte(feature), 0o644))
	exe, err := os.Executable()
	require.NoError(t, err)
	var mu sync.Mutex
	var outcomes []suite.Outcome
	tg := &target{name: "fake", timeout: timeout, reportDir: reports, progress: io.Discard,
		launcher: driver.Local{Argv: []string{exe}, Env: append(env, "FAKE_DRIVER_MARKER="+filepath.Join(reports, "marker"))},
		finished: func(o suite.Outcome) { mu.Lock(); outcomes = append(outcomes, o); mu.Unlock() }}
	tg.hello = &driver.Hello{Capabilities: caps}
	if tweak != nil {
		tweak(tg)
	}
	runSuite(Config{Steps: steps.Initializer, ReportDir: reports, Paths: []string{features}}, &state{}, features, tg)
	tg.close()
	return outcomes, tg
}
