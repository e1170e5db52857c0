package standin

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
)

// An awaited requestId takes one answer of each kind and refuses the second, as the real
// runtime's pending request does; without Await every answer is refused.
func TestAwaitAcceptsOneAnswer(t *testing.T) {
	for _, method := range []string{"session.tools.handlePendingToolCall", "session.permissions.handlePendingPermissionRequest", "session.ui.handlePendingElicitation"} {
		t.Run(method, func(t *testing.T) {
			s := New(transcript.Memory(), Options{})
			c := &conn{srv: s, opened: map[string]bool{"s1": true}}
			s.sessions = map[string]*session{"s1": {id: "s1", conn: c}}
			params, _ := json.Marshal(map[string]any{"sessionId": "s1", "requestId": "r1", "result": map[string]any{}})
			_, e := s.dispatch(c, method, params)
			require.NotNil(t, e, "not awaited: refused")
			require.Contains(t, e.Message, "no pending")
			require.NoError(t, s.Await("s1", "r1"))
			_, e = s.dispatch(c, method, params)
			assert.Nil(t, e, "the first answer is accepted")
			_, e = s.dispatch(c, method, params)
			assert.NotNil(t, e, "the second is refused")
		})
	}
	assert.Error(t, New(transcript.Memory(), Options{}).Await("nope", "r1"))
}
