package standin

import (
	"encoding/json"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/copilot-sdk-conformance/conformance/internal/wire"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sdk is a minimal raw JSON-RPC peer standing in for an SDK's transport in these tests.
type sdk struct {
	t    testing.TB
	c    net.Conn
	r    *wire.Reader
	w    *wire.Writer
	next int
	// frames the runtime sent that were not the awaited response
	seen []wire.Message
}

func dial(t testing.TB, addr string) *sdk {
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return &sdk{t: t, c: c, r: wire.NewReader(c), w: wire.NewWriter(c)}
}

func (s *sdk) read() wire.Message {
	s.t.Helper()
	require.NoError(s.t, s.c.SetReadDeadline(time.Now().Add(5*time.Second)))
	body, err := s.r.Next()
	require.NoError(s.t, err)
	var m wire.Message
	require.NoError(s.t, json.Unmarshal(body, &m))
	return m
}

// call sends a request and returns its response, keeping notifications that arrive before it.
func (s *sdk) call(method string, params any) wire.Message {
	s.t.Helper()
	s.next++
	p, _ := json.Marshal(params)
	body, _ := json.Marshal(wire.Message{JSONRPC: "2.0", ID: json.RawMessage(fmt.Sprint(s.next)), Method: method, Params: p})
	require.NoError(s.t, s.w.Write(body))
	for {
		m := s.read()
		if m.IsResponse() && string(m.ID) == fmt.Sprint(s.next) {
			return m
		}
		s.seen = append(s.seen, m)
	}
}

// until reads notifications until one of event type typ arrives, returning its data.
func (s *sdk) until(typ string) map[string]any {
	s.t.Helper()
	for {
		var m wire.Message
		if len(s.seen) > 0 {
			m, s.seen = s.seen[0], s.seen[1:]
		} else {
			m = s.read()
		}
		var p struct {
			Event struct {
				Type string         `json:"type"`
				Data map[string]any `json:"data"`
			} `json:"event"`
		}
		if m.Method == "session.event" && json.Unmarshal(m.Params, &p) == nil && p.Event.Type == typ {
			return p.Event.Data
		}
	}
}

func start(t testing.TB) (*Server, *transcript.Recorder, string) {
	rec := transcript.Memory()
	srv := New(rec, Options{ToolTimeout: 5 * time.Second})
	addr, err := srv.Listen("127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	return srv, rec, addr
}

func TestAnswersLikeTheRuntime(t *testing.T) {
	_, _, addr := start(t)
	c := dial(t, addr)
	tests := []struct {
		method string
		params any
		want   string // result JSON, or "error:CODE"
	}{
		{"connect", map[string]any{}, `{"ok":true,"protocolVersion":3,"version":"0.1.0-conformance","taskKinds":["agent","shell"]}`},
		{"connect", map[string]any{"supportedTaskKinds": []string{"agent", "client", "shell"}}, `{"ok":true,"protocolVersion":3,"version":"0.1.0-conformance","taskKinds":["agent","shell","client"]}`},
		{"session.create", map[string]any{"sessionId": "s-1", "tools": []any{}}, `{"sessionId":"s-1","nativeSessionId":"s-1","isRemote":false,"mode":"interactive","workspacePath":null,
			"capabilities":{"ui":{"elicitation":false,"mcpApps":false,"canvases":false},"extensions":false},"modelState":{}}`},
		{"session.resume", map[string]any{"sessionId": "s-1", "requestElicitation": true, "model": "m", "reasoningEffort": "high"}, `{"sessionId":"s-1","nativeSessionId":"s-1","isRemote":false,"mode":"interactive","workspacePath":null,
			"capabilities":{"ui":{"elicitation":true,"mcpApps":false,"canvases":false},"extensions":false},"modelState":{"modelId":"m","reasoningEffort":"high"}}`},
		{"session.tools.set", map[string]any{"sessionId": "s-1", "tools": []any{}}, `{}`},
		{"session.options.update", map[string]any{"sessionId": "s-1"}, `{"success":true,"pluginHookCount":0}`},
		{"session.eventLog.registerInterest", map[string]any{"sessionId": "s-1"}, `{"handle":"h1"}`},
		{"session.detach", map[string]any{"sessionId": "s-1"}, `{"success":true}`},
		{"session.destroy", map[string]any{"sessionId": "s-1"}, `{"success":true}`},
		{"session.history.clearContext", map[string]any{"sessionId": "s-1", "prompt": "p"}, "error:-32000"},
		{"session.history.clearContext", map[string]any{"sessionId": "s-1", "prompt": ""}, "error:-32602"},
		{"session.tools.handlePendingToolCall", map[string]any{"sessionId": "s-1", "requestId": "nope"}, "error:-32602"},
		{"no.such.method", map[string]any{}, "error:-32601"},
	}
	for _, tt := range tests {
		t.Run(tt.method, func(t *testing.T) {
			m := c.call(tt.method, tt.params)
			if code, isErr := cutPrefix(tt.want, "error:"); isErr {
				require.NotNil(t, m.Error, "want an error, got %s", m.Result)
				assert.Equal(t, code, fmt.Sprint(m.Error.Code))
				return
			}
			require.Nil(t, m.Error)
			var got map[string]any
			require.NoError(t, json.Unmarshal(m.Result, &got))
			if at, has := got["startTime"]; has { // the real runtime's millisecond ISO 8601 time
				_, err := time.Parse("2006-01-02T15:04:05.000Z07:00", at.(string))
				assert.NoError(t, err)
				delete(got, "startTime")
			}
			b, _ := json.Marshal(got)
			assert.JSONEq(t, tt.want, string(b))
		})
	}
}

func cutPrefix(s, p string) (string, bool) {
	if len(s) >= len(p) && s[:len(p)] == p {
		return s[len(p):], true
	}
	return s, false
}

func TestTerminalToolEndsTheTurn(t *testing.T) {
	tests := []struct {
		name       string
		terminal   bool
		answer     map[string]any
		wantRounds int // assistant.turn_start events in the turn
	}{
		{"terminal success ends the turn", true, map[string]any{"result": "done"}, 1},
		{"terminal failure goes on", true, map[string]any{"error": "boom"}, 2},
		{"terminal failure inside result goes on", true, map[string]any{"result": map[string]any{"resultType": "failure", "error": "boom"}}, 2},
		{"non-terminal success goes on", false, map[string]any{"result": map[string]any{"resultType": "success", "textResultForLlm": "x"}}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, rec, addr := start(t)
			c := dial(t, addr)
			c.call("connect", map[string]any{})
			c.call("session.create", map[string]any{"sessionId": "s", "tools": []any{map[string]any{"name": "t", "isTerminal": tt.terminal}}})
			srv.AddTurn(Turn{Steps: []ModelStep{{Tool: "t"}}})
			c.call("session.send", map[string]any{"sessionId": "s", "prompt": "go"})
			req := c.until("external_tool.requested")
			// clearContext is served while the tool call is in flight.
			cleared := c.call("session.history.clearContext", map[string]any{"sessionId": "s", "prompt": "fresh"})
			require.Nil(t, cleared.Error)
			answer := map[string]any{"sessionId": "s", "requestId": req["requestId"]}
			for k, v := range tt.answer {
				answer[k] = v
			}
			assert.JSONEq(t, `{"success":true}`, string(c.call("session.tools.handlePendingToolCall", answer).Result))
			c.until("session.idle")
			rounds := 0
			for _, n := range transcript.Notifications(rec.Entries(), "session.event") {
				var p struct{ Event struct{ Type string } }
				_ = json.Unmarshal(n, &p)
				if p.Event.Type == "assistant.turn_start" {
					rounds++
				}
			}
			assert.Equal(t, tt.wantRounds, rounds)
		})
	}
}

func TestBadFramesAreRecordedAndTheConnectionSurvives(t *testing.T) {
	_, rec, addr := start(t)
	c := dial(t, addr)
	_, err := c.c.Write([]byte("Content-Length: 9\r\n\r\nnot json!"))
	require.NoError(t, err)
	m := c.read()
	require.NotNil(t, m.Error)
	assert.Equal(t, wire.CodeParseError, m.Error.Code)
	assert.Nil(t, c.call("connect", map[string]any{}).Error, "the connection serves the next frame")
	var bad []transcript.Entry
	for _, e := range rec.Entries() {
		if e.Error != "" {
			bad = append(bad, e)
		}
	}
	require.Len(t, bad, 1)
	assert.Equal(t, "not json!", bad[0].Raw)
	assert.Contains(t, bad[0].Error, "not JSON")
}

func TestConnectionsStaySeparate(t *testing.T) {
	_, rec, addr := start(t)
	a, b := dial(t, addr), dial(t, addr)
	a.call("connect", map[string]any{})
	b.call("connect", map[string]any{})
	a.call("session.create", map[string]any{"sessionId": "A"})
	reqs := transcript.Requests(rec.Entries(), "")
	require.Len(t, reqs, 3)
	assert.NotEqual(t, reqs[0].Conn, reqs[1].Conn, "two connections, two names")
	assert.Equal(t, reqs[0].Conn, reqs[2].Conn, "a's requests stay on a's connection")
}
