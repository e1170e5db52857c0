package realruntime

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/standin"
	"github.com/copilot-sdk-conformance/conformance/internal/wire"
)

// process is one real runtime process: its private HOME (and working directory under it), the
// TCP address it listens on and the tail of its stderr.
type process struct {
	cmd    *exec.Cmd
	argv   []string
	home   string
	addr   string
	errs   *tail
	served int // scenarios it served before the current one
}

// Pool keeps real runtime processes between scenarios, so that a run does not pay a runtime's
// start and first-turn warm-up per scenario: measured on 1.0.85, a fresh process spends about
// 0.3 s of CPU on its first turn (session.usage_info comes ~0.3 s after assistant.turn_start on
// an idle machine, 2-5 s on a loaded one) and a second session of the same process none; 143
// fresh runtimes took 25.6 s of the 32.9 s of CPU of a Node run of the suite.
//
// A process serves one scenario at a time. When the scenario ends, the proxy deletes every
// session the process holds (sessions.list, sessions.delete, then sessions.list must be empty)
// on a connection of its own, after the scenario's connections closed, then removes the folders
// left of sessions the runtime did not list and empties its working directory (sweep); only then
// does the process go back to the pool. A process that does not answer that, or was restarted for a
// scenario (a connection token), or exited, is killed instead. What a scenario can still see of
// an earlier one is the process itself: its HOME (no session's folder is left, nor any file: a
// test checks it, TestReusedRuntimeCarriesNothingOver), its uptime and its caches; no feature
// reads those.
type Pool struct {
	mu      sync.Mutex
	idle    map[string][]*process // by binary and environment
	closed  bool
	started int
	reused  int
}

// NewPool makes an empty pool; Close kills what it holds.
func NewPool() *Pool { return &Pool{idle: map[string][]*process{}} }

func poolKey(cfg Config) string { return cfg.Binary + "\x00" + strings.Join(cfg.Env, "\x00") }

// take gives an idle process for cfg, or nil.
func (pl *Pool) take(cfg Config) *process {
	if pl == nil {
		return nil
	}
	pl.mu.Lock()
	defer pl.mu.Unlock()
	k := poolKey(cfg)
	q := pl.idle[k]
	if len(q) == 0 {
		return nil
	}
	rt := q[len(q)-1]
	pl.idle[k] = q[:len(q)-1]
	if rt.served > 0 {
		pl.reused++
	}
	return rt
}

// Prestart starts up to n processes for cfg in the background, into the pool, so that the
// run's first scenarios find them there instead of each waiting for a start of its own (a few
// at a time machine-wide: startSlots); it returns at once. A scenario that finds none idle yet
// starts its own, as without it.
func (pl *Pool) Prestart(ctx context.Context, cfg Config, n int) {
	for range n {
		go func() {
			rt, err := launch(ctx, cfg)
			if err != nil {
				return // the scenarios start their own, and say why when they cannot
			}
			pl.mu.Lock()
			if pl.closed {
				pl.mu.Unlock()
				rt.kill()
				return
			}
			pl.started++
			pl.idle[poolKey(cfg)] = append(pl.idle[poolKey(cfg)], rt)
			pl.mu.Unlock()
		}()
	}
}

func (pl *Pool) count() {
	if pl != nil {
		pl.mu.Lock()
		pl.started++
		pl.mu.Unlock()
	}
}

// put returns a cleaned process; after Close it is killed.
func (pl *Pool) put(cfg Config, rt *process) {
	pl.mu.Lock()
	if !pl.closed {
		rt.served++
		pl.idle[poolKey(cfg)] = append(pl.idle[poolKey(cfg)], rt)
		pl.mu.Unlock()
		return
	}
	pl.mu.Unlock()
	rt.kill()
}

// Close kills every idle process and says how many processes the run started, how many
// scenarios a reused one served, and the CPU time the processes it killed used.
func (pl *Pool) Close() (started, reused int, cpu time.Duration) {
	pl.mu.Lock()
	pl.closed = true
	idle := pl.idle
	pl.idle = map[string][]*process{}
	pl.mu.Unlock()
	for _, q := range idle {
		for _, rt := range q {
			user, sys := rt.kill()
			cpu += user + sys
		}
	}
	return pl.started, pl.reused, cpu
}

