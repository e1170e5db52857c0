package standin

import (
	"encoding/json"
	"fmt"

	"github.com/copilot-sdk-conformance/conformance/internal/wire"
)

// Await registers requestID as a request the runtime awaits an answer to on the session, as if
// it had sent the request event itself (a tool call's external_tool.requested, a
// permission.requested or elicitation.requested), so that the SDK's first answer naming it is
// accepted as the real runtime accepts it and a second one is refused (no pending request). A
// scenario that sends the event with Emit calls it first (steps/sweeps/resolved). Nothing waits
// for the answer: the transcript holds it.
func (s *Server) Await(sessionID, requestID string) error {
	if s.opts.Recording != nil {
		return nil // the recording holds the SDK's answers, and the runtime's to them
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ss := s.sessions[sessionID]
	if ss == nil {
		return fmt.Errorf("no open session %q", sessionID)
	}
	if ss.pending == nil {
		ss.pending = map[string]chan toolOutcome{}
	}
	if ss.permissions == nil {
		ss.permissions = map[string]chan struct{}{}
	}
	ss.pending[requestID] = make(chan toolOutcome, 1) // buffered: the answer is delivered and dropped
	ss.permissions[requestID] = make(chan struct{})
	return nil
}

// EmitTogether sends session.event notifications carrying events exactly as given, in one
// write (as Emit sends one), so that the SDK reads them all before it can answer the first: a
// request repeated before any answer.
func (s *Server) EmitTogether(sessionID string, events ...map[string]any) error {
	if r := s.opts.Recording; r != nil {
		for _, ev := range events {
			if err := playEvent(r, sessionID, ev); err != nil {
				return err
			}
		}
		return nil
	}
	c, err := s.eventConn(sessionID)
	if err != nil {
		return err
	}
	ms := make([]wire.Message, 0, len(events))
	for _, ev := range events {
		raw, err := json.Marshal(map[string]any{"sessionId": sessionID, "event": ev})
		if err != nil {
			return err
		}
		ms = append(ms, wire.Message{Method: "session.event", Params: raw})
	}
	c.write(ms, true)
	return nil
}

// eventConn is the connection that holds sessionID open, to send the session's events on.
func (s *Server) eventConn(sessionID string) (*conn, error) {
	s.mu.Lock()
	ss := s.sessions[sessionID]
	s.mu.Unlock()
	if ss == nil || ss.conn == nil {
		return nil, fmt.Errorf("no open session %q", sessionID)
	}
	if ss.conn.isGone() {
		return nil, fmt.Errorf("session.event: %w", ErrClosed)
	}
	return ss.conn, nil
}
