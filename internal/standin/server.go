// Package runtime is the recording runtime: a stand-in for the Copilot CLI that answers the SDKs
// the way the real runtime does (each answer's shape is given beside its method in methods.go),
// plays a scripted agent loop, and records every frame in both directions into a transcript.
//
// One Server serves one scenario for one SDK: it may hold several connections at once (each
// named c1, c2, … in the transcript) and several sessions.
package standin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/schema"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/copilot-sdk-conformance/conformance/internal/wire"
)

// ProtocolVersion is the SDK protocol version the runtime speaks.
const ProtocolVersion = 3

// Version is what the runtime reports as its own version in connect.
const Version = "0.1.0-conformance"

// Options configure a Server.
type Options struct {
	// ToolTimeout bounds how long the agent loop waits for the SDK to answer a tool call.
	ToolTimeout time.Duration
	// PreConnect makes the runtime answer as one that predates the connect handshake does, in
	// every scenario: ping's timestamp a number (PingResponse's long in copilot-sdk-java 0.3),
	// not the current runtime's ISO 8601 string. For an SDK that cannot talk to the current
	// runtime (the harness finds which, and its report says so); a scenario that stands for such
	// a runtime sets it itself (SetLegacyHandshake).
	PreConnect bool
	// Check, when set, validates each request's params; its findings are recorded as notes
	// beside the request (for example violations of the runtime's published schema).
	Check func(method string, params json.RawMessage) []schema.Violation
	// CheckResult, when set, validates the result of each answer the SDK gives to a request the
	// runtime sent it (a handler's answer), recorded as Check's findings are.
	CheckResult func(method string, result json.RawMessage) []schema.Violation
	// Answers are results generated from the runtime schema's result schemas (package
	// schemagen), one per method: a method the runtime has no scripted answer for gets its
	// generated one instead of method-not-found, so an SDK that decodes results gets a real one.
	Answers *Answers
	// OnShutdown, when set, is called once runtime.shutdown has been answered: a runtime the SDK
	// spawned exits then, as the real one does (an SDK may wait for its child to exit before it
	// kills it: Node 1.0.2 waits 10 s).
	OnShutdown func()
	// Recording, set in a replay, is where what the steps have the runtime send is played from
	// (replay.go): no SDK connects to the runtime then.
	Recording Recording
}

// Answers are the generated results of the schema's methods.
type Answers struct {
	Results map[string]json.RawMessage
	// Public are the methods an application may call (not visibility: internal); a scenario
	// that sweeps the schema (Script.GeneratedAnswers) gets their generated results even where
	// the runtime has a scripted answer.
	Public map[string]bool
}

// Server is one recording runtime.
type Server struct {
	rec  *transcript.Recorder
	opts Options

	mu       sync.Mutex
	script   Script
	sessions map[string]*session
	nconn    int
	conns    map[*conn]struct{}
	ln       net.Listener
	wg       sync.WaitGroup
	closed   bool
	// noAnswerCheck: the SDK's answers are not checked against the schema (UncheckAnswers).
	noAnswerCheck bool
	heldCalls     int // tool calls made outside a turn (CallTool)
	// rpcEdges are the frames written before the next answer to a method, and the errors that
	// answer its next calls instead of the runtime (jsonrpc.go).
	rpcEdges map[string]*scriptedAnswer
	// withholds are the kinds of request whose next answer is withheld (withhold.go); prompts
	// counts the session.send requests read, nextPrompt is closed at the next.
	withholds  map[string]*withholding
	prompts    int
	nextPrompt chan struct{}
	// promptsFree: ReleaseWithheld ended every wait for the next prompt.
	promptsFree bool
	// held is closed by ReleaseHeld: model steps UntilReleased go on.
	held chan struct{}
}

// New makes a Server that records into rec.
func New(rec *transcript.Recorder, opts Options) *Server {
	if opts.ToolTimeout == 0 {
		opts.ToolTimeout = 30 * time.Second
	}
	return &Server{rec: rec, opts: opts, sessions: map[string]*session{}, conns: map[*conn]struct{}{}}
}

// Listen starts accepting TCP connections on addr ("127.0.0.1:0" for an ephemeral loopback
// port) and returns the address it listens on. An address that is not loopback is noted in the
// transcript: whoever can reach it can drive the runtime and read what it answers.
func (s *Server) Listen(addr string) (string, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", err
	}
	if !Loopback(ln.Addr()) {
		s.rec.Notef("", "listening on %s, which is not a loopback address", ln.Addr())
	}
	s.mu.Lock()
	s.ln = ln
	s.mu.Unlock()
	Accept(ln, &s.wg, func(c net.Conn) {
		s.ServeConn(c, c)
		c.Close()
	})
	return ln.Addr().String(), nil
}

