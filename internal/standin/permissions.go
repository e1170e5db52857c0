package standin

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/wire"
)

// Requests from the runtime to the SDK: a scripted model step may ask the application for
// permission. The runtime sends the permission.requested session event (its data as scripted,
// with a requestId added, so a scenario can add fields a newer runtime sends) and waits for the
// SDK's session.permissions.handlePendingPermissionRequest before the turn goes on.

// permissionWait bounds how long the turn waits for the SDK's answer.
const permissionWait = 10 * time.Second

func (s *Server) askPermission(c *conn, ss *session, round int, data json.RawMessage) {
	s.askByEvent(c, ss, "permission.requested", fmt.Sprintf("perm-%d", round), data)
}

// askPermissionsTogether sends a permission.requested per data, each with a requestId of its
// own (perm-ROUND-I), before awaiting any answer, then waits for every answer.
func (s *Server) askPermissionsTogether(c *conn, ss *session, round int, all []json.RawMessage) {
	var waits []chan struct{}
	var ids []string
	var out []wire.Message
	for i, data := range all {
		var fields map[string]json.RawMessage
		if json.Unmarshal(data, &fields) != nil {
			s.rec.Notef(c.name, "scripted permission.requested data is not a JSON object: %s", data)
			continue
		}
		id := fmt.Sprintf("perm-%d-%d", round, i+1)
		fields["requestId"], _ = json.Marshal(id)
		done := s.awaitAnswer(ss, id)
		out = append(out, eventMessage(ss, "permission.requested", fields))
		waits, ids = append(waits, done), append(ids, id)
	}
	c.sendAll(out)
	deadline := time.After(permissionWait)
	for i, done := range waits {
		select {
		case <-done:
			s.emit(c, ss, "permission.completed", map[string]any{"requestId": ids[i]})
		case <-c.gone:
			s.rec.Notef(c.name, "the connection closed before the SDK answered every permission request sent at once")
			return
		case <-deadline:
			s.rec.Notef(c.name, "the SDK did not answer every permission request sent at once within %s", permissionWait)
			return
		}
	}
}

// askElicitation sends elicitation.requested and waits for session.ui.handlePendingElicitation.
func (s *Server) askElicitation(c *conn, ss *session, round int, data json.RawMessage) {
	s.askByEvent(c, ss, "elicitation.requested", fmt.Sprintf("elicit-%d", round), data)
}

// askByEvent sends a session event asking the SDK for an answer and waits for it: the SDK
// answers with a session.* RPC naming the requestId (answered).
func (s *Server) askByEvent(c *conn, ss *session, eventType, id string, data json.RawMessage) {
	var fields map[string]json.RawMessage
	if json.Unmarshal(data, &fields) != nil {
		s.rec.Notef(c.name, "scripted %s data is not a JSON object: %s", eventType, data)
		return
	}
	fields["requestId"], _ = json.Marshal(id)
	done := s.awaitAnswer(ss, id)
	s.emit(c, ss, eventType, fields)
	if string(fields["resolvedByHook"]) == "true" {
		return // already resolved: no client action expected
	}
	select {
	case <-done:
		if eventType == "permission.requested" {
			s.emit(c, ss, "permission.completed", map[string]any{"requestId": id})
		}
	case <-c.gone:
		s.rec.Notef(c.name, "the connection closed before the SDK answered %s %s", eventType, id)
	case <-time.After(permissionWait):
		s.rec.Notef(c.name, "the SDK did not answer %s %s within %s", eventType, id, permissionWait)
	}
}

// permissionAnswered records the SDK's answer to a pending permission or elicitation request.
func (s *Server) permissionAnswered(p sessionParams) (any, *wire.RPCError) {
	ss, e := s.session(p.SessionID)
	if e != nil {
		return nil, e
	}
	s.mu.Lock()
	done := ss.permissions[p.RequestID]
	delete(ss.permissions, p.RequestID)
	s.mu.Unlock()
	if done == nil {
		return nil, rpcErr(wire.CodeInvalidParams, "no pending request with requestId %q", p.RequestID)
	}
	close(done)
	return map[string]any{"success": true}, nil
}

// awaitAnswer registers id as a request of the session's that the SDK is to answer
// (permissionAnswered); the channel is closed when it does.
func (s *Server) awaitAnswer(ss *session, id string) chan struct{} {
	done := make(chan struct{})
	s.mu.Lock()
	defer s.mu.Unlock()
	if ss.permissions == nil {
		ss.permissions = map[string]chan struct{}{}
	}
	ss.permissions[id] = done
	return done
}
