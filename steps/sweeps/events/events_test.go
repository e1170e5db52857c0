package events

import (
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/jsonform"
	"github.com/copilot-sdk-conformance/conformance/internal/schemagen"
	"github.com/copilot-sdk-conformance/conformance/internal/suite"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/copilot-sdk-conformance/conformance/steps/scenario"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An event the runtime wrote in another legal encoding (5.0 for 5) is judged as the value it
// stands for: an SDK that hands the application 5 passes; one that drops the event (Go's
// encoding/json refusing 5.0 for an int64 member) or misreads the number fails, naming it.
func TestAnEncodedEventIsJudgedByItsValue(t *testing.T) {
	sent := map[string]any{"type": "x.counted", "data": map[string]any{"count": 5, "ratio": 0.25}}
	tests := []struct {
		name     string
		received string // the driver's session.event report; empty: the SDK dropped the event
		fails    string
	}{
		{"received as sent", `{"type":"x.counted","data":{"count":5,"ratio":0.25}}`, ""},
		{"received as a float", `{"type":"x.counted","data":{"count":5.0,"ratio":2.5e-1}}`, ""},
		{"dropped", "", "the application never received it"},
		{"misread", `{"type":"x.counted","data":{"count":0,"ratio":0.25}}`, "/count: 5 was sent by the runtime, the application received it as 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := engineWith()
			_, ok, err := w.encoded.Encode(jsonform.Floats, sent)
			require.NoError(t, err)
			require.True(t, ok)
			w.events = []sentEvent{{et: schemagen.EventType{Type: "x.counted", Definition: "CountedEvent"}, name: "CountedEvent", data: asAny(sent["data"])}}
			if tt.received != "" {
				w.Rec.Add(transcript.Entry{Dir: transcript.DriverToHarness, Frame: json.RawMessage(`{"event":"session.event","args":` + tt.received + `}`)})
			}
			err = w.eventsReceived()
			if tt.fails == "" {
				assert.NoError(t, err)
			} else {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.fails)
			}
		})
	}
}

// The event wait goes on while reports keep arriving (a loaded machine), however long they take
// in all, and ends once they stop: before, it ended five seconds after the sweep, whatever was
// still arriving, and a slow SDK's last events read as dropped.
func TestAwaitProgressWaitsWhileReportsArrive(t *testing.T) {
	var mu sync.Mutex
	got := 0
	count := func() int { mu.Lock(); defer mu.Unlock(); return got }
	stop := make(chan struct{})
	go func() {
		for i := 0; i < 8; i++ {
			select {
			case <-stop:
				return
			case <-time.After(60 * time.Millisecond):
			}
			mu.Lock()
			got++
			mu.Unlock()
		}
	}()
	defer close(stop)
	none := func() error { return nil }
	require.NoError(t, awaitProgress(count, 8, 200*time.Millisecond, time.Minute, none))
	assert.Equal(t, 8, count(), "every report, though they took longer in all than the quiet period")

	stuck := func() int { return 2 }
	require.NoError(t, awaitProgress(stuck, 8, 50*time.Millisecond, time.Minute, none), "ends once reports stop")
	lost := errors.New("driver lost")
	assert.ErrorIs(t, awaitProgress(stuck, 8, time.Second, time.Minute, func() error { return lost }), lost)
}

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
			w := engineWith()
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

// engineWith is an engine over an empty transcript.
func engineWith() *engine {
	return &engine{Scenario: &scenario.Scenario{Rec: transcript.Memory()}}
}
