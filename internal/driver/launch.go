// Package driver starts a language driver and talks the driver protocol (drivers/PROTOCOL.md)
// with it: line-delimited JSON commands on its stdin, responses and events on its stdout.
//
// How a driver is started is behind Launcher, so a local process (now) and a container
// (docker/, later) are interchangeable.
package driver

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/procgroup"
)

// Launcher starts one driver process.
type Launcher interface {
	Start(ctx context.Context) (Process, error)
	// Describe says how the driver is started, for error messages and reproduction commands.
	Describe() string
}

// Process is a running driver.
type Process interface {
	Stdin() io.WriteCloser
	Stdout() io.Reader
	// StderrTail is the last bytes the driver wrote to stderr.
	StderrTail() string
	// Wait returns when the process has exited.
	Wait() error
	Kill()
}

// Measured is a Process that can say, once it has exited, when it did and how much CPU time
// (user and system) it used.
type Measured interface {
	Exit() (exited time.Time, cpu time.Duration, ok bool)
}

// ListedNames are the strings the surface generator puts in a list of strings it sets
// (surface.Variants). Every driver starts with a variable of each name (InheritedEnv), so an SDK
// option naming environment variables to remove from the runtime it starts (Rust's
// ClientOptions.env_remove) removes ones that are there, which the harness then sees.
var ListedNames = []string{"α-one", "two"}

// InheritedEnv is a variable per ListedNames entry.
func InheritedEnv() []string {
	out := make([]string, len(ListedNames))
	for i, n := range ListedNames {
		out[i] = n + "=inherited"
	}
	return out
}

// Local starts a driver as a local process.
type Local struct {
	Argv []string
	Dir  string
	Env  []string // added to the harness's environment
	// StderrLog, when set, receives everything the driver writes to stderr.
	StderrLog io.Writer
}

// Describe implements Launcher.
func (l Local) Describe() string {
	return fmt.Sprintf("(cd %s && %s)", l.Dir, strings.Join(l.Argv, " "))
}

// Start implements Launcher.
func (l Local) Start(ctx context.Context) (Process, error) {
	if len(l.Argv) == 0 {
		return nil, fmt.Errorf("driver has no command")
	}
	// A process group of its own, under a supervisor, killed as a whole when the driver exits, is
	// killed, or the harness dies (package procgroup): a JVM, a spawned runtime, a child that would
	// otherwise keep its stdout open or outlive the run.
	cmd := procgroup.Command(context.Background(), l.Argv[0], l.Argv[1:]...)
	cmd.Dir = l.Dir
	cmd.Env = append(append(cleanEnv(os.Environ()), InheritedEnv()...), l.Env...)
	tail := &Tail{Max: 64 << 10}
	if l.StderrLog != nil {
		cmd.Stderr = io.MultiWriter(tail, l.StderrLog)
	} else {
		cmd.Stderr = tail
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	// Not cmd.StdoutPipe: Wait closes that pipe as soon as the process exits, racing the reader
	// for the last lines (a crash's final output was read as "file already closed"). With our
	// own pipe the reader drains it to EOF; only if something the driver started still holds
	// it open after the driver exited is it closed, after a grace period.
	out, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout = w
	err = procgroup.Start(cmd)
	w.Close()
	if err != nil {
		out.Close()
		return nil, fmt.Errorf("start driver %s: %w", l.Describe(), err)
	}
	p := &localProcess{cmd: cmd, in: in, out: out, tail: tail, done: make(chan struct{})}
	go func() {
		p.err = procgroup.Wait(cmd)
		p.exited = time.Now()
		if st := cmd.ProcessState; st != nil {
			// wait4's rusage: the driver's CPU and that of the children it waited for.
			p.cpu = st.UserTime() + st.SystemTime()
		}
		close(p.done)
		time.AfterFunc(2*time.Second, func() { _ = out.Close() })
	}()
	return p, nil
}

// cleanEnv drops variables that would switch an SDK away from the runtime under test.
func cleanEnv(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if strings.HasPrefix(kv, "COPILOT_SDK_DEFAULT_CONNECTION=") || strings.HasPrefix(kv, "COPILOT_CLI_PATH=") {
			continue
		}
		out = append(out, kv)
	}
	return out
}

type localProcess struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  io.Reader
	tail *Tail
	done chan struct{}
	err  error
	// Set when the process has exited (done closed).
	exited time.Time
	cpu    time.Duration
}

// Exit implements Measured.
func (p *localProcess) Exit() (time.Time, time.Duration, bool) {
	select {
	case <-p.done:
		return p.exited, p.cpu, true
	default:
		return time.Time{}, 0, false
	}
}

func (p *localProcess) Stdin() io.WriteCloser { return p.in }
func (p *localProcess) Stdout() io.Reader     { return p.out }
func (p *localProcess) StderrTail() string    { return p.tail.String() }
func (p *localProcess) Wait() error           { <-p.done; return p.err }
func (p *localProcess) Kill()                 { procgroup.Kill(p.cmd) }

// Tail keeps the last Max bytes written to it.
type Tail struct {
	Max int
	mu  sync.Mutex
	buf []byte
}

func (t *Tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if len(t.buf) > t.Max {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-t.Max:]...)
	}
	return len(b), nil
}

func (t *Tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
