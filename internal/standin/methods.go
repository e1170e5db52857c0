package standin

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/wire"
	"github.com/google/uuid"
)

// session is the runtime's view of one SDK session.
type session struct {
	id          string
	conn        *conn
	tools       map[string]toolDef
	messages    int // model-facing messages, what clearContext reports as cleared
	busy        bool
	waiting     int                         // turns queued behind the running one (Script.QueueTurns)
	lastTurn    chan struct{}               // closed when the session's last queued turn ends (Script.QueueTurns)
	pending     map[string]chan toolOutcome // requestId -> outcome of an in-flight tool call
	permissions map[string]chan struct{}    // requestId -> closed when answered (permissions.go)
	nextID      int
}

type toolDef struct {
	Name       string `json:"name"`
	IsTerminal bool   `json:"isTerminal"`
}

type toolOutcome struct {
	ok      bool
	message string
}

func rpcErr(code int, format string, args ...any) *wire.RPCError {
	return &wire.RPCError{Code: code, Message: fmt.Sprintf(format, args...)}
}

type sessionParams struct {
	SessionID string            `json:"sessionId"`
	Tools     []json.RawMessage `json:"tools"`
	Prompt    *string           `json:"prompt"`
	RequestID string            `json:"requestId"`
	Result    json.RawMessage   `json:"result"`
	Error     json.RawMessage   `json:"error"`
}

