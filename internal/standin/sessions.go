package standin

import (
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/wire"
)

// A session exists for a connection only once that connection created or resumed it, as for a
// real runtime process that loads a session from disk on session.resume: a request naming the
// session before then is answered the way the real one answers a request for an unknown
// session. The code and text follow what the SDKs expect: the Rust SDK's client recognizes
// a runtime error by `message.contains("Session not found")` (lib.rs) and its own router
// answers a request for an unregistered session with INTERNAL_ERROR (-32603) and
// "Session not found: <id>" (router.rs); the runtime binary carries the same text.

// sessionFree are the session.* methods that may name a session the connection has not opened.
var sessionFree = map[string]bool{"session.create": true, "session.resume": true}

func (c *conn) markOpened(id string) {
	c.srv.mu.Lock()
	defer c.srv.mu.Unlock()
	if c.opened == nil {
		c.opened = map[string]bool{}
	}
	c.opened[id] = true
}

// unknownSession is the error for a request naming a session this connection has not opened,
// or nil.
func (c *conn) unknownSession(method, sessionID string) *wire.RPCError {
	if sessionID == "" || !strings.HasPrefix(method, "session.") || sessionFree[method] {
		return nil
	}
	c.srv.mu.Lock()
	defer c.srv.mu.Unlock()
	if c.opened[sessionID] {
		return nil
	}
	return rpcErr(wire.CodeInternal, "Session not found: %s", sessionID)
}
