package harness

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/driver"
	"github.com/copilot-sdk-conformance/conformance/internal/suite"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/copilot-sdk-conformance/conformance/steps"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMain lets this test binary act as a misbehaving driver (not an SDK: it tests how the
// harness survives a driver that crashes or hangs in the middle of a run).
func TestMain(m *testing.M) {
	if mode := os.Getenv("FAKE_DRIVER"); mode != "" {
		fakeDriver(mode, os.Getenv("FAKE_DRIVER_MARKER"))
		return
	}
	os.Exit(m.Run())
}

// fakeDriver answers every command ok, except that the first process (no marker file yet)
// crashes or hangs on connect.
func fakeDriver(mode, marker string) {
	_, err := os.Stat(marker)
	first := os.IsNotExist(err)
	if first {
		_ = os.WriteFile(marker, nil, 0o644)
	}
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		var c struct {
			ID  int    `json:"id"`
			Cmd string `json:"cmd"`
		}
		_ = json.Unmarshal(sc.Bytes(), &c)
		if c.Cmd == "connect" && first {
			fmt.Fprintln(os.Stderr, "fatal: the SDK blew up")
			if mode == "crash" {
				os.Exit(3)
			}
			time.Sleep(time.Hour)
		}
		result := `{}`
		switch c.Cmd {
		case "hello":
			result = `{"protocolVersion":1,"sdk":"fake","version":"1.0.0","capabilities":{"transport.tcp":true}}`
		case "createSession":
			result = `{"sessionId":"s"}`
		}
		fmt.Printf(`{"id":%d,"outcome":"ok","result":%s}`+"\n", c.ID, result)
		if c.Cmd == "shutdown" {
			return
		}
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
	for _, mode := range []string{"crash", "hang"} {
		t.Run(mode, func(t *testing.T) {
			reports := t.TempDir()
			exe, err := os.Executable()
			require.NoError(t, err)
			var outcomes []suite.Outcome
			tg := &target{name: "fake", timeout: 2 * time.Second, reportDir: reports, progress: io.Discard,
				launcher: driver.Local{Argv: []string{exe}, Env: []string{"FAKE_DRIVER=" + mode, "FAKE_DRIVER_MARKER=" + filepath.Join(reports, "marker")}},
				finished: func(o suite.Outcome) { outcomes = append(outcomes, o) }}
			tg.hello = &driver.Hello{Capabilities: map[string]bool{"transport.tcp": true}}
			runSuite(Config{Steps: steps.Initializer, ReportDir: reports, Paths: []string{features}}, features, tg)
			tg.close()

			require.Len(t, outcomes, 2, "the run goes on after the fault")
			first, second := outcomes[0], outcomes[1]
			require.Error(t, first.Err)
			want := map[string]string{"crash": "driver crashed", "hang": "driver timed out"}[mode]
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
		})
	}
}
