package driver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/wire"
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
		// Cancelled: the driver recognised the language's cancellation error (a command given
		// cancelAfterMs, PROTOCOL.md "The application cancels a call").
		Cancelled bool `json:"cancelled,omitempty"`
		// AfterCancelMs: with Cancelled, how long the call took to end after the cancellation
		// took effect, on the driver's own clock (nil from a driver that predates it).
		AfterCancelMs *int64 `json:"afterCancelMs,omitempty"`
		// Code and Data: the JSON-RPC error's code and data as the application read them from
		// the SDK's error (capability error.rpc.code, PROTOCOL.md "Errors"); each null when the
		// error carries none.
		Code json.RawMessage `json:"code,omitempty"`
		Data json.RawMessage `json:"data,omitempty"`
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

// EndsScenario says a driver failure ends its scenario: the driver is gone or was killed (a
// hang, a protocol break), so nothing later in the scenario can reach the SDK, and a step that
// loops over generated cases stops at it rather than sending the rest into the void.
func (f *Failure) EndsScenario() bool { return true }

// EndsScenario says whether err ends its scenario (a driver failure, or any error that says so).
func EndsScenario(err error) bool {
	var e interface{ EndsScenario() bool }
	return errors.As(err, &e) && e.EndsScenario()
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

// Concurrent is the hello capability of a driver that serves commands of several scenarios at
// once (PROTOCOL.md "Shared drivers").
const Concurrent = "driver.concurrent"

// conn is one running driver process: what every Client view of it shares.
type conn struct {
	proc Process
	desc string

	writeMu  sync.Mutex
	mu       sync.Mutex
	nextID   int
	waiting  map[int]*pending
	views    map[string]*Client // attached views by scope; "" is the process's own
	validate *Validator
	dead     chan struct{}
	deadErr  error
	// fault is the first hang or protocol break a view found; the process is then killed, and
	// the other scenarios it ends are told why.
	fault string

	// broken is closed at the first line that breaks the protocol itself (not UTF-8, not JSON,
	// over MaxLine, an answer to no command sent): every command waiting, and every later one,
	// fails at once with brokenWhy, naming the line, instead of waiting out its time-out.
	broken    chan struct{}
	brokenWhy string
	lines     int // lines read from the driver's stdout

	launched, ready time.Time // process start; hello answered (Handshake)
	answered        int       // responses read, hello included (a driver that died before its second crashed on start)
}

type pending struct {
	ch   chan *Response
	view *Client
}

// Client is a running driver as one scenario sees it. Start returns the process's own view
// (scope ""): its handles go to the driver as they are. Share makes another view of the same
// process for a scenario running alongside (a driver with the Concurrent capability): its
// handles go out prefixed with its scope, so that scenarios cannot collide, and the lines it
// records (its sink) are the scenario's own, with the prefix taken off again: a transcript
// reads the same whether the driver was shared or not.
type Client struct {
	*conn
	scope  string
	prefix []byte // scope + "/" (nil for the process's own view)

	sinkMu sync.Mutex
	sink   func(Line)
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
	cn := &conn{proc: p, desc: l.Describe(), waiting: map[int]*pending{}, views: map[string]*Client{}, dead: make(chan struct{}), broken: make(chan struct{}), launched: launched}
	c := &Client{conn: cn}
	cn.views[""] = c
	go cn.readLoop()
	return c, nil
}

// SetValidator turns on validation of every line the driver writes.
func (c *Client) SetValidator(v *Validator) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.validate = v
}

// Share is a new view of the driver process for one more scenario, its handles prefixed with
// scope (unique among the process's attached views); Detach ends it.
func (c *Client) Share(scope string) *Client {
	v := &Client{conn: c.conn, scope: scope, prefix: []byte(scope + "/")}
	c.mu.Lock()
	c.views[scope] = v
	c.mu.Unlock()
	return v
}

// Detach ends a view made by Share: lines for its scope are no longer routed to it.
func (c *Client) Detach() {
	if c.scope == "" {
		return
	}
	c.mu.Lock()
	if c.views[c.scope] == c {
		delete(c.views, c.scope)
	}
	c.mu.Unlock()
}

// Process is the process's own view (the one Start returned), the same for every view of it.
func (c *Client) Process() *Client {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.views[""]
}

// SetSink sets where every line of this view in both directions goes (the current scenario's
// transcript).
func (c *Client) SetSink(fn func(Line)) {
	c.sinkMu.Lock()
	defer c.sinkMu.Unlock()
	c.sink = fn
}

