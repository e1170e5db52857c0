package standin

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/wire"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// OpenDelay makes the race between an opening and a request naming its session observable: an
// SDK that sends the request without waiting for the create/resume answer finds the session
// unknown, one that waits finds it open; the request sent at once is answered first (only the
// opening is held, the connection keeps reading).
func TestOpenDelayHoldsTheSessionUntilItsAnswer(t *testing.T) {
	tests := []struct {
		name   string
		method string
		wait   bool // the stand-in SDK waits for the opening's answer before naming the session
		known  bool // the naming request finds the session
	}{
		{"create, the next request sent at once", "session.create", false, false},
		{"create, the next request after the answer", "session.create", true, true},
		{"resume, the next request sent at once", "session.resume", false, false},
		{"resume, the next request after the answer", "session.resume", true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _, addr := start(t)
			srv.SetOpenDelay(300 * time.Millisecond)
			s := dial(t, addr)
			s.call("connect", map[string]any{})
			write := func(id, method string) {
				p, _ := json.Marshal(map[string]any{"sessionId": "S"})
				body, _ := json.Marshal(wire.Message{JSONRPC: "2.0", ID: json.RawMessage(id), Method: method, Params: p})
				require.NoError(t, s.w.Write(body))
			}
			write("10", tt.method)
			answers := map[string]wire.Message{}
			var order []string
			readAnswer := func() {
				for {
					m := s.read()
					if m.IsResponse() {
						answers[string(m.ID)] = m
						order = append(order, string(m.ID))
						return
					}
				}
			}
			if tt.wait {
				readAnswer()
			}
			write("11", "session.options.update")
			for len(answers) < 2 {
				readAnswer()
			}
			assert.Nil(t, answers["10"].Error)
			if tt.known {
				assert.Equal(t, []string{"10", "11"}, order)
				if e := answers["11"].Error; e != nil {
					assert.NotContains(t, e.Message, "Session not found")
				}
			} else {
				assert.Equal(t, []string{"11", "10"}, order, "the connection kept reading while the opening was held")
				require.NotNil(t, answers["11"].Error)
				assert.Contains(t, answers["11"].Error.Message, "Session not found: S")
			}
		})
	}
}