// launch starts a runtime process with a private HOME (env added to its environment) and
// waits until it listens.
func launch(ctx context.Context, cfg Config, env ...string) (*process, error) {
	home, err := os.MkdirTemp(homeBase(), "conformance-real-home-")
	if err != nil {
		return nil, err
	}
	rt := &process{home: home, errs: &tail{max: 4096}, argv: append([]string{cfg.Binary}, Args...)}
	ok := false
	defer func() {
		if !ok {
			rt.kill()
		}
	}()
	work := filepath.Join(home, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		return nil, err
	}
	rt.cmd = exec.Command(rt.argv[0], rt.argv[1:]...)
	rt.cmd.Dir = work
	rt.cmd.Env = append(append(privateEnv(home), cfg.Env...), env...)
	// A group of its own, killed as a whole; not under procgroup's supervising shell, whose wait
	// would not carry the runtime's CPU time (bench --runtime reads it from ProcessState). The
	// kernel kills it if the harness dies without running any code (kill -9; Linux only).
	rt.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	deathSignal(rt.cmd.SysProcAttr)
	rt.cmd.Stderr = rt.errs
	out, err := rt.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	// Starting is CPU work (the npm CLI loads its bundle: about 1 s of CPU, against 0.05 s for
	// the platform package's runtime): a few at a time machine-wide, so that a full run does not
	// starve every start at once.
	select {
	case startSlots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-startSlots }()
	if err := rt.cmd.Start(); err != nil {
		rt.cmd = nil
		return nil, fmt.Errorf("starting the real runtime %s: %w", cfg.Binary, err)
	}
	port := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		sent := false
		for sc.Scan() {
			if m := listening.FindStringSubmatch(sc.Text()); m != nil && !sent {
				port <- m[1]
				sent = true
			}
		}
		if !sent {
			close(port)
		}
	}()
	wait := time.NewTimer(startTimeout)
	defer wait.Stop()
	select {
	case pn, alive := <-port:
		if !alive {
			return nil, fmt.Errorf("the real runtime %s exited before listening: %s", cfg.Binary, rt.errs.String())
		}
		rt.addr = "127.0.0.1:" + pn
	case <-wait.C:
		return nil, fmt.Errorf("the real runtime %s did not say it was listening within %s: %s", cfg.Binary, startTimeout, rt.errs.String())
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	ok = true
	return rt, nil
}

// homeBase is the folder the runtimes' HOMEs are made in: the runtime writes a session's state
// under HOME (workspace.yaml, checkpoints, locks: ~40 files opened and ~10 folders made per
// session.create), and on a RAM file system that costs a third less CPU (measured on 1.0.85
// here, 100 session.create in a row: 1.03-1.08 s of CPU with HOME on ext4, 0.65-0.68 s on
// /dev/shm, the system time 0.44-0.51 s against 0.16-0.17 s). Where there is no /dev/shm it is
// the usual temporary folder ("").
var homeBase = sync.OnceValue(func() string {
	const shm = "/dev/shm"
	d, err := os.MkdirTemp(shm, "conformance-probe-")
	if err != nil {
		return ""
	}
	_ = os.Remove(d)
	return shm
})

// kill ends the process group, waits for it and removes its HOME; it returns the CPU time the
// process used (zero when it never ran).
func (rt *process) kill() (user, sys time.Duration) {
	if rt.cmd != nil && rt.cmd.Process != nil {
		_ = syscall.Kill(-rt.cmd.Process.Pid, syscall.SIGKILL)
		_ = rt.cmd.Wait()
		if st := rt.cmd.ProcessState; st != nil {
			user, sys = st.UserTime(), st.SystemTime()
		}
	}
	if rt.home != "" {
		_ = os.RemoveAll(rt.home)
	}
	return user, sys
}

// clean deletes every session the process holds, on a connection of its own, and says how many
// it deleted; an error means the process must not serve another scenario.
func (rt *process) clean(timeout time.Duration) (int, error) {
	c, err := net.DialTimeout("tcp", rt.addr, timeout)
	if err != nil {
		return 0, err
	}
	c = standin.NewQuickAckConn(c) // sessions.delete answers in pieces, as the proxy's connections find (proxy.go)
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(timeout))
	w, r := wire.NewWriter(c), wire.NewReader(c)
	id := 0
	call := func(method string, params any, result any) error {
		id++
		req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		if err := w.Write(req); err != nil {
			return err
		}
		for {
			body, err := r.Next()
			if err != nil {
				return err
			}
			var m wire.Message
			if json.Unmarshal(body, &m) != nil || !m.IsResponse() || string(m.ID) != fmt.Sprint(id) {
				continue // notifications (session.lifecycle of the deleted sessions)
			}
			if m.Error != nil {
				return fmt.Errorf("%s: %s", method, m.Error.Message)
			}
			return json.Unmarshal(m.Result, result)
		}
	}
	var connected map[string]any
	if err := call("connect", map[string]any{}, &connected); err != nil {
		return 0, err
	}
	var list struct {
		Sessions []struct {
			SessionID string `json:"sessionId"`
		} `json:"sessions"`
	}
	if err := call("sessions.list", map[string]any{}, &list); err != nil {
		return 0, err
	}
	n := len(list.Sessions)
	for _, s := range list.Sessions {
		var done map[string]any
		if err := call("sessions.delete", map[string]any{"sessionId": s.SessionID}, &done); err != nil {
			return 0, err
		}
	}
	list.Sessions = nil
	if err := call("sessions.list", map[string]any{}, &list); err != nil {
		return 0, err
	}
	if len(list.Sessions) > 0 {
		return 0, fmt.Errorf("%d session(s) left after deleting them", len(list.Sessions))
	}
	return n, rt.sweep()
}

// sweep removes what the runtime leaves of sessions it no longer knows, and whatever a scenario
// left in the working directory: a session created without a turn is not listed, so not
// deleted, and its folder stays under HOME/.copilot/session-state (measured on 1.0.85: after
// its connection closed, sessions.list omits it, session.resume says "Session not found", and
// workspace.yaml, checkpoints/index.md and empty folders remain).
func (rt *process) sweep() error {
	for _, dir := range []string{filepath.Join(rt.home, ".copilot", "session-state"), filepath.Join(rt.home, "work")} {
		entries, err := os.ReadDir(dir)
		if err != nil && !os.IsNotExist(err) {
			return err
		}
		for _, e := range entries {
			if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}