func (c *Client) emit(l Line) {
	c.sinkMu.Lock()
	fn := c.sink
	c.sinkMu.Unlock()
	if fn != nil {
		fn(l)
	}
}

// route gives a line from the driver to the view it belongs to: a response to the view that
// sent the command, an event to the view whose scope prefixes its session or client handle
// (with the prefix taken off). A line that names no attached view (a stray line, an event of an
// unknown handle) goes to the process's own view when it records, else to every attached view:
// no scenario on the process may miss a protocol break.
func (cn *conn) route(l Line, to *Client) {
	cn.mu.Lock()
	if to == nil {
		to = cn.owner(l.Body)
	}
	var all []*Client
	if to == nil {
		if root := cn.views[""]; root != nil && root.hasSink() {
			to = root
		} else {
			for _, v := range cn.views {
				all = append(all, v)
			}
		}
	}
	cn.mu.Unlock()
	if to != nil {
		all = []*Client{to}
	}
	for _, v := range all {
		if len(v.prefix) > 0 {
			l.Body = bytes.ReplaceAll(l.Body, v.prefix, nil)
		}
		v.emit(l)
	}
}

func (c *Client) hasSink() bool {
	c.sinkMu.Lock()
	defer c.sinkMu.Unlock()
	return c.sink != nil
}

// owner is the attached view whose scope prefixes an event's session or client handle (cn.mu
// held).
func (cn *conn) owner(line []byte) *Client {
	var ev struct {
		Args struct {
			Session string `json:"session"`
			Client  string `json:"client"`
		} `json:"args"`
	}
	if len(cn.views) <= 1 || json.Unmarshal(line, &ev) != nil {
		return nil
	}
	for _, h := range []string{ev.Args.Session, ev.Args.Client} {
		if scope, _, ok := strings.Cut(h, "/"); ok {
			if v := cn.views[scope]; v != nil {
				return v
			}
		}
	}
	return nil
}

// MaxLine is the longest line the harness reads from a driver (drivers/PROTOCOL.md "Transport"),
// the same bound as a frame from an SDK (wire.DefaultMaxFrame): a longer one breaks the protocol.
const MaxLine = wire.DefaultMaxFrame

// KeptPrefix is how much of a line over MaxLine the transcript keeps.
const KeptPrefix = 4 << 10

// drainLimit is how far a line over MaxLine is read, to give its size, before the harness gives
// up on finding its end (a driver writing an endless line).
const drainLimit = 4 * MaxLine

func (c *conn) readLoop() {
	br := bufio.NewReaderSize(c.proc.Stdout(), 64<<10)
	var rerr error
	for {
		line, size, err := readLine(br)
		if size == 0 && err != nil {
			if err != io.EOF {
				rerr = err
			}
			break
		}
		c.mu.Lock()
		c.lines++
		n := c.lines
		v := c.validate
		c.mu.Unlock()
		if size > drainLimit {
			c.breakLine(Line{Body: line, Err: fmt.Errorf("stdout line %d has no end after %d bytes, over the %d-byte limit of a protocol line; its first %d bytes are kept", n, size, MaxLine, len(line))})
			break
		}
		if size > MaxLine {
			c.breakLine(Line{Body: line, Err: fmt.Errorf("stdout line %d is %d bytes, over the %d-byte limit of a protocol line; its first %d bytes are kept", n, size, MaxLine, len(line))})
			continue
		}
		if i := wire.InvalidUTF8(line); i >= 0 {
			c.breakLine(Line{Body: line, Err: fmt.Errorf("stdout line %d is not UTF-8 (byte 0x%02x at offset %d)", n, line[i], i)})
			continue
		}
		l, r := decodeLine(line, v)
		if r == nil {
			if isNotProtocol(l.Err) {
				l.Err = fmt.Errorf("stdout line %d: %w", n, l.Err)
				c.breakLine(l)
				continue
			}
			c.route(l, nil)
			continue
		}
		c.mu.Lock()
		p := c.waiting[r.ID]
		delete(c.waiting, r.ID)
		c.answered++
		sent := c.nextID
		c.mu.Unlock()
		if p == nil {
			why := "an id the harness never used"
			if r.ID >= 1 && r.ID <= sent {
				why = "a command already answered"
			}
			l.Err = fmt.Errorf("stdout line %d answers %s (id %d)", n, why, r.ID)
			c.breakLine(l)
			continue
		}
		c.route(l, p.view)
		p.ch <- r
	}
	if rerr != nil {
		// A broken pipe: the driver cannot be read any further, so it is ended rather than
		// left blocked on a full stdout.
		c.route(Line{Err: fmt.Errorf("reading the driver's stdout: %w", rerr)}, nil)
		c.proc.Kill()
	}
	err := c.proc.Wait()
	if rerr != nil {
		err = fmt.Errorf("stdout unreadable (%v); killed", rerr)
	}
	c.mu.Lock()
	c.deadErr = err
	c.mu.Unlock()
	close(c.dead)
}

