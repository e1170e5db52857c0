package standin

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeRecording plays its frames in order of the first match, each once.
type fakeRecording struct {
	frames []string // the runtime's frames sent for the steps
	later  []string // the SDK's frames after them
	played []bool
}

func (f *fakeRecording) Play(match func(json.RawMessage) bool) (json.RawMessage, []json.RawMessage, bool) {
	if f.played == nil {
		f.played = make([]bool, len(f.frames))
	}
	for i, s := range f.frames {
		if !f.played[i] && match(json.RawMessage(s)) {
			f.played[i] = true
			var later []json.RawMessage
			for _, l := range f.later {
				later = append(later, json.RawMessage(l))
			}
			return json.RawMessage(s), later, true
		}
	}
	return nil, nil, false
}

// A replay's runtime has no SDK connected: what the steps have it send is found in the
// recording, on the session the recording opened, and its answers are the SDK's recorded ones.
func TestReplayedRuntimePlaysTheRecording(t *testing.T) {
	rec := &fakeRecording{
		frames: []string{
			`{"method":"session.event","params":{"sessionId":"s","event":{"type":"x.requested","data":{"requestId":"r1"}}}}`,
			`{"id":4,"method":"hooks.invoke","params":{"sessionId":"s"}}`,
			`{"method":"session.event","params":{"sessionId":"s","event":{"type":"external_tool.requested","data":{"requestId":"held-3","toolName":"lookup"}}}}`,
			`{"method":"session.event","params":{"sessionId":"s","event":{"type":"external_tool.requested","data":{"requestId":"held-4","toolName":"lookup"}}}}`,
		},
		later: []string{`{"id":4,"result":{"ok":true}}`, `{"id":"a","method":"session.tools.handlePendingToolCall","params":{"requestId":"held-3"}}`},
	}
	s := New(transcript.Memory(), Options{Recording: rec})
	require.NoError(t, s.Await("s", "r1"), "the awaited request is the recording's")
	require.NoError(t, s.Emit("s", map[string]any{"type": "x.requested", "data": map[string]any{"requestId": "r1"}}))
	assert.Error(t, s.Emit("s", map[string]any{"type": "x.requested", "data": map[string]any{"requestId": "r1"}}), "played once")
	assert.Error(t, s.EmitTogether("other", map[string]any{"type": "x.requested"}), "not on a session the recording sent it on")

	m, err := s.Ask("s", "hooks.invoke", nil, false)
	require.NoError(t, err)
	assert.JSONEq(t, `{"ok":true}`, string(m.Result), "the SDK's recorded answer")

	id, err := s.CallTool("s", "lookup", nil)
	assert.NoError(t, err)
	assert.Equal(t, "held-3", id, "the recorded requestId")
	id, err = s.CallTool("s", "lookup", nil)
	assert.Equal(t, "held-4", id)
	assert.True(t, errors.Is(err, ErrUnanswered), "the recording holds no answer naming it: %v", err)
}