// Accept serves every connection ln accepts, each through a quickAckConn on a goroutine of its
// own counted in wg, until ln is closed: the one accept loop of the stand-in and the real
// runtime's recording proxy (closing ln and waiting on wg ends both the loop and the connections'
// goroutines).
func Accept(ln net.Listener, wg *sync.WaitGroup, serve func(net.Conn)) {
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c = NewQuickAckConn(c)
			wg.Add(1)
			go func() {
				defer wg.Done()
				serve(c)
			}()
		}
	}()
}

// Loopback reports whether a listening address accepts connections from this machine only.
func Loopback(a net.Addr) bool {
	tcp, ok := a.(*net.TCPAddr)
	return ok && tcp.IP.IsLoopback()
}

// Close stops listening, closes every connection and waits for their loops to end.
func (s *Server) Close() {
	s.ReleaseHeld() // a turn held for the application's call ends with the server
	s.mu.Lock()
	s.closed = true
	if s.ln != nil {
		s.ln.Close()
	}
	for c := range s.conns {
		if cl, ok := c.closer.(io.Closer); ok {
			cl.Close()
		}
	}
	s.mu.Unlock()
	s.wg.Wait()
}

type conn struct {
	name string
	// sendMu makes recording and writing one frame a single step, so the transcript holds the
	// runtime's frames in the order the SDK receives them (answers and a turn's events are sent
	// from different goroutines).
	sendMu sync.Mutex
	w      *wire.Writer
	closer any
	srv    *Server
	opened map[string]bool // sessions this connection created or resumed (sessions.go)
	calls  calls           // requests the runtime sent to the SDK (calls.go)
	gone   chan struct{}   // closed when the connection ends: nothing sent on it is answered
}

// UncheckAnswers stops checking the SDK's answers against the schema for the rest of the
// scenario, why given: the application's handlers answer what the harness did not choose (a
// driver's placeholder answers), so a violation there would be the driver's, not the SDK's.
func (s *Server) UncheckAnswers(why string) {
	s.mu.Lock()
	s.noAnswerCheck = true
	s.mu.Unlock()
	s.rec.Notef("", "the SDK's answers are not checked against the schema from here: %s", why)
}

func (s *Server) answersUnchecked() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.noAnswerCheck
}

// isGone says whether the connection has ended.
func (c *conn) isGone() bool {
	select {
	case <-c.gone:
		return true
	default:
		return false
	}
}

// ServeConn serves one connection until r ends. Frames that cannot be read are recorded with
// the reason and answered with a JSON-RPC parse error; the connection stays open.
func (s *Server) ServeConn(r io.Reader, w io.Writer) {
	s.mu.Lock()
	s.nconn++
	c := &conn{name: fmt.Sprintf("c%d", s.nconn), w: wire.NewWriter(s.framedWriter(w)), closer: r, srv: s, gone: make(chan struct{})}
	s.conns[c] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
		close(c.gone)
	}()
	s.rec.Notef(c.name, "connection opened")
	reader := wire.NewReader(r)
	for {
		f, err := reader.NextFrame()
		var fe *wire.FrameError
		switch {
		case errors.As(err, &fe):
			s.rec.Bad(c.name, transcript.SDKToRuntime, fe.Bytes, err)
			c.send(wire.Message{ID: json.RawMessage("null"), Error: &wire.RPCError{Code: wire.CodeParseError, Message: err.Error()}})
			continue
		case err != nil:
			if !errors.Is(err, io.EOF) && !s.isClosed() {
				s.rec.Notef(c.name, "connection read error: %v", err)
			}
			s.rec.Notef(c.name, "connection closed")
			return
		}
		s.handleFrame(c, f)
	}
}

func (s *Server) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

