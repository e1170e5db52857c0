package harness

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/schemagen"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/copilot-sdk-conformance/conformance/internal/wire"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// faultAt is the runtime-to-SDK request (1-based) at which a sweep stand-in misbehaves.
const faultAt = 2

// fakeSweepDriver is an SDK stand-in that plays the handler sweep for real: it connects to the
// scenario's runtime, opens the session with session.create, reports every handler it was asked
// to register, and answers the runtime's calls. The first process (no marker file yet) misbehaves
// at the faultAt-th call the way mode says: sweepexit exits (a crash), sweephang stops itself
// (SIGSTOP: a hang, the process still there), sweepclose closes its runtime connection with the
// call pending and goes on answering commands. Later processes behave.
func fakeSweepDriver(mode, marker string) {
	_, err := os.Stat(marker)
	first := os.IsNotExist(err)
	if first {
		_ = os.WriteFile(marker, nil, 0o644)
	}
	var out sync.Mutex
	reply := func(id int, result string) {
		out.Lock()
		defer out.Unlock()
		fmt.Printf(`{"id":%d,"outcome":"ok","result":%s}`+"\n", id, result)
	}
	var conn net.Conn
	var w *wire.Writer
	created := make(chan json.RawMessage, 1)
	calls := 0
	var hung atomic.Bool
	serve := func(c net.Conn) {
		r := wire.NewReader(c)
		for {
			f, err := r.NextFrame()
			if err != nil {
				return
			}
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Result json.RawMessage `json:"result"`
			}
			_ = json.Unmarshal(f.Body, &m)
			if m.Method == "" {
				created <- m.Result // the answer to session.create, the one request sent
				continue
			}
			if len(m.ID) == 0 {
				continue
			}
			calls++
			if first && calls == faultAt {
				fmt.Fprintln(os.Stderr, "fatal: the SDK blew up in a handler")
				switch mode {
				case "sweepexit":
					os.Exit(3)
				case "sweephang":
					// Stopped for real; the stop lands a moment after kill returns, so nothing
					// is answered meanwhile either.
					hung.Store(true)
					_ = syscall.Kill(os.Getpid(), syscall.SIGSTOP)
					select {}
				case "sweepclose":
					_ = c.Close()
					return
				}
			}
			_ = w.Write([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"ok":true}}`, m.ID)))
		}
	}
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		if hung.Load() {
			select {}
		}
		var c struct {
			ID   int    `json:"id"`
			Cmd  string `json:"cmd"`
			Args struct {
				Address  string                     `json:"address"`
				Handlers map[string]json.RawMessage `json:"handlers"`
			} `json:"args"`
		}
		_ = json.Unmarshal(sc.Bytes(), &c)
		switch c.Cmd {
		case "hello":
			reply(c.ID, `{"protocolVersion":1,"sdk":"fake","version":"1.0.0","capabilities":{"transport.tcp":true,"rpc.handlers":true}}`)
		case "connect":
			if conn, err = net.Dial("tcp", c.Args.Address); err != nil {
				fmt.Fprintln(os.Stderr, "dial:", err)
				os.Exit(1)
			}
			w = wire.NewWriter(conn)
			go serve(conn)
			reply(c.ID, `{}`)
		case "createSession":
			_ = w.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"session.create","params":{}}`))
			res := <-created
			var s struct {
				SessionID string `json:"sessionId"`
			}
			_ = json.Unmarshal(res, &s)
			var handled []string
			for m := range c.Args.Handlers {
				handled = append(handled, m)
			}
			b, _ := json.Marshal(map[string]any{"sessionId": s.SessionID, "handled": handled})
			reply(c.ID, string(b))
		default:
			reply(c.ID, `{}`)
			if c.Cmd == "shutdown" {
				return
			}
		}
	}
}

// A driver that crashes, hangs or closes its runtime connection in the middle of the handler
// sweep ends that scenario on the spot, naming what happened, with its stderr tail and the
// transcript so far: the runtime sends no further case to the lost SDK (a sweep used to wait out
// each case's full wait on a closed connection, 15 minutes for one scenario), and the next
// scenario runs on a fresh driver.
func TestDriverLostMidSweepEndsItsScenario(t *testing.T) {
	const feature = `Feature: f
  @requires.rpc.handlers
  Scenario: sweep
    Given the application registered a handler for every runtime-to-SDK method of the runtime's schema
    When the runtime calls every registered handler with params generated from the runtime's schema
    Then every handler received the params the runtime sent

  Scenario: after
    When a session is created with no tools
`
	doc, err := schemagen.Load("testdata/sweepschema")
	require.NoError(t, err)
	cases := 0
	for _, m := range doc.Methods {
		if m.Group == "clientSession" {
			c, _ := doc.CasesOnce(m)
			cases += len(c)
		}
	}
	require.Greater(t, cases, 3*faultAt, "the sweep has cases left after the fault")
	tests := []struct {
		mode string
		want []string
	}{
		{"sweepexit", []string{"driver crashed", "exit status 3", "fatal: the SDK blew up in a handler", fmt.Sprintf("the sweep ended after %d of %d cases", faultAt-1, cases)}},
		{"sweephang", []string{"hung", "did not answer hello", "fatal: the SDK blew up in a handler"}},
		{"sweepclose", []string{"closed its connection to the runtime", "its driver still runs"}},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			outcomes, _ := runFake(t, feature, 5*time.Second, map[string]bool{"transport.tcp": true, "rpc.handlers": true},
				[]string{"FAKE_DRIVER=" + tt.mode}, func(tg *target) { tg.generated = doc })
			require.Len(t, outcomes, 2, "the run goes on after the fault")
			sweep, after := outcomes[0], outcomes[1]
			require.Error(t, sweep.Err)
			for _, w := range tt.want {
				assert.Contains(t, sweep.Err.Error(), w)
			}
			entries, err := transcript.Read(sweep.Transcript)
			require.NoError(t, err, "the transcript so far is kept")
			sent := 0
			for _, e := range entries {
				if e.Dir == transcript.RuntimeToSDK && strings.Contains(string(e.Frame), `"sessionFs.`) {
					sent++
				}
			}
			if !assert.Equal(t, faultAt, sent, "no case is sent to the SDK after the one it was lost on (of %d)", cases) {
				for _, e := range entries {
					t.Logf("%d %.1f %s %s %s %.160s", e.Seq, e.TMS, e.Conn, e.Dir, e.Text, e.Frame)
				}
			}
			assert.NoError(t, after.Err, "a fresh driver serves the next scenario")
		})
	}
}
