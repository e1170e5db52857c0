package standin

import (
	"encoding/json"
	"testing"

	"github.com/copilot-sdk-conformance/conformance/internal/transcript"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Queued answers go out one per call, in order, then the method's generated result again; a
// method with none queued keeps its generated result, and without generated answers the queue
// is not used at all.
func TestQueuedAnswersOnePerCall(t *testing.T) {
	answers := &Answers{Results: map[string]json.RawMessage{"models.list": json.RawMessage(`{"models":[]}`), "ping": json.RawMessage(`{"pong":1}`)},
		Public: map[string]bool{"models.list": true, "ping": true}}
	srv := New(transcript.Memory(), Options{Answers: answers})
	addr, err := srv.Listen("127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	srv.QueueAnswers("models.list", []json.RawMessage{json.RawMessage(`{"a":1}`), json.RawMessage(`{"b":null}`)})
	c := dial(t, addr)
	assert.JSONEq(t, `{"models":[]}`, string(c.call("models.list", map[string]any{}).Result), "not queued without generated answers")
	srv.SetGeneratedAnswers()
	var got []string
	for i := 0; i < 3; i++ {
		got = append(got, string(c.call("models.list", map[string]any{}).Result))
	}
	assert.Equal(t, []string{`{"a":1}`, `{"b":null}`, `{"models":[]}`}, got)
	assert.JSONEq(t, `{"pong":1}`, string(c.call("ping", map[string]any{}).Result))
}
