package harness

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/schemagen"
	"github.com/copilot-sdk-conformance/conformance/internal/wire"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakePendingDriver is an SDK stand-in for features/behaviour/pending_requests.feature: it
// connects to the scenario's runtime, opens the session, registers every handler it is asked to
// and the session's tools, and honours hold / release (PROTOCOL.md "Holding a handler"). How it
// serves the runtime's requests is the mode: pendingok serves each as it comes (a handler held
// holds only its own request); pendingserial serves them one at a time on its reader, as an SDK
// whose dispatch awaits each handler does (a held handler blocks every later request);
// pendingeager ignores the holds (the held request is answered before its release);
// pendingcrash serves as pendingok but exits on its second hold (a driver lost mid-check).
func fakePendingDriver(mode string) {
	var out sync.Mutex
	line := func(v any) {
		b, _ := json.Marshal(v)
		out.Lock()
		defer out.Unlock()
		fmt.Println(string(b))
	}
	reply := func(id int, result any) { line(map[string]any{"id": id, "outcome": "ok", "result": result}) }
	var gates sync.Map // kind -> chan struct{}
	held := func(kind string) {
		if g, ok := gates.Load(kind); ok && mode != "pendingeager" {
			<-g.(chan struct{})
		}
	}
	var conn net.Conn
	var w *wire.Writer
	var handle, sessionID string
	created := make(chan json.RawMessage, 1)
	var nextID struct {
		sync.Mutex
		n int
	}
	request := func(method string, params any) {
		nextID.Lock()
		nextID.n++
		id := nextID.n
		nextID.Unlock()
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		_ = w.Write(b)
	}
	serveOne := func(id json.RawMessage, method string, params json.RawMessage) {
		if method == "session.event" {
			var p struct {
				Event struct {
					Type string         `json:"type"`
					Data map[string]any `json:"data"`
				} `json:"event"`
			}
			if json.Unmarshal(params, &p) != nil || p.Event.Type != "external_tool.requested" {
				return
			}
			tool, _ := p.Event.Data["toolName"].(string)
			line(map[string]any{"event": "tool.invoked", "args": map[string]any{"session": handle, "tool": tool, "arguments": map[string]any{}}})
			held("tool " + tool)
			request("session.tools.handlePendingToolCall", map[string]any{"sessionId": sessionID, "requestId": p.Event.Data["requestId"], "result": "done"})
			return
		}
		if len(id) == 0 {
			return
		}
		var got any
		_ = json.Unmarshal(params, &got)
		line(map[string]any{"event": "rpc.handled", "args": map[string]any{"session": handle, "method": method, "params": got}})
		held(method)
		_ = w.Write([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"ok":true}}`, id)))
	}
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
				Params json.RawMessage `json:"params"`
				Result json.RawMessage `json:"result"`
			}
			_ = json.Unmarshal(f.Body, &m)
			switch {
			case m.Method == "" && string(m.ID) == "1":
				created <- m.Result // the answer to session.create
			case m.Method == "":
			case mode == "pendingserial":
				serveOne(m.ID, m.Method, m.Params)
			default:
				go serveOne(m.ID, m.Method, m.Params)
			}
		}
	}
	holds := 0
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var c struct {
			ID   int    `json:"id"`
			Cmd  string `json:"cmd"`
			Args struct {
				Address  string                     `json:"address"`
				Session  string                     `json:"session"`
				Method   string                     `json:"method"`
				Tool     string                     `json:"tool"`
				Handlers map[string]json.RawMessage `json:"handlers"`
				Tools    []struct {
					Name string `json:"name"`
				} `json:"tools"`
			} `json:"args"`
		}
		_ = json.Unmarshal(sc.Bytes(), &c)
		kind := c.Args.Method
		if kind == "" {
			kind = "tool " + c.Args.Tool
		}
		switch c.Cmd {
		case "hello":
			reply(c.ID, map[string]any{"protocolVersion": 1, "sdk": "fake", "version": "1.0.0",
				"capabilities": map[string]bool{"transport.tcp": true, "rpc.handlers": true, "handler.hold": true}})
		case "connect":
			var err error
			if conn, err = net.Dial("tcp", c.Args.Address); err != nil {
				fmt.Fprintln(os.Stderr, "dial:", err)
				os.Exit(1)
			}
			w = wire.NewWriter(conn)
			go serve(conn)
			reply(c.ID, map[string]any{})
		case "createSession":
			nextID.Lock()
			nextID.n = 1
			nextID.Unlock()
			var tools []map[string]any
			for _, t := range c.Args.Tools {
				tools = append(tools, map[string]any{"name": t.Name, "description": t.Name, "parameters": map[string]any{"type": "object"}})
			}
			b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "session.create", "params": map[string]any{"tools": tools}})
			_ = w.Write(b)
			var s struct {
				SessionID string `json:"sessionId"`
			}
			_ = json.Unmarshal(<-created, &s)
			handle, sessionID = c.Args.Session, s.SessionID
			var handled []string
			for m := range c.Args.Handlers {
				handled = append(handled, m)
			}
			reply(c.ID, map[string]any{"sessionId": s.SessionID, "handled": handled})
		case "hold":
			holds++
			if mode == "pendingcrash" && holds == 2 {
				fmt.Fprintln(os.Stderr, "fatal: the SDK blew up holding a handler")
				os.Exit(3)
			}
			gates.LoadOrStore(kind, make(chan struct{}))
			reply(c.ID, map[string]any{})
		case "release":
			if g, ok := gates.LoadAndDelete(kind); ok {
				close(g.(chan struct{}))
			}
			reply(c.ID, map[string]any{})
		default:
			reply(c.ID, map[string]any{})
			if c.Cmd == "shutdown" {
				return
			}
		}
	}
}

// The pending-request check fails an SDK that serves the runtime's requests one at a time (a held
// handler holds up every other kind, each pair named) and one that answers a held request before
// its release, and passes one that serves each request as it comes; a driver lost in the middle
// ends the check there, saying how far it got.
func TestPendingRequestCheckFailsWhenItMust(t *testing.T) {
	const feature = `Feature: f
  @requires.rpc.handlers @requires.handler.hold
  Scenario: pending
    Given a tool "lookup" that returns "looked up"
    And the application registered a handler for every runtime-to-SDK method of the runtime's schema
    When the runtime holds each kind of request in turn and sends every other kind while it is held
    Then the SDK answered every other kind while the held one was pending
    And the SDK answered each held request under its own id once released
`
	doc, err := schemagen.Load("testdata/sweepschema")
	require.NoError(t, err)
	// Two runtime-to-SDK methods and the tool: three kinds, six pairs (a serving SDK blocked on
	// each held kind costs the check's wait once per kind).
	var kept []schemagen.Method
	n := 0
	for _, m := range doc.Methods {
		if m.FromSDK || n < 2 && (m.Name == "sessionFs.exists" || m.Name == "sessionFs.readFile") {
			kept = append(kept, m)
			n += map[bool]int{true: 0, false: 1}[m.FromSDK]
		}
	}
	require.Equal(t, 2, n)
	doc.Methods = kept
	tests := []struct {
		mode      string
		want, not []string
	}{
		{mode: "pendingok"},
		{mode: "pendingserial", want: []string{
			"requests of another kind were not answered while one was held",
			"sessionFs.exists:\n    sessionFs.readFile (request #",
			"only after the held sessionFs.exists (request #",
			"tool call lookup:\n    sessionFs.exists (request #",
		}, not: []string{"before its release"}},
		{mode: "pendingeager", want: []string{
			"held requests were not answered under their own id once released",
			"sessionFs.readFile:\n    request #",
			"before its release",
		}, not: []string{"only after the held"}},
		{mode: "pendingcrash", want: []string{
			"the sweep ended after 1 of 3 cases; the last: sessionFs.readFile",
			"driver crashed", "fatal: the SDK blew up holding a handler",
		}, not: []string{"only after the held", "before its release"}},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			outcomes, _ := runFake(t, feature, 20*time.Second, map[string]bool{"transport.tcp": true, "rpc.handlers": true, "handler.hold": true},
				[]string{"FAKE_DRIVER=" + tt.mode}, func(tg *target) { tg.generated = doc })
			require.Len(t, outcomes, 1)
			o := outcomes[0]
			assert.Equal(t, "6: 3 kinds (sessionFs.exists, sessionFs.readFile, tool call lookup)", o.Observations["pending-request pairs (held, other)"])
			if len(tt.want) == 0 {
				require.NoError(t, o.Err)
				return
			}
			require.Error(t, o.Err)
			t.Log(o.Err)
			for _, w := range tt.want {
				assert.Contains(t, o.Err.Error(), w)
			}
			for _, w := range tt.not {
				assert.NotContains(t, o.Err.Error(), w)
			}
			if tt.mode != "pendingcrash" {
				assert.Equal(t, 1, strings.Count(o.Err.Error(), "\n  sessionFs.exists:"), "one group per held kind")
			}
		})
	}
}
