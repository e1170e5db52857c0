package standin

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/wire"
)

// Requests from the runtime to the SDK (userInput.request, hooks.invoke, …): a scripted model
// step sends one and the turn waits for the SDK's response, which ServeConn routes here.

// callWait bounds how long the turn waits for the SDK's answer.
const callWait = 10 * time.Second

// ErrClosed is a request to the SDK that cannot be answered because the SDK's connection is
// closed (its driver crashed, or it closed the connection): the caller learns it at once rather
// than after callWait (a sweep of hundreds of calls would otherwise wait for each).
var ErrClosed = errors.New("the SDK's connection to the runtime is closed")

// ErrUnanswered is a request the SDK left unanswered for callWait.
var ErrUnanswered = errors.New("the SDK did not answer")

type calls struct {
	mu      sync.Mutex
	next    int
	pending map[string]chan wire.Message
	methods map[string]string // the method of each pending call, by id (its answer is checked against it)
}

// track registers a pending call of method under a new id (c.calls.mu held).
func (c *conn) track(method string) (string, chan wire.Message) {
	if c.calls.pending == nil {
		c.calls.pending, c.calls.methods = map[string]chan wire.Message{}, map[string]string{}
	}
	c.calls.next++
	// Integer ids, like the real runtime: the Rust SDK (JsonRpcRequest.id: u64) and the Java SDK
	// parse a request id from the runtime as a number and drop a frame with a string id.
	id := strconv.Itoa(c.calls.next)
	ch := make(chan wire.Message, 1)
	c.calls.pending[id], c.calls.methods[id] = ch, method
	return id, ch
}

// untrack forgets pending calls (c.calls.mu held).
func (c *conn) untrack(ids ...string) {
	for _, id := range ids {
		delete(c.calls.pending, id)
		delete(c.calls.methods, id)
	}
}

// call sends method with params to the SDK and waits for its response: callWait at most, and
// not at all once the connection is closed (ErrClosed). byStep: the scenario's steps asked.
func (c *conn) call(method string, params any, byStep bool) (wire.Message, error) {
	c.calls.mu.Lock()
	id, ch := c.track(method)
	c.calls.mu.Unlock()
	forget := func() {
		c.calls.mu.Lock()
		c.untrack(id)
		c.calls.mu.Unlock()
	}
	if c.isGone() {
		forget()
		c.srv.rec.Notef(c.name, "%s not sent: the connection is closed", method)
		return wire.Message{}, fmt.Errorf("%s: %w", method, ErrClosed)
	}
	raw, _ := json.Marshal(params)
	c.write([]wire.Message{{ID: json.RawMessage(id), Method: method, Params: raw}}, byStep)
	timer := time.NewTimer(callWait)
	defer timer.Stop()
	select {
	case m := <-ch:
		return m, nil
	case <-c.gone:
		forget()
		c.srv.rec.Notef(c.name, "the connection closed before the SDK answered %s %s", method, id)
		return wire.Message{}, fmt.Errorf("%s %s: %w before the SDK answered", method, id, ErrClosed)
	case <-timer.C:
		forget()
		c.srv.rec.Notef(c.name, "the SDK did not answer %s %s within %s", method, id, callWait)
		return wire.Message{}, fmt.Errorf("%w %s within %s", ErrUnanswered, method, callWait)
	}
}

// issued says whether id names a request the runtime sent on the connection (answered, given up
// on or pending), or is null (JSON-RPC's answer to a request that could not be read): any other
// response answers nothing the runtime asked, which the SDK must not send.
func (c *conn) issued(id json.RawMessage) bool {
	if string(id) == "null" {
		return true
	}
	n, err := strconv.Atoi(string(id))
	c.calls.mu.Lock()
	defer c.calls.mu.Unlock()
	return err == nil && n >= 1 && n <= c.calls.next
}

// pendingMethod is the method of the pending call a response answers, if any.
func (c *conn) pendingMethod(id json.RawMessage) (string, bool) {
	c.calls.mu.Lock()
	defer c.calls.mu.Unlock()
	m, ok := c.calls.methods[string(id)]
	return m, ok
}

// deliver hands a response from the SDK to the call waiting for it; it reports whether one was.
func (c *conn) deliver(m wire.Message) (string, bool) {
	c.calls.mu.Lock()
	id := string(m.ID)
	ch, method := c.calls.pending[id], c.calls.methods[id]
	c.untrack(id)
	c.calls.mu.Unlock()
	if ch != nil {
		ch <- m
	}
	return method, ch != nil
}

