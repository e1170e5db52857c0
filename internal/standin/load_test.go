package standin

import (
	"encoding/json"
	"fmt"
	"net"
	goruntime "runtime"
	"sync"
	"testing"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/copilot-sdk-conformance/conformance/internal/wire"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Load shape: 64 connections at once, each sending thousands of requests, pipelined in rounds
// of pings followed by a session.send whose scripted turn streams events back.
const (
	loadConns     = 64
	loadRounds    = 250
	loadPings     = 7 // per round, sent without waiting, then one session.send: 2000 requests a connection
	loadIdleEvent = "session.idle"
)

// loadClient is one connection's peer. It keeps every frame it wrote and read, in order, so the
// transcript can be checked against what really crossed the wire.
type loadClient struct {
	sessionID      string
	sent, received [][]byte
}

func (lc *loadClient) run(tb testing.TB, addr string) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		tb.Error(err)
		return
	}
	defer c.Close()
	// No read or write deadline: on a loaded machine 64 connections of 2,000 requests each may
	// take minutes, and a deadline would make the exactly-once check fail for being slow (it once
	// did at load 50). A hang is still caught by go test's -timeout, with every goroutine's stack.
	r, w := wire.NewReader(c), wire.NewWriter(c)
	id := 0
	write := func(method string, params any) {
		id++
		p, _ := json.Marshal(params)
		body, _ := json.Marshal(wire.Message{JSONRPC: "2.0", ID: json.RawMessage(fmt.Sprint(id)), Method: method, Params: p})
		lc.sent = append(lc.sent, body)
		if err := w.Write(body); err != nil {
			tb.Error(err)
		}
	}
	// read until want responses and (when idle) a session.idle event have arrived
	read := func(want int, idle bool) bool {
		for want > 0 || idle {
			body, err := r.Next()
			if err != nil {
				tb.Errorf("%s: %v", lc.sessionID, err)
				return false
			}
			lc.received = append(lc.received, body)
			var m struct {
				ID     json.RawMessage `json:"id"`
				Params struct {
					Event struct{ Type string } `json:"event"`
				} `json:"params"`
			}
			_ = json.Unmarshal(body, &m)
			if len(m.ID) > 0 {
				want--
			} else if m.Params.Event.Type == loadIdleEvent {
				idle = false
			}
		}
		return true
	}
	write("session.create", map[string]any{"sessionId": lc.sessionID})
	if !read(1, false) {
		return
	}
	for round := 0; round < loadRounds; round++ {
		for i := 0; i < loadPings; i++ {
			write("ping", map[string]any{"message": fmt.Sprintf("r%d-%d", round, i)})
		}
		write("session.send", map[string]any{"sessionId": lc.sessionID, "prompt": fmt.Sprintf("round %d", round)})
		if !read(loadPings+1, true) {
			return
		}
	}
}

// runLoad runs one load round against a fresh server and checks that the transcript holds
// every frame exactly once, in order, per connection and direction (the checks are left out of
// a benchmark's time). It returns the frame count.
func runLoad(tb testing.TB) int {
	rec := transcript.Memory()
	srv := New(rec, Options{ToolTimeout: 30 * time.Second})
	addr, err := srv.Listen("127.0.0.1:0")
	require.NoError(tb, err)
	clients := make([]*loadClient, loadConns)
	var wg sync.WaitGroup
	for i := range clients {
		clients[i] = &loadClient{sessionID: fmt.Sprintf("load-%02d", i)}
		wg.Add(1)
		go func(lc *loadClient) {
			defer wg.Done()
			lc.run(tb, addr)
		}(clients[i])
	}
	wg.Wait()
	srv.Close()
	if b, ok := tb.(*testing.B); ok {
		b.StopTimer() // the checks below are not the runtime's work
		defer b.StartTimer()
	}

	// Group the recorded frames by connection and direction; name each connection by the
	// sessionId of its first request.
	type dirs struct{ in, out [][]byte }
	byConn := map[string]*dirs{}
	frames := 0
	for _, e := range rec.Entries() {
		if e.Dir != transcript.SDKToRuntime && e.Dir != transcript.RuntimeToSDK {
			continue
		}
		require.NotEmpty(tb, e.Frame, "entry %d is not a well-formed frame: %s %s", e.Seq, e.Raw, e.Error)
		frames++
		d := byConn[e.Conn]
		if d == nil {
			d = &dirs{}
			byConn[e.Conn] = d
		}
		if e.Dir == transcript.SDKToRuntime {
			d.in = append(d.in, e.Frame)
		} else {
			d.out = append(d.out, e.Frame)
		}
	}
	require.Len(tb, byConn, loadConns, "one transcript connection per client")
	named := map[string]*dirs{}
	for _, d := range byConn {
		var first struct {
			Params struct{ SessionID string } `json:"params"`
		}
		require.NoError(tb, json.Unmarshal(d.in[0], &first))
		named[first.Params.SessionID] = d
	}
	for _, lc := range clients {
		d := named[lc.sessionID]
		require.NotNil(tb, d, "no recorded connection for %s", lc.sessionID)
		require.Equal(tb, len(lc.sent), len(d.in), "%s: frames sent vs recorded", lc.sessionID)
		for i := range lc.sent {
			require.JSONEq(tb, string(lc.sent[i]), string(d.in[i]), "%s: sent frame %d", lc.sessionID, i)
		}
		// Everything the runtime recorded was received, in the recorded order (frames still in
		// flight when the client stopped reading are the only allowed extra at the end).
		require.GreaterOrEqual(tb, len(d.out), len(lc.received), "%s: frames received vs recorded", lc.sessionID)
		for i := range lc.received {
			require.JSONEq(tb, string(d.out[i]), string(lc.received[i]), "%s: received frame %d", lc.sessionID, i)
		}
	}
	return frames
}

// TestLoadRecordsEveryFrameOnce runs the load once as a test (not timed), so the exactly-once
// and in-order checks run in every `go test`.
func TestLoadRecordsEveryFrameOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("load: not in -short mode")
	}
	frames := runLoad(t)
	assert.Greater(t, frames, loadConns*loadRounds*(loadPings+1)*2)
}

// BenchmarkLoad measures the recording runtime under 64 concurrent loopback connections,
// reporting recorded frames per second per core (the clients run in the same process and share
// the cores): go test -run '^$' -bench Load ./internal/standin
func BenchmarkLoad(b *testing.B) {
	frames := 0
	for i := 0; i < b.N; i++ {
		frames += runLoad(b)
	}
	b.ReportMetric(float64(frames)/b.Elapsed().Seconds()/float64(goruntime.GOMAXPROCS(0)), "frames/s/core")
	b.ReportMetric(float64(frames)/float64(b.N), "frames/op")
}
