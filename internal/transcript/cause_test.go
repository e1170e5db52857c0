package transcript

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// frames records each line as a frame on c1 (">" the SDK's, "<" the runtime's, "d" a driver
// line) and returns the transcript.
func frames(lines ...string) []Entry {
	r := Memory()
	for _, l := range lines {
		switch l[0] {
		case '>':
			r.Frame("c1", SDKToRuntime, []byte(l[1:]))
		case '<':
			r.Frame("c1", RuntimeToSDK, []byte(l[1:]))
		default:
			r.Frame("driver", "harness->driver", []byte(l[1:]))
		}
	}
	return r.Entries()
}

func TestCause(t *testing.T) {
	tests := []struct {
		name    string
		entries []Entry
		since   int
		want    string // a part of the blame; empty: no cause
	}{
		{
			name: "a send naming the session before its create was answered",
			entries: frames(
				`>{"jsonrpc":"2.0","id":1,"method":"session.create","params":{"sessionId":"s1"}}`,
				`>{"jsonrpc":"2.0","id":2,"method":"session.send","params":{"sessionId":"s1","prompt":"hi"}}`,
				`<{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s1"}}`,
				`<{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"session not found"}}`,
			),
			since: 1,
			want:  "sdk->runtime request session.send (id 2, conn c1, transcript line 2) named session s1 before its opening session.create (id 1, transcript line 1) was answered (line 3)",
		},
		{
			name: "the session known only from the opening's answer",
			entries: frames(
				`>{"jsonrpc":"2.0","id":1,"method":"session.resume","params":{}}`,
				`<{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s1"}}`,
				`>{"jsonrpc":"2.0","id":2,"method":"session.send","params":{"sessionId":"s1"}}`,
				`<{"jsonrpc":"2.0","id":2,"result":{}}`,
			),
			since: 1,
		},
		{
			name: "the opening never answered",
			entries: frames(
				`>{"jsonrpc":"2.0","id":7,"method":"session.create","params":{"sessionId":"s1"}}`,
				`>{"jsonrpc":"2.0","id":8,"method":"session.log","params":{"sessionId":"s1"}}`,
			),
			since: 3,
			want:  "session.log (id 8, conn c1, transcript line 2) named session s1 before its opening session.create (id 7, transcript line 1) was answered",
		},
		{
			name: "a runtime request the SDK never answered before the call",
			entries: frames(
				`>{"jsonrpc":"2.0","id":1,"method":"session.create","params":{"sessionId":"s1"}}`,
				`<{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s1"}}`,
				`<{"jsonrpc":"2.0","id":"p1","method":"permission.request","params":{"sessionId":"s1"}}`,
				`<{"jsonrpc":"2.0","id":"p2","method":"userInput.request","params":{"sessionId":"s1"}}`,
				`<{"jsonrpc":"2.0","id":"p1","result":{}}`, // the runtime's id echoed by the runtime: not the SDK's answer
				`d{"id":1,"cmd":"send"}`,
				`>{"jsonrpc":"2.0","id":2,"method":"session.send","params":{"sessionId":"s1"}}`,
			),
			since: 6,
			want:  `runtime->sdk request permission.request (id "p1", conn c1, transcript line 3) was still waiting for the SDK's answer when the call failed`,
		},
		{
			name: "an SDK request the runtime still held before the call",
			entries: frames(
				`>{"jsonrpc":"2.0","id":1,"method":"session.create","params":{"sessionId":"s1"}}`,
				`<{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s1"}}`,
				`>{"jsonrpc":"2.0","id":2,"method":"session.model.switchTo","params":{"sessionId":"s1"}}`,
				`d{"id":1,"cmd":"send"}`,
				`>{"jsonrpc":"2.0","id":3,"method":"session.send","params":{"sessionId":"s1"}}`,
			),
			since: 4,
			want:  "sdk->runtime request session.model.switchTo (id 2, conn c1, transcript line 3) was still waiting for the runtime's answer",
		},
		{
			name: "the call's own request unanswered is no earlier cause",
			entries: frames(
				`>{"jsonrpc":"2.0","id":1,"method":"session.create","params":{"sessionId":"s1"}}`,
				`<{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s1"}}`,
				`d{"id":1,"cmd":"send"}`,
				`>{"jsonrpc":"2.0","id":2,"method":"session.send","params":{"sessionId":"s1"}}`,
			),
			since: 3,
		},
		{
			name: "an unrelated failure: everything answered in order",
			entries: frames(
				`>{"jsonrpc":"2.0","id":1,"method":"session.create","params":{"sessionId":"s1"}}`,
				`<{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s1"}}`,
				`<{"jsonrpc":"2.0","id":"t1","method":"tool.call","params":{"sessionId":"s1"}}`,
				`>{"jsonrpc":"2.0","id":"t1","result":{"text":"ok"}}`,
				`>{"jsonrpc":"2.0","id":2,"method":"session.send","params":{"sessionId":"s1"}}`,
				`<{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"boom"}}`,
			),
			since: 5,
		},
		{
			name: "another connection's session is not this one's",
			entries: append(frames(
				`>{"jsonrpc":"2.0","id":1,"method":"session.create","params":{"sessionId":"s1"}}`,
				`<{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s1"}}`,
			), Entry{Seq: 3, Conn: "c2", Dir: SDKToRuntime, Frame: []byte(`{"jsonrpc":"2.0","id":1,"method":"session.resume","params":{"sessionId":"s1"}}`)},
				Entry{Seq: 4, Conn: "c2", Dir: RuntimeToSDK, Frame: []byte(`{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s1"}}`)}),
			since: 5,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, ok := Cause(tt.entries, tt.since)
			if tt.want == "" {
				assert.False(t, ok, "a false cause: %s", b)
				return
			}
			require.True(t, ok)
			assert.Contains(t, b.String(), tt.want)
		})
	}
}