// dispatch answers one request. Results mirror the real runtime's minimal answers.
func (s *Server) dispatch(c *conn, method string, raw json.RawMessage) (any, *wire.RPCError) {
	var p sessionParams
	if len(raw) > 0 && json.Unmarshal(raw, &p) != nil {
		return nil, rpcErr(wire.CodeInvalidParams, "params of %s must be an object", method)
	}
	if e := c.unknownSession(method, p.SessionID); e != nil {
		return nil, e
	}
	if a := s.opts.Answers; a != nil && a.Public[method] && s.generatedAnswers() {
		if r, ok := s.queuedAnswer(method); ok {
			return r, nil
		}
		return a.Results[method], nil
	}
	switch method {
	case "connect":
		if s.legacyHandshake() || s.opts.PreConnect {
			return nil, rpcErr(wire.CodeMethodNotFound, "Unhandled method connect")
		}
		return connectResult(raw), nil
	case "ping":
		// As the current runtime answers (PingResult: an ISO 8601 timestamp, measured on the real
		// runtime 1.0.85: "2026-12-01T03:58:47.064841455Z"); a runtime that predates connect
		// (a scenario that stands for one, or Options.PreConnect) answered a numeric timestamp,
		// which copilot-sdk-java 0.3's PingResponse record reads as a long.
		var ts any = time.Now().UTC().Format(time.RFC3339Nano)
		if s.opts.PreConnect || s.legacyHandshake() {
			ts = time.Now().UnixMilli()
		}
		return map[string]any{"message": pingMessage(raw), "timestamp": ts, "protocolVersion": ProtocolVersion}, nil
	case "session.create", "session.resume":
		id := p.SessionID
		if id == "" {
			if method == "session.resume" {
				return nil, rpcErr(wire.CodeInvalidParams, "session.resume needs a sessionId")
			}
			id = uuid.NewString()
		}
		s.mu.Lock()
		ss := s.sessions[id]
		if ss == nil {
			ss = &session{id: id, pending: map[string]chan toolOutcome{}}
			s.sessions[id] = ss
		}
		ss.conn = c
		ss.tools = parseTools(p.Tools)
		s.mu.Unlock()
		c.markOpened(id)
		return sessionResult(id, raw), nil
	case "session.send":
		ss, e := s.session(p.SessionID)
		if e != nil {
			return nil, e
		}
		prompt := ""
		if p.Prompt != nil {
			prompt = *p.Prompt
		}
		s.mu.Lock()
		ss.conn = c
		ss.busy = true
		turn := s.script.nextTurn()
		ss.nextID++
		msgID := fmt.Sprintf("m%d", ss.nextID)
		prompts := s.prompts // a step UntilNextPrompt waits for a later one
		if !s.script.QueueTurns {
			s.mu.Unlock()
			go s.playTurn(ss, prompt, msgID, turn, prompts)
			return map[string]any{"messageId": msgID}, nil
		}
		// Queued: this turn begins once the one before it ended (its session.idle sent).
		before, done := ss.lastTurn, make(chan struct{})
		ss.lastTurn = done
		ss.waiting++
		s.mu.Unlock()
		go func() {
			defer close(done)
			if before != nil {
				<-before
			}
			s.mu.Lock()
			ss.waiting--
			ss.busy = true
			s.mu.Unlock()
			s.playTurn(ss, prompt, msgID, turn, prompts)
		}()
		return map[string]any{"messageId": msgID}, nil
	case "session.tools.set":
		ss, e := s.session(p.SessionID)
		if e != nil {
			return nil, e
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if msg, reject := s.script.takeToolsSetRejection(); reject {
			return nil, rpcErr(wire.CodeServerError, "%s", msg)
		}
		ss.tools = parseTools(p.Tools)
		return map[string]any{}, nil
	case "session.history.clearContext":
		return s.clearContext(p)
	case "session.tools.handlePendingToolCall":
		ss, e := s.session(p.SessionID)
		if e != nil {
			return nil, e
		}
		s.mu.Lock()
		ch := ss.pending[p.RequestID]
		delete(ss.pending, p.RequestID)
		s.mu.Unlock()
		if ch == nil {
			return nil, rpcErr(wire.CodeInvalidParams, "no pending tool call with requestId %q", p.RequestID)
		}
		ch <- outcomeOf(p.Result, p.Error)
		return map[string]any{"success": true}, nil
	case "session.permissions.handlePendingPermissionRequest", "session.ui.handlePendingElicitation":
		return s.permissionAnswered(p)
	case "session.destroy", "session.detach":
		return map[string]any{"success": true}, nil
	case "session.options.update":
		// The real runtime (1.0.85) also counts the plugin hooks the update loaded: none here.
		return map[string]any{"success": true, "pluginHookCount": 0}, nil
	case "session.eventLog.registerInterest":
		return map[string]any{"handle": "h1"}, nil
	case "session.skills.reload":
		// As the real runtime (1.0.85) answers a session with no skills to load.
		return map[string]any{"warnings": []any{}, "errors": []any{}}, nil
	case "runtime.shutdown":
		return map[string]any{}, nil
	case "llmInference.setProvider":
		// The SDK registers its request handler at connect; the real runtime accepts it.
		return map[string]any{"success": true}, nil
	case "llmInference.httpResponseStart", "llmInference.httpResponseChunk":
		// The SDK's response to a model request the runtime handed it (Ask): accepted, as the
		// real runtime answers a frame matched to its pending request.
		return map[string]any{"accepted": true}, nil
	}
	if a := s.opts.Answers; a != nil {
		if r, ok := a.Results[method]; ok {
			return r, nil
		}
	}
	return nil, rpcErr(wire.CodeMethodNotFound, "method not found: %s", method)
}

// QueueAnswers makes the next calls of a public schema method, in a scenario with generated
// answers, answer these results one by one (then the method's generated result again): the
// result sweep sends each method's result in several shapes.
func (s *Server) QueueAnswers(method string, results []json.RawMessage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.script.queued == nil {
		s.script.queued = map[string][]json.RawMessage{}
	}
	s.script.queued[method] = append(s.script.queued[method], results...)
}

func (s *Server) queuedAnswer(method string) (json.RawMessage, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.script.queued[method]
	if len(q) == 0 {
		return nil, false
	}
	s.script.queued[method] = q[1:]
	return q[0], true
}

func (s *Server) generatedAnswers() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.script.GeneratedAnswers
}

func (s *Server) session(id string) (*session, *wire.RPCError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ss := s.sessions[id]
	if ss == nil {
		return nil, rpcErr(wire.CodeInvalidParams, "unknown sessionId %q", id)
	}
	return ss, nil
}

