package runtime

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
	var fields map[string]json.RawMessage
	if json.Unmarshal(data, &fields) != nil {
		s.rec.Notef(c.name, "scripted permission request is not a JSON object: %s", data)
		return
	}
	id := fmt.Sprintf("perm-%d", round)
	fields["requestId"], _ = json.Marshal(id)
	done := make(chan struct{})
	s.mu.Lock()
	if ss.permissions == nil {
		ss.permissions = map[string]chan struct{}{}
	}
	ss.permissions[id] = done
	s.mu.Unlock()
	s.emit(c, ss, "permission.requested", fields)
	if string(fields["resolvedByHook"]) == "true" {
		return // already resolved: no client action expected
	}
	select {
	case <-done:
		s.emit(c, ss, "permission.completed", map[string]any{"requestId": id})
	case <-time.After(permissionWait):
		s.rec.Notef(c.name, "the SDK did not answer permission request %s within %s", id, permissionWait)
	}
}

// permissionAnswered records the SDK's answer to a pending permission request.
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
		return nil, rpcErr(wire.CodeInvalidParams, "no pending permission request with requestId %q", p.RequestID)
	}
	close(done)
	return map[string]any{"success": true}, nil
}
