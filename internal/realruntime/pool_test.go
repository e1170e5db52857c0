package realruntime

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/copilot-sdk-conformance/conformance/internal/sdks"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/copilot-sdk-conformance/conformance/internal/wire"
)

// realBinary is the real runtime a run would use (the pinned Node SDK's), prepared into the
// harness's cache; the test is skipped where it cannot be.
func realBinary(t *testing.T) Config {
	t.Helper()
	if testing.Short() {
		t.Skip("starts the real runtime: not in -short mode")
	}
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	pins, err := sdks.LoadPins(filepath.Join(root, "fixtures", "sdks.yaml"))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	rb, err := sdks.PrepareRealRuntime(ctx, root, sdks.DefaultCacheRoot(), "", pins, io.Discard)
	if err != nil {
		t.Skipf("no real runtime here: %v", err)
	}
	return Config{Binary: rb.Path, Env: rb.Env}
}

// client is a raw JSON-RPC connection to a scenario's proxy, as an SDK's would be.
type client struct {
	t  *testing.T
	w  *wire.Writer
	r  *wire.Reader
	c  net.Conn
	id int
}

func dialProxy(t *testing.T, addr string) *client {
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	require.NoError(t, c.SetDeadline(time.Now().Add(time.Minute)))
	cl := &client{t: t, w: wire.NewWriter(c), r: wire.NewReader(c), c: c}
	cl.call("connect", map[string]any{})
	return cl
}

// call sends a request and returns its answer's result, or its error's message.
func (cl *client) call(method string, params any) (json.RawMessage, string) {
	cl.id++
	req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": cl.id, "method": method, "params": params})
	require.NoError(cl.t, cl.w.Write(req))
	for {
		body, err := cl.r.Next()
		require.NoError(cl.t, err, "waiting for the answer to %s", method)
		var m wire.Message
		if json.Unmarshal(body, &m) != nil || !m.IsResponse() || string(m.ID) != fmt.Sprint(cl.id) {
			continue
		}
		if m.Error != nil {
			return nil, m.Error.Message
		}
		return m.Result, ""
	}
}

func notes(rec *transcript.Recorder) string {
	var b strings.Builder
	for _, e := range rec.Entries() {
		if e.Dir == transcript.Note {
			b.WriteString(e.Text + "\n")
		}
	}
	return b.String()
}

// TestReusedRuntimeCarriesNothingOver: a runtime process the pool gives a second scenario is the
// first scenario's (reused, not started again), and nothing of the first scenario's sessions is
// left in it: sessions.list is empty, resuming the first scenario's session is refused, and no
// session folder is left under its HOME.
func TestReusedRuntimeCarriesNothingOver(t *testing.T) {
	cfg := realBinary(t)
	cfg.Pool = NewPool()
	defer cfg.Pool.Close() // after the second scenario gave the process back
	ctx := context.Background()

	rec1 := transcript.Memory()
	first, err := Start(ctx, rec1, cfg)
	require.NoError(t, err)
	addr, err := first.Listen("127.0.0.1:0")
	require.NoError(t, err)
	home := first.rt.home
	cl := dialProxy(t, addr)
	var ids []string
	for range 2 {
		res, msg := cl.call("session.create", map[string]any{})
		require.Empty(t, msg)
		var created struct {
			SessionID string `json:"sessionId"`
		}
		require.NoError(t, json.Unmarshal(res, &created))
		ids = append(ids, created.SessionID)
	}
	// One session has a turn (the scripted model's default reply): the runtime lists that one;
	// the other it does not list, and leaves its folder (sweep).
	_, msg := cl.call("session.send", map[string]any{"sessionId": ids[0], "prompt": "hello"})
	require.Empty(t, msg)
	wait, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	require.NoError(t, first.Wait(wait), "the turn ends")
	cl.c.Close()
	first.Close()
	assert.Contains(t, notes(rec1), "real runtime cleaned for the next scenario: 1 session(s) deleted")

	rec2 := transcript.Memory()
	second, err := Start(ctx, rec2, cfg)
	require.NoError(t, err)
	defer second.Close()
	require.Equal(t, home, second.rt.home, "the same process serves the second scenario")
	assert.Contains(t, notes(rec2), "reused: it served 1 scenario(s) before")
	addr, err = second.Listen("127.0.0.1:0")
	require.NoError(t, err)
	cl = dialProxy(t, addr)
	defer cl.c.Close()
	res, msg := cl.call("sessions.list", map[string]any{})
	require.Empty(t, msg)
	assert.JSONEq(t, `{"sessions":[]}`, string(res), "no session of the first scenario is listed")
	for _, id := range ids {
		_, msg := cl.call("session.resume", map[string]any{"sessionId": id})
		assert.Contains(t, msg, "Session not found", "the first scenario's session %s cannot be resumed", id)
		found, msg := cl.call("sessions.findByPrefix", map[string]any{"prefix": id[:8]})
		assert.Empty(t, msg)
		assert.NotContains(t, string(found), id, "nor found by its prefix")
	}
	last, msg := cl.call("sessions.getLastForContext", map[string]any{})
	assert.Empty(t, msg)
	assert.JSONEq(t, `{}`, string(last), "there is no last session")
	// Of HOME nothing is left but empty folders: no session's folder, no file.
	var files []string
	require.NoError(t, filepath.WalkDir(home, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, strings.TrimPrefix(p, home))
		}
		return err
	}))
	assert.Empty(t, files, "files left in the reused runtime's HOME")
	state, err := os.ReadDir(filepath.Join(home, ".copilot", "session-state"))
	require.NoError(t, err)
	assert.Empty(t, state, "session folders left")
}

// TestPrestartedRuntimeServesAScenario: a process started ahead of the scenarios serves one
// (not counted as reused: it served none before), and none is started for it.
func TestPrestartedRuntimeServesAScenario(t *testing.T) {
	cfg := realBinary(t)
	cfg.Pool = NewPool()
	cfg.Pool.Prestart(context.Background(), cfg, 1)
	require.Eventually(t, func() bool {
		cfg.Pool.mu.Lock()
		defer cfg.Pool.mu.Unlock()
		return len(cfg.Pool.idle[poolKey(cfg)]) == 1
	}, time.Minute, 10*time.Millisecond, "the prestarted process is in the pool")
	rec := transcript.Memory()
	p, err := Start(context.Background(), rec, cfg)
	require.NoError(t, err)
	p.Close()
	assert.Contains(t, notes(rec), "real runtime started ahead of the scenarios")
	started, reused, _ := cfg.Pool.Close()
	assert.Equal(t, 1, started)
	assert.Equal(t, 0, reused)
}
