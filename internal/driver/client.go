package driver

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// ProtocolVersion is the driver protocol version the harness speaks.
const ProtocolVersion = 1

// Outcomes of a command.
const (
	OK          = "ok"
	Error       = "error"
	Unsupported = "unsupported"
)

// Response is a driver's answer to one command.
type Response struct {
	ID      int             `json:"id"`
	Outcome string          `json:"outcome"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error,omitempty"`
	Reason string `json:"reason,omitempty"`

	violation error // set when the line broke the protocol schema (validation on)
}

// ErrorText is "Type: message" for an error outcome.
func (r *Response) ErrorText() string {
	if r.Error == nil {
		return ""
	}
	if r.Error.Type == "" {
		return r.Error.Message
	}
	return r.Error.Type + ": " + r.Error.Message
}

// Line is one line the harness sent to or read from the driver, for the transcript.
type Line struct {
	ToDriver bool
	Body     []byte
	Err      error // set when a line from the driver is not a protocol message
}

// Failure is a driver that crashed, hung or broke the protocol. It carries the stderr tail.
type Failure struct {
	Kind   string // "crashed", "timed out", "protocol"
	Cmd    string
	Detail string
	Stderr string
}

func (f *Failure) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "driver %s", f.Kind)
	if f.Cmd != "" {
		fmt.Fprintf(&b, " during %q", f.Cmd)
	}
	if f.Detail != "" {
		fmt.Fprintf(&b, ": %s", f.Detail)
	}
	if s := strings.TrimSpace(f.Stderr); s != "" {
		lines := strings.Split(s, "\n")
		if len(lines) > 30 {
			lines = lines[len(lines)-30:]
		}
		fmt.Fprintf(&b, "\n--- driver stderr (tail) ---\n%s", strings.Join(lines, "\n"))
	}
	return b.String()
}

// Client is a running driver.
type Client struct {
	proc Process
	desc string

	writeMu  sync.Mutex
	mu       sync.Mutex
	nextID   int
	waiting  map[int]chan *Response
	sink     func(Line)
	validate *Validator
	dead     chan struct{}
	deadErr  error

	launched, ready time.Time // process start; hello answered (Handshake)
}

// Usage is what one driver process cost, for the timing report.
type Usage struct {
	Startup time.Duration // process start to its hello answered (0: no hello seen)
	// Life is process start to exit and CPU its user+system time; HasCPU is false while it runs
	// or when its launcher cannot tell (a container).
	Life   time.Duration
	CPU    time.Duration
	HasCPU bool
}

// Usage says what the driver cost; after Close it waits up to wait for the process to be reaped,
// for its CPU time.
func (c *Client) Usage(wait time.Duration) Usage {
	if wait > 0 {
		exited := make(chan struct{})
		go func() { _ = c.proc.Wait(); close(exited) }()
		select {
		case <-exited:
		case <-time.After(wait):
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var u Usage
	if !c.ready.IsZero() {
		u.Startup = c.ready.Sub(c.launched)
	}
	if m, ok := c.proc.(Measured); ok {
		if exited, cpu, done := m.Exit(); done {
			u.Life, u.CPU, u.HasCPU = exited.Sub(c.launched), cpu, true
		}
	}
	return u
}

// Start launches a driver and starts reading its stdout.
func Start(ctx context.Context, l Launcher) (*Client, error) {
	launched := time.Now()
	p, err := l.Start(ctx)
	if err != nil {
		return nil, err
	}
	c := &Client{proc: p, desc: l.Describe(), waiting: map[int]chan *Response{}, dead: make(chan struct{}), launched: launched}
	go c.readLoop()
	return c, nil
}

// SetValidator turns on validation of every line the driver writes.
func (c *Client) SetValidator(v *Validator) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.validate = v
}

// SetSink sets where every line in both directions goes (the current scenario's transcript).
func (c *Client) SetSink(fn func(Line)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sink = fn
}

func (c *Client) emit(l Line) {
	c.mu.Lock()
	fn := c.sink
	c.mu.Unlock()
	if fn != nil {
		fn(l)
	}
}

func (c *Client) readLoop() {
	sc := bufio.NewScanner(c.proc.Stdout())
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := append([]byte(nil), sc.Bytes()...)
		c.mu.Lock()
		v := c.validate
		c.mu.Unlock()
		l, r := decodeLine(line, v)
		c.emit(l)
		if r == nil {
			continue
		}
		c.mu.Lock()
		ch := c.waiting[r.ID]
		delete(c.waiting, r.ID)
		c.mu.Unlock()
		if ch != nil {
			ch <- r
		}
	}
	if err := sc.Err(); err != nil {
		// A line past the bound (or a broken pipe): the driver cannot be read any further, so
		// it is ended rather than left blocked on a full stdout.
		c.emit(Line{Err: fmt.Errorf("reading the driver's stdout: %w", err)})
		c.proc.Kill()
	}
	err := c.proc.Wait()
	if serr := sc.Err(); serr != nil {
		err = fmt.Errorf("stdout unreadable (%v); killed", serr)
	}
	c.mu.Lock()
	c.deadErr = err
	c.mu.Unlock()
	close(c.dead)
}

