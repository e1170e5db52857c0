package standin

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/copilot-sdk-conformance/conformance/internal/wire"
)

// A withheld answer waits for the SDK's next request of its kind, not for a time: another
// method's request is answered meanwhile; the next request of the kind releases it, written
// before that request's own answer; with no next request the backstop releases it.
func TestWithholdNextUntilTheSameCallAgain(t *testing.T) {
	tests := []struct {
		name     string
		withheld []string
		sent     []string // methods of requests 10, 11, …
		want     []string // the ids answered, in order
	}{
		{"another method is answered meanwhile, the same one releases it", []string{"ping"}, []string{"ping", "no.such.method", "ping"}, []string{"11", "10", "12"}},
		{"one kind of several methods", []string{"ping", "no.such.other"}, []string{"ping", "no.such.other"}, []string{"10", "11"}},
		{"only the next one is withheld", []string{"ping"}, []string{"ping", "ping", "ping"}, []string{"10", "11", "12"}},
		{"no other request: the backstop releases it", []string{"ping"}, []string{"ping"}, []string{"10"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _, addr := start(t)
			srv.WithholdNext(200*time.Millisecond, tt.withheld...)
			s := dial(t, addr)
			s.call("connect", map[string]any{})
			for i, method := range tt.sent {
				id := json.RawMessage(strconv.Itoa(10 + i))
				body, _ := json.Marshal(wire.Message{JSONRPC: "2.0", ID: id, Method: method, Params: json.RawMessage(`{}`)})
				require.NoError(t, s.w.Write(body))
			}
			var order []string
			for len(order) < len(tt.want) {
				if m := s.read(); m.IsResponse() {
					order = append(order, string(m.ID))
				}
			}
			assert.Equal(t, tt.want, order)
		})
	}
}

// A model step UntilNextPrompt ends when the session's next prompt is read: the first turn's
// reply comes only after the second session.send.
func TestModelWaitsForTheNextPrompt(t *testing.T) {
	srv, _, addr := start(t)
	srv.AddTurn(Turn{Steps: []ModelStep{{Pause: time.Minute, UntilNextPrompt: true}, {Reply: "first"}}})
	srv.AddTurn(Turn{Steps: []ModelStep{{Reply: "second"}}})
	s := dial(t, addr)
	s.call("connect", map[string]any{})
	require.Nil(t, s.call("session.create", map[string]any{"sessionId": "S"}).Error)
	require.Nil(t, s.call("session.send", map[string]any{"sessionId": "S", "prompt": "one"}).Error)
	s.until("user.message")
	require.Nil(t, s.call("session.send", map[string]any{"sessionId": "S", "prompt": "two"}).Error)
	var replies []any
	for len(replies) < 2 {
		replies = append(replies, s.until("assistant.message")["content"])
	}
	assert.ElementsMatch(t, []any{"first", "second"}, replies, "the first turn ended once the next prompt came, a minute before its backstop")
}

// ReleaseWithheld ends every withholding: the withheld answer is written with no other request
// of its kind, and a model step waiting for the next prompt goes on.
func TestReleaseWithheld(t *testing.T) {
	srv, _, addr := start(t)
	srv.WithholdNext(time.Minute, "ping")
	srv.AddTurn(Turn{Steps: []ModelStep{{Pause: time.Minute, UntilNextPrompt: true}, {Reply: "released"}}})
	s := dial(t, addr)
	s.call("connect", map[string]any{})
	require.Nil(t, s.call("session.create", map[string]any{"sessionId": "S"}).Error)
	body, _ := json.Marshal(wire.Message{JSONRPC: "2.0", ID: json.RawMessage("90"), Method: "ping", Params: json.RawMessage(`{}`)})
	require.NoError(t, s.w.Write(body))
	require.Nil(t, s.call("session.send", map[string]any{"sessionId": "S", "prompt": "one"}).Error)
	s.until("user.message")
	srv.ReleaseWithheld()
	// Both come a minute before their backstops, or the read's deadline fails the test.
	var pinged, replied bool
	for !pinged || !replied {
		var m wire.Message
		if len(s.seen) > 0 {
			m, s.seen = s.seen[0], s.seen[1:]
		} else {
			m = s.read()
		}
		pinged = pinged || m.IsResponse() && string(m.ID) == "90"
		replied = replied || m.Method == "session.event" && strings.Contains(string(m.Params), `"released"`)
	}
}

// A model step UntilReleased ends when the scenario calls ReleaseHeld, not before (a minute's
// backstop), and with no call at its backstop: the held reply never comes before the release.
func TestModelHoldsItsReplyUntilReleased(t *testing.T) {
	tests := []struct {
		name     string
		backstop time.Duration
		release  bool
	}{
		{"released by the scenario", time.Minute, true},
		{"released by the backstop", 300 * time.Millisecond, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _, addr := start(t)
			srv.AddTurn(Turn{Steps: []ModelStep{{Pause: tt.backstop, UntilReleased: true}, {Reply: "held"}}})
			s := dial(t, addr)
			s.call("connect", map[string]any{})
			require.Nil(t, s.call("session.create", map[string]any{"sessionId": "S"}).Error)
			require.Nil(t, s.call("session.send", map[string]any{"sessionId": "S", "prompt": "one"}).Error)
			s.until("user.message")
			require.Nil(t, s.call("ping", map[string]any{}).Error)
			for _, m := range s.seen {
				assert.NotContains(t, string(m.Params), `"held"`, "the reply came before its release")
			}
			if tt.release {
				srv.ReleaseHeld()
				srv.ReleaseHeld() // a second release is harmless
			}
			assert.Equal(t, "held", s.until("assistant.message")["content"])
		})
	}
}

// A cancelled call's prompts (HoldPrompts) each start the turn scripted for it, and none is the
// next prompt a step UntilNextPrompt waits for: a prompt written late by a cancelled attempt and
// the prompt of the attempt made again both wait for the application's next prompt, which takes
// the turn scripted after, and every turn ends only after that prompt was answered.
func TestCancelledCallsPromptsShareItsTurn(t *testing.T) {
	srv, _, addr := start(t)
	srv.SetQueueTurns(true)
	srv.AddTurn(Turn{Steps: []ModelStep{{Pause: time.Minute, UntilNextPrompt: true}, {Reply: "cancelled"}}})
	srv.AddTurn(Turn{Steps: []ModelStep{{Reply: "next"}}})
	s := dial(t, addr)
	s.call("connect", map[string]any{})
	require.Nil(t, s.call("session.create", map[string]any{"sessionId": "S"}).Error)
	srv.HoldPrompts()
	for _, prompt := range []string{"written late", "made again"} {
		require.Nil(t, s.call("session.send", map[string]any{"sessionId": "S", "prompt": prompt}).Error)
	}
	s.until("user.message")
	srv.EndHeldPrompts()
	require.Nil(t, s.call("session.send", map[string]any{"sessionId": "S", "prompt": "next"}).Error)
	for _, m := range s.seen {
		assert.NotContains(t, string(m.Params), "assistant.message", "a turn ended before the application's next prompt was answered")
	}
	var replies []any
	for len(replies) < 3 {
		replies = append(replies, s.until("assistant.message")["content"])
	}
	assert.Equal(t, []any{"cancelled", "cancelled", "next"}, replies, "both of the cancelled call's prompts played its turn, the next prompt the turn scripted after")
}