// askSDK is a scripted step that sends a request to the SDK: params as scripted, with the
// session's id added.
func (s *Server) askSDK(c *conn, ss *session, method string, params json.RawMessage) {
	var fields map[string]json.RawMessage
	if json.Unmarshal(params, &fields) != nil {
		s.rec.Notef(c.name, "scripted %s params are not a JSON object: %s", method, params)
		return
	}
	fields["sessionId"], _ = json.Marshal(ss.id)
	_, _ = c.call(method, fields, false)
}

// askTogether is a scripted step that sends several requests to the SDK at once, in the order
// given, each with the session's id added, and then waits for every answer (callWait each).
func (s *Server) askTogether(c *conn, ss *session, method string, all []json.RawMessage) {
	chans := make([]chan wire.Message, 0, len(all))
	ids := make([]string, 0, len(all))
	var out []wire.Message
	for _, params := range all {
		var fields map[string]json.RawMessage
		if json.Unmarshal(params, &fields) != nil {
			s.rec.Notef(c.name, "scripted %s params are not a JSON object: %s", method, params)
			continue
		}
		fields["sessionId"], _ = json.Marshal(ss.id)
		raw, _ := json.Marshal(fields)
		c.calls.mu.Lock()
		id, ch := c.track(method)
		c.calls.mu.Unlock()
		out = append(out, wire.Message{ID: json.RawMessage(id), Method: method, Params: raw})
		chans, ids = append(chans, ch), append(ids, id)
	}
	c.sendAll(out)
	deadline := time.After(callWait)
	for i, ch := range chans {
		select {
		case <-ch:
		case <-c.gone:
			c.calls.mu.Lock()
			c.untrack(ids[i:]...)
			c.calls.mu.Unlock()
			s.rec.Notef(c.name, "the connection closed before the SDK answered every %s sent at once", method)
			return
		case <-deadline:
			c.calls.mu.Lock()
			c.untrack(ids[i:]...)
			c.calls.mu.Unlock()
			s.rec.Notef(c.name, "the SDK did not answer every %s sent at once within %s", method, callWait)
			return
		}
	}
}

// Ask sends method with params to the SDK, on the connection that opened sessionID, the way the
// runtime calls the handlers an application registered (the clientSession and clientGlobal
// methods of api.schema.json), and waits for the SDK's response (callWait). A notification is
// sent without an id and answered by nothing: the returned Message is empty.
func (s *Server) Ask(sessionID, method string, params any, notification bool) (wire.Message, error) {
	if r := s.opts.Recording; r != nil {
		return playAsk(r, method, notification)
	}
	s.mu.Lock()
	ss := s.sessions[sessionID]
	s.mu.Unlock()
	if ss == nil || ss.conn == nil {
		return wire.Message{}, fmt.Errorf("no open session %q to send %s on", sessionID, method)
	}
	if notification {
		if ss.conn.isGone() {
			return wire.Message{}, fmt.Errorf("%s: %w", method, ErrClosed)
		}
		ss.conn.notify(method, params)
		return wire.Message{}, nil
	}
	return ss.conn.call(method, params, true)
}

// CallTool asks the SDK, on the connection that opened sessionID, to run the application's tool
// outside any turn, as Ask sends a runtime-to-SDK method: an external_tool.requested with a
// requestId of its own (held-N), then the wait for the SDK's handlePendingToolCall naming it
// (callWait at most) and external_tool.completed. It returns the requestId, so that the caller
// finds the call and its answer in the transcript.
func (s *Server) CallTool(sessionID, tool string, args map[string]any) (string, error) {
	s.mu.Lock()
	ss := s.sessions[sessionID]
	s.heldCalls++
	n := s.heldCalls
	s.mu.Unlock()
	if r := s.opts.Recording; r != nil {
		return playToolCall(r, sessionID, tool)
	}
	if ss == nil || ss.conn == nil {
		return "", fmt.Errorf("no open session %q to call the tool %s on", sessionID, tool)
	}
	c := ss.conn
	if c.isGone() {
		return "", fmt.Errorf("tool %s: %w", tool, ErrClosed)
	}
	if args == nil {
		args = map[string]any{}
	}
	reqID, callID := fmt.Sprintf("held-%d", n), fmt.Sprintf("call_held_%d", n)
	ch, _ := s.requestTool(c, ss, reqID, callID, tool, args, true)
	var err error
	select {
	case <-ch:
	case <-c.gone:
		err = fmt.Errorf("tool %s %s: %w before the SDK answered", tool, reqID, ErrClosed)
	case <-time.After(callWait):
		err = fmt.Errorf("%w tool %s %s within %s", ErrUnanswered, tool, reqID, callWait)
	}
	if err != nil {
		s.mu.Lock()
		delete(ss.pending, reqID)
		s.mu.Unlock()
		s.rec.Notef(c.name, "%v", err)
	}
	s.emit(c, ss, "external_tool.completed", map[string]any{"requestId": reqID})
	return reqID, err
}