// readLine reads one line (without its newline) and its size in bytes. A line over MaxLine is
// read to its end but only its first KeptPrefix bytes are kept, so a driver cannot make the
// harness hold more than MaxLine of one line; a line still going past drainLimit is given up on
// (size > drainLimit). size is 0 only at the end of the stream.
func readLine(br *bufio.Reader) (line []byte, size int, err error) {
	// The chunks are copied and joined once at the end rather than appended to one growing
	// slice: the growth of a 16 MiB slice alone allocates some 80 MiB.
	var chunks [][]byte
	var over []byte // the kept prefix, once the line is past MaxLine
	for {
		chunk, err := br.ReadSlice('\n')
		size += len(chunk)
		switch {
		case over != nil:
		case size <= MaxLine+1:
			chunks = append(chunks, append([]byte(nil), chunk...))
		default:
			over = make([]byte, 0, KeptPrefix)
			for _, c := range chunks {
				over = append(over, c[:min(len(c), KeptPrefix-len(over))]...)
			}
			chunks = nil
		}
		if err == bufio.ErrBufferFull && size <= drainLimit {
			continue
		}
		if over != nil {
			if err == nil {
				size--
			}
			return over, size, err
		}
		line = bytes.Join(chunks, nil)
		if err == nil {
			size--
			line = line[:len(line)-1]
		}
		return line, size, err
	}
}

// breakLine records a line that breaks the protocol itself and ends the driver: the commands
// waiting on it, and every later one, fail at once naming the line (Call).
func (c *conn) breakLine(l Line) {
	c.route(l, nil)
	c.mu.Lock()
	first := c.brokenWhy == ""
	if first {
		c.brokenWhy = l.Err.Error()
		if c.fault == "" {
			c.fault = "a protocol break: " + c.brokenWhy
		}
		close(c.broken)
	}
	c.mu.Unlock()
	if first {
		c.proc.Kill()
	}
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
		return Line{Body: line, Err: notProtocol{fmt.Errorf("not a protocol line (stdout must carry only protocol JSON): %w", err)}}, nil
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

// notProtocol is a line that is not a protocol message at all (not JSON, or neither a response
// nor an event), as opposed to one that breaks the schema.
type notProtocol struct{ error }

func (e notProtocol) Unwrap() error { return e.error }

func isNotProtocol(err error) bool {
	var np notProtocol
	return errors.As(err, &np)
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

// Answered is how many responses the driver has given (its hello included).
func (c *Client) Answered() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.answered
}

// Exited is the failure of a driver process that has ended, nil while it runs: how it exited
// (status or signal) and its stderr tail, for a step that finds it gone between commands.
func (c *Client) Exited() *Failure {
	if c.Alive() {
		return nil
	}
	c.mu.Lock()
	e := c.deadErr
	c.mu.Unlock()
	if e == nil {
		e = errors.New("exit status 0")
	}
	if why := c.brokeWith(); why != "" {
		return c.failure("protocol", "", why)
	}
	return c.failure("crashed", "", fmt.Sprintf("exited (%v)", e))
}

// Call sends one command and waits for its response, for at most timeout. A crash, a hang or
// a malformed response returns a *Failure with the driver's stderr tail. A shared view sends
// its handles prefixed (scoped) and records the command as the scenario gave it.
func (c *Client) Call(ctx context.Context, cmd string, args any, timeout time.Duration) (*Response, error) {
	if args == nil {
		args = map[string]any{}
	}
	if why := c.brokeWith(); why != "" {
		return nil, c.failure("protocol", cmd, why)
	}
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	ch := make(chan *Response, 1)
	c.waiting[id] = &pending{ch: ch, view: c}
	c.mu.Unlock()
	line, err := json.Marshal(map[string]any{"id": id, "cmd": cmd, "args": args})
	if err != nil {
		return nil, err
	}
	wire := line
	if c.scope != "" {
		if wire, err = c.scoped(id, cmd, args); err != nil {
			return nil, err
		}
	}
	c.emit(Line{ToDriver: true, Body: line})
	c.writeMu.Lock()
	_, werr := c.proc.Stdin().Write(append(wire, '\n'))
	c.writeMu.Unlock()
	if werr != nil {
		return nil, c.failure("crashed", cmd, "cannot write to its stdin: "+werr.Error())
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-c.broken:
		return nil, c.failure("protocol", cmd, c.brokeWith())
	case r := <-ch:
		if r.violation != nil {
			return nil, c.failure("protocol", cmd, fmt.Sprintf("response %d: %v", id, r.violation))
		}
		switch r.Outcome {
		case OK, Error, Unsupported:
			return c.unscoped(r), nil
		}
		return nil, c.failure("protocol", cmd, fmt.Sprintf("response %d has outcome %q; want ok, error or unsupported", id, r.Outcome))
	case <-c.dead:
		// A response may have arrived just before the exit.
		select {
		case r := <-ch:
			return c.unscoped(r), nil
		default:
		}
		if why := c.brokeWith(); why != "" {
			return nil, c.failure("protocol", cmd, why)
		}
		c.mu.Lock()
		e, why := c.deadErr, c.fault
		c.mu.Unlock()
		detail := fmt.Sprintf("exited (%v) before answering", e)
		if why != "" && c.shared() {
			detail += "; the driver was shared with other scenarios, and it was ended after " + why
		}
		return nil, c.failure("crashed", cmd, detail)
	case <-timer.C:
		return nil, c.failure("timed out", cmd, fmt.Sprintf("no response within %s", timeout))
	case <-ctx.Done():
		return nil, c.failure("timed out", cmd, context.Cause(ctx).Error())
	}
}

// brokeWith is the line that broke the protocol, "" while none has.
func (c *conn) brokeWith() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.brokenWhy
}

