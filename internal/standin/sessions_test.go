package standin

import (
	"encoding/json"
	"testing"

	"github.com/copilot-sdk-conformance/conformance/internal/wire"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSessionUnknownToConnectionUntilResumed(t *testing.T) {
	_, _, addr := start(t)
	first := dial(t, addr)
	created := first.call("session.create", map[string]any{})
	require.Nil(t, created.Error)
	var r struct {
		SessionID string `json:"sessionId"`
	}
	require.NoError(t, json.Unmarshal(created.Result, &r))

	second := dial(t, addr)
	tests := []struct {
		name    string
		sdk     *sdk
		method  string
		wantErr bool
	}{
		{"the creating connection may use it", first, "session.options.update", false},
		{"another connection before resume may not", second, "session.options.update", true},
		{"nor send to it", second, "session.send", true},
		{"resume opens it", second, "session.resume", false},
		{"after resume it may", second, "session.options.update", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := tt.sdk.call(tt.method, map[string]any{"sessionId": r.SessionID, "prompt": "hi"})
			if !tt.wantErr {
				assert.Nil(t, m.Error)
				return
			}
			require.NotNil(t, m.Error)
			assert.Equal(t, wire.CodeInternal, m.Error.Code)
			assert.Equal(t, "Session not found: "+r.SessionID, m.Error.Message)
		})
	}
}