// decodeLine reads one line the driver wrote: what goes to the transcript (with the reason when
// it is not a protocol line or breaks the schema of v) and the response it carries, if any.
func decodeLine(line []byte, v *Validator) (Line, *Response) {
	var probe struct {
		ID    *int   `json:"id"`
		Event string `json:"event"`
	}
	if err := json.Unmarshal(line, &probe); err != nil || (probe.ID == nil && probe.Event == "") {
		if err == nil {
			err = errors.New("neither a response (id) nor an event")
		}
		return Line{Body: line, Err: fmt.Errorf("not a protocol line (stdout must carry only protocol JSON): %w", err)}, nil
	}
	var violation error
	if v != nil {
		violation = v.Line(line)
	}
	l := Line{Body: line, Err: violation}
	if probe.ID == nil {
		return l, nil
	}
	var r Response
	if err := json.Unmarshal(line, &r); err != nil {
		return l, nil
	}
	r.violation = violation
	return l, &r
}

// Alive reports whether the driver process is still running.
func (c *Client) Alive() bool {
	select {
	case <-c.dead:
		return false
	default:
		return true
	}
}

// Call sends one command and waits for its response, for at most timeout. A crash, a hang or
// a malformed response returns a *Failure with the driver's stderr tail.
func (c *Client) Call(ctx context.Context, cmd string, args any, timeout time.Duration) (*Response, error) {
	if args == nil {
		args = map[string]any{}
	}
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	ch := make(chan *Response, 1)
	c.waiting[id] = ch
	c.mu.Unlock()
	line, err := json.Marshal(map[string]any{"id": id, "cmd": cmd, "args": args})
	if err != nil {
		return nil, err
	}
	c.emit(Line{ToDriver: true, Body: line})
	c.writeMu.Lock()
	_, werr := c.proc.Stdin().Write(append(line, '\n'))
	c.writeMu.Unlock()
	if werr != nil {
		return nil, c.failure("crashed", cmd, "cannot write to its stdin: "+werr.Error())
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case r := <-ch:
		if r.violation != nil {
			return nil, c.failure("protocol", cmd, fmt.Sprintf("response %d: %v", id, r.violation))
		}
		switch r.Outcome {
		case OK, Error, Unsupported:
			return r, nil
		}
		return nil, c.failure("protocol", cmd, fmt.Sprintf("response %d has outcome %q; want ok, error or unsupported", id, r.Outcome))
	case <-c.dead:
		// A response may have arrived just before the exit.
		select {
		case r := <-ch:
			return r, nil
		default:
		}
		c.mu.Lock()
		e := c.deadErr
		c.mu.Unlock()
		return nil, c.failure("crashed", cmd, fmt.Sprintf("exited (%v) before answering", e))
	case <-timer.C:
		return nil, c.failure("timed out", cmd, fmt.Sprintf("no response within %s", timeout))
	case <-ctx.Done():
		return nil, c.failure("timed out", cmd, ctx.Err().Error())
	}
}

// Fault is a Failure of this driver found by the caller (e.g. a stray stdout line), with the
// driver's stderr tail.
func (c *Client) Fault(kind, cmd, detail string) *Failure { return c.failure(kind, cmd, detail) }

func (c *Client) failure(kind, cmd, detail string) *Failure {
	// Give stderr a moment to arrive after a crash.
	select {
	case <-c.dead:
	case <-time.After(100 * time.Millisecond):
	}
	return &Failure{Kind: kind, Cmd: cmd, Detail: detail, Stderr: c.proc.StderrTail()}
}

// StderrTail is the last output of the driver on stderr.
func (c *Client) StderrTail() string { return c.proc.StderrTail() }

// Close asks the driver to shut down and kills it if it has not exited within grace.
func (c *Client) Close(grace time.Duration) {
	if c.Alive() {
		_, _ = c.Call(context.Background(), "shutdown", nil, grace)
		_ = c.proc.Stdin().Close()
		select {
		case <-c.dead:
			return
		case <-time.After(grace):
		}
	}
	c.Kill()
}

// Kill ends the driver and what it started at once.
func (c *Client) Kill() {
	c.proc.Kill()
	select {
	case <-c.dead:
	case <-time.After(5 * time.Second): // a grandchild holding stdout open; give up on it
	}
}

// Done is closed when the driver process has exited.
func (c *Client) Done() <-chan struct{} { return c.dead }
