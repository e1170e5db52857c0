package standin

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/copilot-sdk-conformance/conformance/internal/wire"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A frame scripted before the next answer arrives while that call is pending, then the call's
// own answer: an SDK that fails its pending call on a frame naming no call (the Rust SDK on an
// error with a null id) fails there; one that ignores it gets its answer. A scripted rejection
// answers only the next call, with its code, message and data; the call after is answered.
func TestJSONRPCEdgesArriveWhileTheCallIsPending(t *testing.T) {
	srv, _, addr := start(t)
	c := dial(t, addr)
	require.Nil(t, c.call("session.create", map[string]any{"sessionId": "s1"}).Error)
	nullID := json.RawMessage(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`)
	srv.BeforeNextAnswer("session.send", nullID)
	srv.RejectNext("session.send", wire.RPCError{Code: -32099, Message: "busy", Data: json.RawMessage(`{"retry":true}`)})

	c.next++
	id := fmt.Sprint(c.next)
	body, _ := json.Marshal(wire.Message{JSONRPC: "2.0", ID: json.RawMessage(id), Method: "session.send", Params: json.RawMessage(`{"sessionId":"s1","prompt":"hi"}`)})
	require.NoError(t, c.w.Write(body))
	first := c.read()
	assert.Equal(t, "null", string(first.ID), "the null-id error comes first, the call still pending")
	require.NotNil(t, first.Error)
	assert.Equal(t, -32700, first.Error.Code)
	answer := c.read()
	assert.Equal(t, id, string(answer.ID))
	require.NotNil(t, answer.Error, "the rejection answers the call")
	assert.Equal(t, wire.RPCError{Code: -32099, Message: "busy", Data: json.RawMessage(`{"retry":true}`)}, *answer.Error)

	again := c.call("session.send", map[string]any{"sessionId": "s1", "prompt": "again"})
	assert.Nil(t, again.Error, "only the next call is rejected, and the frame is written once")
	for _, m := range c.seen {
		assert.NotEqual(t, "null", string(m.ID), "no second null-id frame")
	}
}