// shared says whether this view is one of several scenarios on the process.
func (c *Client) shared() bool { return c.scope != "" }

// scoped is the command line with its handles prefixed by the view's scope: the "client" and
// "session" of the args and of each entry of "calls" (PROTOCOL.md "Shared drivers"). Only the
// top level is decoded, so every other value goes out byte for byte.
func (c *Client) scoped(id int, cmd string, args any) ([]byte, error) {
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, fmt.Errorf("the args of %q are not a JSON object: %w", cmd, err)
	}
	c.prefixHandles(top)
	if calls, ok := top["calls"]; ok {
		var list []map[string]json.RawMessage
		if json.Unmarshal(calls, &list) == nil {
			for _, call := range list {
				c.prefixHandles(call)
			}
			top["calls"], _ = json.Marshal(list)
		}
	}
	return json.Marshal(map[string]any{"id": id, "cmd": cmd, "args": top})
}

func (c *Client) prefixHandles(m map[string]json.RawMessage) {
	for _, k := range []string{"client", "session"} {
		var h string
		if v, ok := m[k]; ok && json.Unmarshal(v, &h) == nil {
			m[k], _ = json.Marshal(c.scope + "/" + h)
		}
	}
}

// unscoped is a response with the view's prefix taken off (an error message naming a handle).
func (c *Client) unscoped(r *Response) *Response {
	if c.scope == "" {
		return r
	}
	out := *r
	out.Result = bytes.ReplaceAll(r.Result, c.prefix, nil)
	if r.Error != nil {
		e := *r.Error
		e.Message = strings.ReplaceAll(e.Message, string(c.prefix), "")
		out.Error = &e
	}
	out.Reason = strings.ReplaceAll(r.Reason, string(c.prefix), "")
	return &out
}

// Fault is a Failure of this driver found by the caller (e.g. a stray stdout line), with the
// driver's stderr tail.
func (c *Client) Fault(kind, cmd, detail string) *Failure { return c.failure(kind, cmd, detail) }

func (c *Client) failure(kind, cmd, detail string) *Failure {
	if kind != "crashed" {
		c.mu.Lock()
		if c.fault == "" {
			c.fault = fmt.Sprintf("a %q command of another scenario: %s: %s", cmd, kind, detail)
		}
		c.mu.Unlock()
	}
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
