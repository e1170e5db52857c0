package steps

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"

	"github.com/copilot-sdk-conformance/conformance/internal/driver"
	"github.com/copilot-sdk-conformance/conformance/internal/wire"
	"github.com/copilot-sdk-conformance/conformance/steps/scenario"
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

func (w *world) registerJSONRPC(sc scenario.Binder) {
	sc.Step(`^the runtime sends (an error response with a null id|a response to an id the SDK never used|a notification of a method the SDK does not know) before it answers the next prompt$`, w.sendRPCEdge)
	sc.Step(`^the runtime answers the next prompt with the error (-?\d+) "([^"]*)" and data (\{.*\})$`, w.rejectNextPrompt)
	sc.Step(`^the application tries to send the prompt "([^"]*)"$`, w.triesSend)
	rpcCode := scenario.Needing(sc, scenario.Needs("error.rpc.code"))
	rpcCode.Step(`^the SDK's error carried the code (-?\d+)$`, w.errorCarriedCode)
	rpcCode.Step(`^the SDK's error carried the data (\{.*\})$`, w.errorCarriedData)
}

// sendRPCEdge has the runtime write one of rpcEdges on the session's connection just before it
// answers the next session.send, so that the SDK has that call pending when the frame arrives.
func (w *world) sendRPCEdge(kind string) error {
	body, ok := rpcEdges[kind]
	if !ok {
		return fmt.Errorf("no JSON-RPC edge %q", kind)
	}
	rt, err := w.StandIn("runtime.script.jsonrpcEdges")
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
	rt, err := w.StandIn("runtime.script.jsonrpcEdges")
	if err != nil {
		return err
	}
	rt.RejectNext("session.send", wire.RPCError{Code: n, Message: msg, Data: json.RawMessage(data)})
	return nil
}

// triesSend sends a prompt without waiting for the turn, keeping what the SDK returned or
// raised for "the SDK raised an error mentioning …".
func (w *world) triesSend(prompt string) error {
	s, err := w.Current()
	if err != nil {
		return err
	}
	return w.try("send", map[string]any{"session": s.Handle, "prompt": prompt, "wait": false})
}

// triedRPCError is the JSON-RPC code and data of the error of the last "tries to" step, as the
// driver read them from the SDK's own error type (capability error.rpc.code, PROTOCOL.md
// "Messages").
func (w *world) triedRPCError() (code, data json.RawMessage, err error) {
	if w.tried == nil {
		return nil, nil, fmt.Errorf("no step tried an SDK call whose error could be checked")
	}
	if w.tried.Outcome != driver.Error || w.tried.Error == nil {
		return nil, nil, fmt.Errorf("the SDK returned %s, want it to raise an error", w.tried.Result)
	}
	e := w.tried.Error
	switch {
	case len(e.Code) == 0:
		return nil, nil, fmt.Errorf("driver fault: the %s driver declared error.rpc.code but reported no code with the error %q", w.T.SDK(), w.tried.ErrorText())
	case string(e.Code) == "null":
		return nil, nil, fmt.Errorf("the SDK raised %q, which carries no JSON-RPC code", w.tried.ErrorText())
	}
	return e.Code, e.Data, nil
}

// errorCarriedCode: the application can read the code the runtime answered from the SDK's error.
func (w *world) errorCarriedCode(want int) error {
	code, _, err := w.triedRPCError()
	if err != nil {
		return err
	}
	var got int
	if err := json.Unmarshal(code, &got); err != nil {
		return fmt.Errorf("the driver reported the code %s, not an integer: %w", code, err)
	}
	if got != want {
		return fmt.Errorf("the SDK raised %q with the code %d, want %d, the code the runtime answered", w.tried.ErrorText(), got, want)
	}
	return nil
}

// errorCarriedData: the application can read the data the runtime answered from the SDK's
// error, the same JSON value (keys in any order).
func (w *world) errorCarriedData(want string) error {
	_, data, err := w.triedRPCError()
	if err != nil {
		return err
	}
	if len(data) == 0 || bytes.Equal(data, []byte("null")) {
		return fmt.Errorf("the SDK raised %q without the error's data, want %s", w.tried.ErrorText(), want)
	}
	var got, exp any
	if err := json.Unmarshal(data, &got); err != nil {
		return fmt.Errorf("the driver reported the data %s, not JSON: %w", data, err)
	}
	if err := json.Unmarshal([]byte(want), &exp); err != nil {
		return fmt.Errorf("the expected data %s is not JSON: %w", want, err)
	}
	if !reflect.DeepEqual(got, exp) {
		return fmt.Errorf("the SDK raised %q with the data %s, want %s, the data the runtime answered", w.tried.ErrorText(), data, want)
	}
	return nil
}
