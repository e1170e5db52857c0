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
			out = append(out, Request{Seq: e.Seq, Conn: e.Conn, Method: m.Method, Params: m.Params})
		}
	}
	return out
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
