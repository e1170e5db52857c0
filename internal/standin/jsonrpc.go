package standin

import (
	"encoding/json"

	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/copilot-sdk-conformance/conformance/internal/wire"
)

// JSON-RPC 2.0's own edges, sent on purpose: frames the runtime writes as given while the SDK
// has a call pending (an error response with "id": null, a response to an id the SDK never
// used, a notification of a method the SDK does not know), and errors of any code, with data,
// answering a call. The SDK must keep the connection, fail no call for a frame that answers
// none, and fail only the call an error answers.

type scriptedAnswer struct {
	before  []json.RawMessage // written, once, just before the next answer to the method
	rejects []wire.RPCError   // the method's next calls are answered with these, one each
}

// BeforeNextAnswer writes body, as one frame, just before the runtime answers the next call of
// method: the SDK then has that call pending when the frame arrives.
func (s *Server) BeforeNextAnswer(method string, body json.RawMessage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scripted(method).before = append(s.scripted(method).before, body)
}

// RejectNext answers the next call of method with the JSON-RPC error e instead of its answer.
func (s *Server) RejectNext(method string, e wire.RPCError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scripted(method).rejects = append(s.scripted(method).rejects, e)
}

// scripted is method's scripted answer, made when missing (s.mu held).
func (s *Server) scripted(method string) *scriptedAnswer {
	if s.rpcEdges == nil {
		s.rpcEdges = map[string]*scriptedAnswer{}
	}
	if s.rpcEdges[method] == nil {
		s.rpcEdges[method] = &scriptedAnswer{}
	}
	return s.rpcEdges[method]
}

// takeScripted takes what is scripted for this call of method: the frames to write first and
// the error to answer with (nil: the runtime answers).
func (s *Server) takeScripted(method string) ([]json.RawMessage, *wire.RPCError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := s.rpcEdges[method]
	if a == nil {
		return nil, nil
	}
	before := a.before
	a.before = nil
	if len(a.rejects) == 0 {
		return before, nil
	}
	e := a.rejects[0]
	a.rejects = a.rejects[1:]
	return before, &e
}

// sendRaw records and writes one frame exactly as given.
func (c *conn) sendRaw(body json.RawMessage) {
	c.sendMu.Lock()
	defer c.sendMu.Unlock()
	c.srv.rec.Frame(c.name, transcript.RuntimeToSDK, body)
	if err := c.w.Write(body); err != nil && !c.srv.isClosed() {
		c.srv.rec.Notef(c.name, "write failed: %v", err)
	}
}
