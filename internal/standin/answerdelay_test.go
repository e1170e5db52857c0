package standin

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/copilot-sdk-conformance/conformance/internal/wire"
)

// A withheld answer (AnswerDelays, a model step's Pause) is what the cancellation scenarios
// need: the SDK's call waits while the connection keeps serving, and the answer still comes, late.
func TestAnswerDelayWithholdsOnlyThatMethod(t *testing.T) {
	tests := []struct {
		name      string
		delayed   string // the method whose answer is withheld
		wantOrder []string
	}{
		{"the delayed method is answered after a later request", "ping", []string{"11", "10"}},
		{"another method's delay holds nothing back", "session.send", []string{"10", "11"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _, addr := start(t)
			srv.SetAnswerDelay(tt.delayed, 300*time.Millisecond)
			s := dial(t, addr)
			s.call("connect", map[string]any{})
			for _, id := range []string{"10", "11"} {
				method := map[string]string{"10": "ping", "11": "no.such.method"}[id]
				body, _ := json.Marshal(wire.Message{JSONRPC: "2.0", ID: json.RawMessage(id), Method: method, Params: json.RawMessage(`{}`)})
				require.NoError(t, s.w.Write(body))
			}
			var order []string
			for len(order) < 2 {
				if m := s.read(); m.IsResponse() {
					order = append(order, string(m.ID))
				}
			}
			assert.Equal(t, tt.wantOrder, order)
		})
	}
}

func TestPauseEndsTheTurnLate(t *testing.T) {
	tests := []struct {
		name  string
		pause time.Duration
	}{
		{"no pause", 0},
		{"a pause of 300 ms", 300 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _, addr := start(t)
			steps := []ModelStep{{Reply: "late"}}
			if tt.pause > 0 {
				steps = append([]ModelStep{{Pause: tt.pause}}, steps...)
			}
			srv.AddTurn(Turn{Steps: steps})
			s := dial(t, addr)
			s.call("connect", map[string]any{})
			created := s.call("session.create", map[string]any{"sessionId": "S"})
			require.Nil(t, created.Error)
			sent := s.call("session.send", map[string]any{"sessionId": "S", "prompt": "p"})
			require.Nil(t, sent.Error, "session.send is answered at once, the turn goes on")
			start := time.Now()
			assert.Equal(t, "late", s.until("assistant.message")["content"])
			s.until("session.idle")
			// The turn began a little before session.send's answer was read.
			assert.GreaterOrEqual(t, time.Since(start), tt.pause-50*time.Millisecond)
		})
	}
}

// Queued turns (Script.QueueTurns): a session.send read while a turn runs is answered at once,
// and its turn (user.message first) begins only after the running turn's session.idle; side by
// side (the default) the second turn starts while the first still runs. The first turn's reply
// is held until the test releases it (UntilReleased), never for a time: queued, once the second
// prompt was answered (its turn must still wait for the first's idle); side by side, once the
// second turn ended (it played meanwhile). The first turn's user.message is read before the
// second prompt is sent: its goroutine starts before session.send's answer, but a loaded machine
// may run it after the second turn's.
func TestQueuedTurnsBeginAfterTheTurnBefore(t *testing.T) {
	tests := []struct {
		name      string
		queue     bool
		releaseAt int      // how many events were read when the first turn's reply is released
		want      []string // the session events in the order the SDK reads them
	}{
		{"queued", true, 1, []string{"user.message m1", "assistant.message first", "session.idle", "user.message m2", "assistant.message second", "session.idle"}},
		{"side by side", false, 4, []string{"user.message m1", "user.message m2", "assistant.message second", "session.idle", "assistant.message first", "session.idle"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _, addr := start(t)
			srv.SetQueueTurns(tt.queue)
			srv.AddTurn(Turn{Steps: []ModelStep{{Pause: time.Minute, UntilReleased: true}, {Reply: "first"}}})
			srv.AddTurn(Turn{Steps: []ModelStep{{Reply: "second"}}})
			s := dial(t, addr)
			s.call("connect", map[string]any{})
			require.Nil(t, s.call("session.create", map[string]any{"sessionId": "S"}).Error)
			require.Nil(t, s.call("session.send", map[string]any{"sessionId": "S", "prompt": "one"}).Error)
			got := []string{fmt.Sprint("user.message ", s.until("user.message")["messageId"])}
			require.Nil(t, s.call("session.send", map[string]any{"sessionId": "S", "prompt": "two"}).Error, "answered at once, queued or not")
			for len(got) < len(tt.want) {
				if len(got) == tt.releaseAt {
					srv.ReleaseHeld()
				}
				var m wire.Message
				if len(s.seen) > 0 { // read before session.send's answer
					m, s.seen = s.seen[0], s.seen[1:]
				} else {
					m = s.read()
				}
				var p struct {
					Event struct {
						Type string         `json:"type"`
						Data map[string]any `json:"data"`
					} `json:"event"`
				}
				if m.Method != "session.event" || json.Unmarshal(m.Params, &p) != nil {
					continue
				}
				switch p.Event.Type {
				case "user.message":
					got = append(got, fmt.Sprint("user.message ", p.Event.Data["messageId"]))
				case "assistant.message":
					got = append(got, fmt.Sprint("assistant.message ", p.Event.Data["content"]))
				case "session.idle":
					got = append(got, "session.idle")
				}
			}
			assert.Equal(t, tt.want, got)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			assert.NoError(t, srv.Wait(ctx))
		})
	}
}