func (s *Server) handleFrame(c *conn, f wire.Frame) {
	body := f.Body
	var m wire.Message
	if err := json.Unmarshal(body, &m); err != nil {
		s.rec.Bad(c.name, transcript.SDKToRuntime, body, fmt.Errorf("not a JSON-RPC message: %w", err))
		c.send(wire.Message{ID: json.RawMessage("null"), Error: &wire.RPCError{Code: wire.CodeInvalidRequest, Message: err.Error()}})
		return
	}
	s.rec.FrameRead(c.name, transcript.SDKToRuntime, f)
	if m.IsResponse() {
		if method, ok := c.pendingMethod(m.ID); ok {
			// Judged before the waiting call has it: whoever reads the transcript after the
			// answer sees its violations.
			if s.opts.CheckResult != nil && m.Error == nil && !s.answersUnchecked() {
				for _, v := range s.opts.CheckResult(method, m.Result) {
					s.rec.Schema(c.name, transcript.Violation{Method: method, Pointer: v.Pointer, Message: v.Message, Keyword: v.Keyword, Answer: true})
				}
			}
		}
		if _, ok := c.deliver(m); ok {
			return
		}
		if !c.issued(m.ID) {
			s.rec.Bad(c.name, transcript.SDKToRuntime, body, fmt.Errorf("a response to a request the runtime never sent (id %s)", m.ID))
			return
		}
	}
	if !m.IsRequest() {
		return // notifications and responses are recorded, nothing more
	}
	if s.opts.Check != nil {
		for _, v := range s.opts.Check(m.Method, m.Params) {
			s.rec.Schema(c.name, transcript.Violation{Method: m.Method, Pointer: v.Pointer, Message: v.Message, Keyword: v.Keyword})
		}
	}
	if m.Method == "session.send" {
		s.promptRead()
	}
	if s.withhold(c, m) {
		return
	}
	var d time.Duration
	switch m.Method {
	case "session.tools.set":
		d = s.toolsSetDelay()
	case "session.create", "session.resume":
		d = s.openDelay()
	}
	if d == 0 {
		d = s.answerDelay(m.Method)
	}
	if d > 0 {
		go func() {
			time.Sleep(d)
			s.answer(c, m)
		}()
		return
	}
	s.answer(c, m)
}

// answer dispatches one request and sends its response.
func (s *Server) answer(c *conn, m wire.Message) {
	before, rejection := s.takeScripted(m.Method)
	for _, body := range before {
		c.sendRaw(body)
	}
	if rejection != nil {
		c.send(wire.Message{ID: m.ID, Error: rejection})
		return
	}
	result, rpcErr := s.dispatch(c, m.Method, m.Params)
	if rpcErr != nil {
		c.send(wire.Message{ID: m.ID, Error: rpcErr})
		return
	}
	raw, err := json.Marshal(result)
	if err != nil {
		c.send(wire.Message{ID: m.ID, Error: &wire.RPCError{Code: wire.CodeInternal, Message: err.Error()}})
		return
	}
	c.send(wire.Message{ID: m.ID, Result: raw})
	if m.Method == "runtime.shutdown" && s.opts.OnShutdown != nil {
		s.opts.OnShutdown()
	}
}

// send records and writes one frame to the SDK.
func (c *conn) send(m wire.Message) { c.write([]wire.Message{m}, false) }

// sendAll records and writes frames the runtime sends at once: every one is recorded before
// the first is written, so no answer of the SDK to one of them can come before the others (the
// requests a scripted step makes together are all pending before any answer).
func (c *conn) sendAll(ms []wire.Message) { c.write(ms, false) }

// write is sendAll; byStep marks the frames as sent for the scenario's steps (Entry.ByStep).
func (c *conn) write(ms []wire.Message, byStep bool) {
	bodies := make([][]byte, len(ms))
	c.sendMu.Lock()
	defer c.sendMu.Unlock()
	for i, m := range ms {
		m.JSONRPC = "2.0"
		bodies[i], _ = json.Marshal(m)
		c.srv.rec.Add(transcript.Entry{Conn: c.name, Dir: transcript.RuntimeToSDK, Frame: bodies[i], ByStep: byStep})
	}
	for _, body := range bodies {
		if err := c.w.Write(body); err != nil && !c.srv.isClosed() {
			c.srv.rec.Notef(c.name, "write failed: %v", err)
		}
	}
}

// notify sends a notification the scenario's steps asked for.
func (c *conn) notify(method string, params any) {
	raw, _ := json.Marshal(params)
	c.write([]wire.Message{{Method: method, Params: raw}}, true)
}

// Wait blocks until ctx ends or no agent loop is running (used by tests and steps to let a turn
// finish before reading the transcript).
func (s *Server) Wait(ctx context.Context) error {
	return WaitUntil(ctx, func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, ss := range s.sessions {
			if ss.busy || ss.waiting > 0 {
				return false
			}
		}
		return true
	})
}

// WaitUntil polls idle every 10 ms until it holds (nil) or ctx ends (its error): a runtime's
// Wait, the stand-in's and the real runtime proxy's.
func WaitUntil(ctx context.Context, idle func() bool) error {
	for !idle() {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
	return nil
}
