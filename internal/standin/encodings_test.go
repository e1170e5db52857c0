package standin

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/jsonform"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/copilot-sdk-conformance/conformance/internal/wire"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The stand-in writes a value in another legal encoding byte for byte (a queued answer, an
// event, a runtime-to-SDK request's params): what the SDK reads is 5.0, 5e0 or "\u00e9", not
// the canonical form. A misbehaving SDK (a strict reader: an int member refuses 5.0, as Go's
// encoding/json and serde do) fails on it, and a reader that decodes JSON numbers as numbers
// gets the same value.
func TestLegalEncodingsReachTheSDKByteForByte(t *testing.T) {
	value := map[string]any{"count": 5, "name": "é/x", "size": 1234}
	type strict struct {
		Count int    `json:"count"`
		Name  string `json:"name"`
		Size  int    `json:"size"`
	}
	for _, form := range jsonform.Forms {
		t.Run(string(form), func(t *testing.T) {
			raw, _, err := jsonform.Encode(value, form)
			require.NoError(t, err)
			answers := &Answers{Results: map[string]json.RawMessage{"models.list": json.RawMessage(`{}`)}, Public: map[string]bool{"models.list": true}}
			rec := transcript.Memory()
			srv := New(rec, Options{Answers: answers, ToolTimeout: 5 * time.Second})
			addr, err := srv.Listen("127.0.0.1:0")
			require.NoError(t, err)
			t.Cleanup(srv.Close)
			srv.SetGeneratedAnswers()
			srv.QueueAnswers("models.list", []json.RawMessage{raw})
			c := dial(t, addr)

			// An answer.
			got := c.call("models.list", map[string]any{}).Result
			assert.Equal(t, string(raw), string(got), "the answer's bytes")
			var lenient map[string]any
			require.NoError(t, json.Unmarshal(got, &lenient))
			assert.Equal(t, map[string]any{"count": 5.0, "name": "é/x", "size": 1234.0}, lenient)
			var s strict
			if err := json.Unmarshal(got, &s); form == jsonform.Escapes {
				assert.NoError(t, err)
				assert.Equal(t, strict{5, "é/x", 1234}, s)
			} else {
				assert.Error(t, err, "a strict reader refuses %s", got)
			}

			// An event and a runtime-to-SDK request on a session.
			created := c.call("session.create", map[string]any{"sessionId": "sess-enc"})
			require.Nil(t, created.Error)
			require.NoError(t, srv.Emit("sess-enc", json.RawMessage(`{"id":"e1","timestamp":"2026-01-01T00:00:00Z","parentId":null,"type":"conformance.encoded","data":`+string(raw)+`}`)))
			m := c.read()
			assert.Equal(t, "session.event", m.Method)
			assert.Contains(t, string(m.Params), `"data":`+string(raw), "the event's bytes")
			go func() { _, _ = srv.Ask("sess-enc", "conformance.encodedRequest", raw, false) }()
			req := c.read()
			assert.Equal(t, string(raw), string(req.Params), "the request's params' bytes")
			body, _ := json.Marshal(wire.Message{JSONRPC: "2.0", ID: req.ID, Result: json.RawMessage(`{}`)})
			require.NoError(t, c.w.Write(body))

			// The transcript records what was written.
			var frames int
			for _, e := range rec.Entries() {
				if e.Dir == transcript.RuntimeToSDK && strings.Contains(string(e.Frame), string(raw)) {
					frames++
				}
			}
			assert.Equal(t, 3, frames, "answer, event and request recorded as written")
		})
	}
}
