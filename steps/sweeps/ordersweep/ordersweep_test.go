package ordersweep

import (
	"encoding/json"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/standin"
	"github.com/copilot-sdk-conformance/conformance/internal/surface"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/copilot-sdk-conformance/conformance/internal/wire"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// standInSDK is a misbehaving (or well-behaved) SDK stand-in over a real connection to the
// stand-in runtime: per case it connects, opens the session and sends what its option adds,
// waiting for the opening's answer first or not.
type standInSDK struct {
	t    *testing.T
	addr string
}

type step struct {
	method string
	params map[string]any
	// early: sent right after the opening, before its answer arrives
	early bool
}

// run opens one connection, sends connect, the opening (method, with sessionId sid and extra
// params), the steps, and waits for every answer.
func (s standInSDK) run(method, sid string, extra map[string]any, steps []step) {
	c, err := net.Dial("tcp", s.addr)
	require.NoError(s.t, err)
	defer c.Close()
	r, w := wire.NewReader(c), wire.NewWriter(c)
	next, pending := 0, 0
	send := func(m string, p map[string]any) {
		next++
		pending++
		raw, _ := json.Marshal(p)
		body, _ := json.Marshal(wire.Message{JSONRPC: "2.0", ID: json.RawMessage(fmt.Sprint(next)), Method: m, Params: raw})
		require.NoError(s.t, w.Write(body))
	}
	await := func(n int) {
		for ; n > 0; n-- {
			require.NoError(s.t, c.SetReadDeadline(time.Now().Add(5*time.Second)))
			for {
				body, err := r.Next()
				require.NoError(s.t, err)
				var m wire.Message
				require.NoError(s.t, json.Unmarshal(body, &m))
				if m.IsResponse() {
					pending--
					break
				}
			}
		}
	}
	send("connect", map[string]any{})
	await(1)
	open := map[string]any{"sessionId": sid}
	for k, v := range extra {
		open[k] = v
	}
	send(method, open)
	for _, st := range steps {
		if st.early {
			p := map[string]any{"sessionId": sid}
			for k, v := range st.params {
				p[k] = v
			}
			send(st.method, p)
		}
	}
	await(pending)
	for _, st := range steps {
		if !st.early {
			p := map[string]any{"sessionId": sid}
			for k, v := range st.params {
				p[k] = v
			}
			send(st.method, p)
			await(1)
		}
	}
}

// The sweep's judge, on what a stand-in SDK really sent the stand-in runtime holding each opening:
// it fails when the SDK names the session before the opening's answer, sends a request its
// option does not explain, re-orders or drops the baseline's requests, and passes when the SDK
// waits and adds only requests that carry the option. Every failure names the option and the
// request.
func TestOrderSweepCatchesAMisbehavingSDK(t *testing.T) {
	mode := &surface.Entry{Owner: "sessionConfig", Name: "agentMode", Kind: "field", Shape: "string"}
	hook := &surface.Entry{Owner: "sessionConfig", Name: "onUserInputRequest", Kind: "handler", Shape: "handler"}
	baseSteps := []step{{method: "session.tools.set", params: map[string]any{"tools": []any{}}}, {method: "session.model.getCurrent"}}
	tests := []struct {
		name  string
		entry *surface.Entry
		value any
		extra map[string]any // what the option puts in the opening itself
		steps []step         // what the client sends after the opening, with the option set
		want  []string       // substrings of the problems; none: passes
		// unexplained: the addition the judge cannot explain by the option (a handler's is then
		// tried against its event)
		unexplained []string
	}{
		{name: "waits, adds an options update carrying the value",
			entry: mode, value: "Grüße agentMode",
			steps: append(append([]step{}, baseSteps...), step{method: "session.options.update", params: map[string]any{"mode": "Grüße agentMode"}})},
		{name: "sends the options update before the create answer",
			entry: mode, value: "Grüße agentMode",
			steps: append([]step{{method: "session.options.update", params: map[string]any{"mode": "Grüße agentMode"}, early: true}}, baseSteps...),
			want:  []string{"sessionConfig.agentMode = s on session.create: session.options.update (seq", "named the session before its session.create", `was answered "Session not found`}},
		{name: "a baseline request sent early because of the option",
			entry: mode, value: "Grüße agentMode",
			steps: []step{{method: "session.tools.set", params: map[string]any{"tools": []any{}}, early: true}, {method: "session.model.getCurrent"}},
			want:  []string{"sessionConfig.agentMode = s on session.create: session.tools.set (seq"}},
		{name: "re-orders the baseline's requests",
			entry: mode, value: "Grüße agentMode", extra: map[string]any{"agentMode": "Grüße agentMode"},
			steps: []step{baseSteps[1], baseSteps[0]},
			want:  []string{"sessionConfig.agentMode = s on session.create: the requests went out as connect, session.create, session.model.getCurrent, session.tools.set"}},
		{name: "drops a baseline request",
			entry: mode, value: "Grüße agentMode", extra: map[string]any{"agentMode": "Grüße agentMode"},
			steps: baseSteps[:1],
			want:  []string{"sessionConfig.agentMode = s on session.create: the baseline's session.model.getCurrent not sent"}},
		{name: "adds a request that carries nothing of the option",
			entry: mode, value: "Grüße agentMode", extra: map[string]any{"agentMode": "Grüße agentMode"},
			steps:       append(append([]step{}, baseSteps...), step{method: "session.plan.read"}),
			unexplained: []string{"sessionConfig.agentMode = s on session.create: adds session.plan.read (seq"}},
		{name: "a handler's addition carrying the key it announced",
			entry: hook, extra: map[string]any{"requestUserInput": true},
			steps: append(append([]step{}, baseSteps...), step{method: "session.options.update", params: map[string]any{"requestUserInput": true}})},
		{name: "a handler's addition carrying nothing of it",
			entry: hook, extra: map[string]any{"requestUserInput": true},
			steps:       append(append([]step{}, baseSteps...), step{method: "session.eventLog.registerInterest", params: map[string]any{"eventType": "user_input.requested"}}),
			unexplained: []string{"handler sessionConfig.onUserInputRequest on session.create: adds session.eventLog.registerInterest"}},
	}
	for _, method := range []string{"session.create", "session.resume"} {
		for _, tt := range tests {
			t.Run(method+": "+tt.name, func(t *testing.T) {
				rec := transcript.Memory()
				srv := standin.New(rec, standin.Options{})
				addr, err := srv.Listen("127.0.0.1:0")
				require.NoError(t, err)
				t.Cleanup(srv.Close)
				srv.SetOpenDelay(50 * time.Millisecond)
				sdk := standInSDK{t: t, addr: addr}
				cases := []orderCase{{Request: method, SessionID: "base-1"}, {Request: method, SessionID: "base-2"},
					{Request: method, Entry: tt.entry, Value: tt.value, Variant: "s", SessionID: "case"}}
				sdk.run(method, "base-1", nil, baseSteps)
				sdk.run(method, "base-2", nil, baseSteps)
				sdk.run(method, "case", tt.extra, tt.steps)
				problems, unexplained, judged := judgeOrder(rec.Entries(), cases)
				assert.Equal(t, 1, judged[method][tt.entry.Kind], "the case was judged")
				var texts []string
				for _, a := range unexplained {
					texts = append(texts, a.Text)
				}
				checkAll := func(got, want []string, what string) {
					if len(want) == 0 {
						assert.Empty(t, got, what)
						return
					}
					joined := strings.Join(got, "\n")
					for _, w := range want {
						assert.Contains(t, joined, strings.ReplaceAll(w, "session.create", method), what)
					}
				}
				checkAll(problems, tt.want, "problems")
				checkAll(texts, tt.unexplained, "unexplained additions")
			})
		}
	}
}

// The judge reads the order the transcript recorded: the same two requests pass when the update
// follows the create's answer, and fail, naming the option and the request, when it precedes the
// answer or the create is never answered.
func TestOrderSweepJudgesTheRecordedOrder(t *testing.T) {
	create := `{"jsonrpc":"2.0","id":1,"method":"session.create","params":{"sessionId":"S"}}`
	update := `{"jsonrpc":"2.0","id":2,"method":"session.options.update","params":{"sessionId":"S","mode":"m"}}`
	cs := []orderCase{{Request: "session.create", SessionID: "S0"}, {Request: "session.create", Entry: &surface.Entry{Owner: "sessionConfig", Name: "mode", Kind: "field"}, Value: "m", Variant: "m", SessionID: "S"}}
	base := []frame{{dir: transcript.SDKToRuntime, body: `{"jsonrpc":"2.0","id":1,"method":"session.create","params":{"sessionId":"S0"}}`}, rt(okAnswer("1"))}
	w := func(frames ...frame) []transcript.Entry {
		rec := transcript.Memory()
		for _, f := range base {
			rec.Frame("c0", f.dir, []byte(f.body))
		}
		for _, f := range frames {
			rec.Frame("c1", f.dir, []byte(f.body))
		}
		return rec.Entries()
	}
	ok, _, _ := judgeOrder(w(sdk(create), rt(okAnswer("1")), sdk(update), rt(okAnswer("2"))), cs)
	assert.Empty(t, ok)
	bad, _, _ := judgeOrder(w(sdk(create), sdk(update), rt(okAnswer("1")), rt(okAnswer("2"))), cs)
	require.Len(t, bad, 1)
	assert.Contains(t, bad[0], "sessionConfig.mode = m on session.create: session.options.update (seq")
	never, _, _ := judgeOrder(w(sdk(create), sdk(update), rt(okAnswer("2"))), cs)
	require.NotEmpty(t, never)
	assert.Contains(t, never[0], "while its session.create")
}

// frame is one transcript line: its direction and body.
type frame struct{ dir, body string }

func sdk(b string) frame { return frame{transcript.SDKToRuntime, b} }
func rt(b string) frame  { return frame{transcript.RuntimeToSDK, b} }

func okAnswer(id string) string { return `{"jsonrpc":"2.0","id":` + id + `,"result":{}}` }

// BenchmarkJudgeOrder judges 200 option cases, each on a connection of its own, against one
// transcript, as the startup-order scenario does: go test -run '^$' -bench JudgeOrder ./steps/sweeps/ordersweep
func BenchmarkJudgeOrder(b *testing.B) {
	rec := transcript.Memory()
	cs := []orderCase{{Request: "session.create", SessionID: "S0"}}
	for i := range 201 {
		conn, sid := fmt.Sprintf("c%d", i), fmt.Sprintf("S%d", i)
		rec.Frame(conn, transcript.SDKToRuntime, []byte(`{"jsonrpc":"2.0","id":1,"method":"session.create","params":{"sessionId":"`+sid+`"}}`))
		rec.Frame(conn, transcript.RuntimeToSDK, []byte(okAnswer("1")))
		rec.Frame(conn, transcript.SDKToRuntime, []byte(`{"jsonrpc":"2.0","id":2,"method":"session.options.update","params":{"sessionId":"`+sid+`","mode":"m"}}`))
		rec.Frame(conn, transcript.RuntimeToSDK, []byte(okAnswer("2")))
		if i > 0 {
			cs = append(cs, orderCase{Request: "session.create", Entry: &surface.Entry{Owner: "sessionConfig", Name: "mode", Kind: "field"}, Value: "m", Variant: "m", SessionID: sid})
		}
	}
	entries := rec.Entries()
	for b.Loop() {
		judgeOrder(entries, cs)
	}
}