func parseTools(raw []json.RawMessage) map[string]toolDef {
	out := map[string]toolDef{}
	for _, r := range raw {
		var t toolDef
		if json.Unmarshal(r, &t) == nil && t.Name != "" {
			out[t.Name] = t
		}
	}
	return out
}

// outcomeOf reads a handlePendingToolCall answer. Every SDK's shape is accepted: a bare string
// (Node), {textResultForLlm, resultType}, a top-level error, or a failure inside result (Rust).
func outcomeOf(result, errRaw json.RawMessage) toolOutcome {
	if len(errRaw) > 0 && string(errRaw) != "null" {
		var msg string
		if json.Unmarshal(errRaw, &msg) != nil {
			var obj struct{ Message string }
			_ = json.Unmarshal(errRaw, &obj)
			msg = obj.Message
		}
		return toolOutcome{ok: false, message: msg}
	}
	var obj struct {
		ResultType string `json:"resultType"`
		Error      string `json:"error"`
		Text       string `json:"textResultForLlm"`
	}
	if json.Unmarshal(result, &obj) == nil {
		switch obj.ResultType {
		case "failure", "error", "rejected", "denied", "timeout":
			return toolOutcome{ok: false, message: obj.Error + obj.Text}
		}
		return toolOutcome{ok: true, message: obj.Text}
	}
	var text string
	_ = json.Unmarshal(result, &text)
	return toolOutcome{ok: true, message: text}
}

func (s *Server) clearContext(p sessionParams) (any, *wire.RPCError) {
	ss, e := s.session(p.SessionID)
	if e != nil {
		return nil, e
	}
	if p.Prompt == nil || *p.Prompt == "" {
		return nil, rpcErr(wire.CodeInvalidParams, "clearContext requires a non-empty prompt")
	}
	s.mu.Lock()
	inFlight := len(ss.pending) > 0
	cleared := ss.messages
	if inFlight {
		ss.messages = 1 // the seed prompt becomes the first message of the fresh context
	}
	c := ss.conn
	s.mu.Unlock()
	if !inFlight {
		return nil, rpcErr(wire.CodeServerError, "clearContext can only be called from a tool handler while a tool call is in flight")
	}
	s.emit(c, ss, "session.context_cleared", map[string]any{"messagesCleared": cleared, "initialMessage": *p.Prompt})
	return map[string]any{"messagesCleared": cleared}, nil
}

// emit sends one session.event notification in the runtime's envelope.
func (s *Server) emit(c *conn, ss *session, typ string, data any) {
	c.send(eventMessage(ss, typ, data))
}

// eventMessage is the session.event notification of one event of type typ.
func eventMessage(ss *session, typ string, data any) wire.Message {
	if data == nil {
		data = map[string]any{}
	}
	raw, _ := json.Marshal(map[string]any{
		"sessionId": ss.id,
		"event": map[string]any{
			"id":        uuid.NewString(),
			"timestamp": time.Now().UTC().Format(time.RFC3339Nano),
			"parentId":  nil,
			"type":      typ,
			"data":      data,
		},
	})
	return wire.Message{Method: "session.event", Params: raw}
}

// SetGeneratedAnswers makes every public schema method answer with its generated result
// (Script.GeneratedAnswers).
func (s *Server) SetGeneratedAnswers() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script.GeneratedAnswers = true
}

// Emit sends a session.event notification carrying event exactly as given (the whole event:
// id, timestamp, parentId, type, data …) to the connection that opened the session. A
// json.RawMessage is written byte for byte (a legal encoding of its own: 5.0, \u00e9).
func (s *Server) Emit(sessionID string, event any) error {
	if r := s.opts.Recording; r != nil {
		return playEvent(r, sessionID, event)
	}
	c, err := s.eventConn(sessionID)
	if err != nil {
		return err
	}
	c.notify("session.event", map[string]any{"sessionId": sessionID, "event": event})
	return nil
}
