package transcript

import (
	"encoding/json"

	"github.com/copilot-sdk-conformance/conformance/internal/wire"
)

// Request is one SDK-to-runtime request found in a transcript.
type Request struct {
	Seq    int
	Conn   string
	Method string
	Params json.RawMessage
	ID     json.RawMessage
}

// Requests returns the requests the SDK sent, in order; an empty method means every method.
func Requests(entries []Entry, method string) []Request {
	var out []Request
	for _, e := range entries {
		if e.Dir != SDKToRuntime || len(e.Frame) == 0 {
			continue
		}
		var m wire.Message
		if json.Unmarshal(e.Frame, &m) != nil || !m.IsRequest() {
			continue
		}
		if method == "" || m.Method == method {
			out = append(out, Request{Seq: e.Seq, Conn: e.Conn, Method: m.Method, Params: m.Params, ID: m.ID})
		}
	}
	return out
}

// Answers indexes the results the runtime answered requests with, exactly as they went on the
// wire, by connection and request id (Of looks one up).
type Answers map[string]json.RawMessage

// AnswersOf indexes the runtime's answers in entries.
func AnswersOf(entries []Entry) Answers {
	out := Answers{}
	for _, e := range entries {
		if e.Dir != RuntimeToSDK || len(e.Frame) == 0 {
			continue
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"` // "null" for a null result (UnmarshalJSON sees it)
		}
		if json.Unmarshal(e.Frame, &m) != nil || m.Method != "" || len(m.ID) == 0 || len(m.Result) == 0 {
			continue
		}
		out[e.Conn+"\x00"+string(m.ID)] = m.Result
	}
	return out
}

// Of is the result request r was answered with ("null" for a null result); ok is false when
// the runtime answered an error or nothing.
func (a Answers) Of(r Request) (result json.RawMessage, ok bool) {
	result, ok = a[r.Conn+"\x00"+string(r.ID)]
	return result, ok
}

// Notifications returns the runtime-to-SDK notifications of a method, in order.
func Notifications(entries []Entry, method string) []json.RawMessage {
	var out []json.RawMessage
	for _, e := range entries {
		if e.Dir != RuntimeToSDK || len(e.Frame) == 0 {
			continue
		}
		var m wire.Message
		if json.Unmarshal(e.Frame, &m) == nil && m.IsNotification() && m.Method == method {
			out = append(out, m.Params)
		}
	}
	return out
}
