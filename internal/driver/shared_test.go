package driver

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMain lets this test binary act as a concurrent stand-in driver (not an SDK: it tests the
// harness's side of a shared driver).
func TestMain(m *testing.M) {
	if mode := os.Getenv("SHARED_STANDIN"); mode != "" {
		sharedStandIn(mode)
		return
	}
	os.Exit(m.Run())
}

// sharedStandIn serves every command in a goroutine of its own, as a driver.concurrent driver
// does: it logs each command line to stderr, emits an event for the command's session, waits
// args.delayMs, then answers with the session it was given. A "crash" command exits the whole
// process, a "hang" command never answers.
func sharedStandIn(mode string) {
	var mu sync.Mutex
	out := bufio.NewWriter(os.Stdout)
	write := func(format string, a ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(out, format+"\n", a...)
		_ = out.Flush()
	}
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		line := append([]byte(nil), sc.Bytes()...)
		fmt.Fprintf(os.Stderr, "got %s\n", line)
		go func() {
			var c struct {
				ID   int    `json:"id"`
				Cmd  string `json:"cmd"`
				Args struct {
					Session string `json:"session"`
					DelayMs int    `json:"delayMs"`
				} `json:"args"`
			}
			_ = json.Unmarshal(line, &c)
			h, _ := json.Marshal(c.Args.Session)
			switch c.Cmd {
			case "crash":
				fmt.Fprintln(os.Stderr, "fatal: the SDK blew up")
				os.Exit(3)
			case "hang":
				select {}
			}
			write(`{"event":"tool.invoked","args":{"session":%s,"tool":"t","arguments":{}}}`, h)
			time.Sleep(time.Duration(c.Args.DelayMs) * time.Millisecond)
			write(`{"id":%d,"outcome":"ok","result":{"session":%s}}`, c.ID, h)
		}()
	}
}

type recordedLines struct {
	mu    sync.Mutex
	lines []string
}

func (r *recordedLines) add(l Line) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lines = append(r.lines, string(l.Body))
}

func (r *recordedLines) all() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.lines...)
}

func startStandIn(t *testing.T) *Client {
	exe, err := os.Executable()
	require.NoError(t, err)
	c, err := Start(context.Background(), Local{Argv: []string{exe}, Env: []string{"SHARED_STANDIN=1"}})
	require.NoError(t, err)
	t.Cleanup(c.Kill)
	return c
}

// Two scenarios on one process, both with a session "s1", commands in flight at once: the wire
// carries each one's handles under its scope, and each scenario records only its own lines,
// with its own handles, the events routed by handle.
func TestSharedViewsKeepScenariosApart(t *testing.T) {
	c := startStandIn(t)
	views := []*Client{c.Share("j1"), c.Share("j2")}
	recs := []*recordedLines{{}, {}}
	var wg sync.WaitGroup
	for i, v := range views {
		v.SetSink(recs[i].add)
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := v.Call(context.Background(), "send", map[string]any{"session": "s1", "delayMs": 300}, 10*time.Second)
			require.NoError(t, err)
			assert.JSONEq(t, `{"session":"s1"}`, string(r.Result), "the scope is taken off the result")
		}()
	}
	wg.Wait()
	// stderr is read apart from stdout: it may lag behind the answers.
	inStderr := func(s string) func() bool { return func() bool { return strings.Contains(c.StderrTail(), s) } }
	assert.Eventually(t, inStderr(`"session":"j1/s1"`), 10*time.Second, 10*time.Millisecond)
	assert.Eventually(t, inStderr(`"session":"j2/s1"`), 10*time.Second, 10*time.Millisecond)
	for i, rec := range recs {
		lines := rec.all()
		require.Len(t, lines, 3, "scenario %d: its command, its event, its response", i)
		for _, l := range lines {
			assert.NotContains(t, l, "j1/")
			assert.NotContains(t, l, "j2/")
		}
		assert.Contains(t, lines[0], `"cmd":"send"`)
		assert.Contains(t, lines[1], `"event":"tool.invoked"`)
		assert.Contains(t, lines[1], `"session":"s1"`)
	}

	// rpcBatch's calls carry handles too.
	_, err := views[0].Call(context.Background(), "rpcBatch", map[string]any{"calls": []any{
		map[string]any{"session": "s2", "method": "m", "params": json.RawMessage(`{"n":12345678901234567890}`)}}}, 10*time.Second)
	require.NoError(t, err)
	assert.Eventually(t, inStderr(`{"method":"m","params":{"n":12345678901234567890},"session":"j1/s2"}`), 10*time.Second,
		10*time.Millisecond, "nested handles scoped, every other value byte for byte")
}

// A driver that dies with several scenarios in flight ends each of them with its stderr tail;
// one that hangs on one scenario's command is killed by that scenario (as the steps do), and the
// others in flight end naming why.
func TestSharedDriverFaultEndsEveryScenarioInFlight(t *testing.T) {
	for _, fault := range []string{"crash", "hang"} {
		t.Run(fault, func(t *testing.T) {
			c := startStandIn(t)
			var wg sync.WaitGroup
			errs := make([]error, 3)
			for i := range errs {
				v := c.Share(fmt.Sprintf("j%d", i))
				wg.Add(1)
				go func() {
					defer wg.Done()
					_, errs[i] = v.Call(context.Background(), "send", map[string]any{"session": "s1", "delayMs": 60_000}, time.Minute)
				}()
			}
			// The three are in flight once the stand-in has logged them.
			require.Eventually(t, func() bool { return strings.Count(c.StderrTail(), "got ") == 3 }, 10*time.Second, 10*time.Millisecond)
			v := c.Share("bad")
			_, err := v.Call(context.Background(), fault, map[string]any{"session": "s1"}, 300*time.Millisecond)
			var f *Failure
			require.True(t, errors.As(err, &f), "%v", err)
			if fault == "hang" {
				assert.Equal(t, "timed out", f.Kind)
				v.Kill()
			}
			wg.Wait()
			for i, err := range errs {
				require.True(t, errors.As(err, &f), "scenario %d: %v", i, err)
				assert.Equal(t, "crashed", f.Kind)
				assert.Contains(t, f.Error(), `got {"args":{"delayMs":60000,"session":"j`, "the stderr tail")
				if fault == "hang" {
					assert.Contains(t, f.Error(), `it was ended after a "hang" command of another scenario: timed out`)
				} else {
					assert.Contains(t, f.Error(), "fatal: the SDK blew up")
				}
			}
		})
	}
}
