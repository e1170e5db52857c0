package steps

import (
	"encoding/json"
	"testing"

	"github.com/copilot-sdk-conformance/conformance/internal/schemagen"
	"github.com/copilot-sdk-conformance/conformance/internal/suite"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The event check pairs several events of one type by content: a stand-in that drops one of
// them fails on that one alone, not on every one after it; one that decodes an alternative as
// another fails; and an absent field stays absent.
func TestEventShapesJudgedExactly(t *testing.T) {
	et := schemagen.EventType{Type: "permission.requested", Definition: "PermissionRequestedEvent"}
	sent := []string{`{"request":{"kind":"read","path":"p"}}`, `{"request":{"kind":"write","file":"f"}}`, `{"request":{"kind":"factory","name":"n"}}`}
	tests := []struct {
		name     string
		received []string
		want     []string // the failing cases' lines (a substring each), none when it passes
	}{
		{"every alternative as sent, in another order", []string{sent[2], sent[0], sent[1]}, nil},
		{"one dropped: only it is missing", []string{sent[0], sent[2]}, []string{`[PermissionRequestedEvent union write]: the application never received it`}},
		{"fields stripped and one dropped: each keeps its own place", []string{`{"request":{"kind":"read"}}`, `{"request":{"kind":"factory"}}`},
			[]string{`[PermissionRequestedEvent union read]: data /request/path: "p" was sent by the runtime, the application received it without it`,
				`[PermissionRequestedEvent union write]: the application never received it`,
				`[PermissionRequestedEvent union factory]: data /request/name: "n" was sent by the runtime, the application received it without it`}},
		{"an alternative decoded as another", []string{sent[0], sent[1], `{"request":{"kind":"write","name":"n"}}`},
			[]string{`[PermissionRequestedEvent union factory]: data /request/kind: "factory" was sent by the runtime, the application received it as "write"`}},
		{"a default filled in", []string{sent[0], sent[1], `{"request":{"kind":"factory","name":"n","limit":0}}`},
			[]string{`[PermissionRequestedEvent union factory]: data /request/limit: not sent by the runtime, the application received it as 0`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := worldWith(t)
			for i, s := range sent {
				var data any
				require.NoError(t, json.Unmarshal([]byte(s), &data))
				w.events = append(w.events, sentEvent{et: et, name: et.Definition + " union " + []string{"read", "write", "factory"}[i], data: data})
			}
			for _, r := range tt.received {
				w.Rec.Frame("driver", transcript.DriverToHarness, []byte(`{"event":"session.event","args":{"session":"s1","type":"permission.requested","data":`+r+`}}`))
			}
			err := w.eventsReceived()
			if tt.want == nil {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			for _, l := range tt.want {
				assert.Contains(t, err.Error(), l)
			}
			assert.Equal(t, len(tt.want), len(err.(*suite.Divergences).Items), err.Error())
		})
	}
}
