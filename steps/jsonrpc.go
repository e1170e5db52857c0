package steps

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/copilot-sdk-conformance/conformance/internal/wire"
)

// JSON-RPC 2.0's own edges (the specification's section 5): frames a runtime may send that
// answer no call of the SDK, and errors of every code range with data. The scenarios that use
// them (features/behaviour/framing.feature) then make the next call: the SDK must keep the
// connection, fail only the call an error answers, and hand the application the error's message.

// rpcEdges are the frames by their wording: each is legal JSON-RPC that names no request the
// SDK has pending.
var rpcEdges = map[string]string{
	// The runtime could not read a frame, so it cannot say which request it answers.
	"an error response with a null id": `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the runtime could not read a frame","data":{"from":"conformance"}}}`,
	// A late answer to a request the SDK gave up on, or one a proxy misrouted.
	"a response to an id the SDK never used": `{"jsonrpc":"2.0","id":987654321,"result":{"from":"conformance"}}`,
	// A method a newer runtime notifies.
	"a notification of a method the SDK does not know": `{"jsonrpc":"2.0","method":"conformance.unknownNotification","params":{"from":"a newer runtime"}}`,
}

func (w *world) registerJSONRPC(sc binder) {
	sc.Step(`^the runtime sends (an error response with a null id|a response to an id the SDK never used|a notification of a method the SDK does not know) before it answers the next prompt$`, w.sendRPCEdge)
	sc.Step(`^the runtime answers the next prompt with the error (-?\d+) "([^"]*)" and data (\{.*\})$`, w.rejectNextPrompt)
	sc.Step(`^the application tries to send the prompt "([^"]*)"$`, w.triesSend)
}

// sendRPCEdge has the runtime write one of rpcEdges on the session's connection just before it
// answers the next session.send, so that the SDK has that call pending when the frame arrives.
func (w *world) sendRPCEdge(kind string) error {
	body, ok := rpcEdges[kind]
	if !ok {
		return fmt.Errorf("no JSON-RPC edge %q", kind)
	}
	rt, err := w.standIn("runtime.script.jsonrpcEdges")
	if err != nil {
		return err
	}
	rt.BeforeNextAnswer("session.send", json.RawMessage(body))
	return nil
}

// rejectNextPrompt has the runtime answer the next session.send with a JSON-RPC error of that
// code, message and data.
func (w *world) rejectNextPrompt(code, msg, data string) error {
	n, err := strconv.Atoi(code)
	if err != nil {
		return fmt.Errorf("error code %q: %w", code, err)
	}
	if !json.Valid([]byte(data)) {
		return fmt.Errorf("error data %s is not JSON", data)
	}
	rt, err := w.standIn("runtime.script.jsonrpcEdges")
	if err != nil {
		return err
	}
	rt.RejectNext("session.send", wire.RPCError{Code: n, Message: msg, Data: json.RawMessage(data)})
	return nil
}

// triesSend sends a prompt without waiting for the turn, keeping what the SDK returned or
// raised for "the SDK raised an error mentioning …".
func (w *world) triesSend(prompt string) error {
	s, err := w.current()
	if err != nil {
		return err
	}
	return w.try("send", map[string]any{"session": s.handle, "prompt": prompt, "wait": false})
}
