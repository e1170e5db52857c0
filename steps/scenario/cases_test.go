package scenario

import (
	"encoding/json"
	"testing"

	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// noteCases gives each request the SDK sent during a runtime-to-SDK sweep the case that sent an
// id it names (caseSends), whenever the request came and wherever the runtime's frame stands (a
// replay writes the recorded frames when the driver command before them is answered); else the
// case a driver command opened (caseStarts) where the frame carrying its id, or the request
// itself, stands; a request before such a case, or after casesEnd, is no case's.
func TestNoteCases(t *testing.T) {
	type step struct {
		mark  string // a case starts here (caseStarts); "end": casesEnd
		sends string // a case that sends an event with the requestId ev, or id (caseSends)
		id    string
		ev    string         // the runtime sends an event with this requestId
		req   map[string]any // the SDK sends a request with these params
	}
	tests := []struct {
		name  string
		steps []step
		want  []string // the case of each SDK request, in order
	}{
		{"answers in another order than the events: by the id they name", []step{
			{req: map[string]any{"sessionId": "s1"}},
			{sends: "permission.requested all", ev: "r-a"},
			{sends: "permission.requested edge /kind shell", ev: "r-b"},
			{req: map[string]any{"requestId": "r-b", "sessionId": "s1"}},
			{req: map[string]any{"requestId": "r-a", "sessionId": "s1"}},
		}, []string{"", "permission.requested edge /kind shell", "permission.requested all"}},
		{"the frames written before the cases were noted (a replay): by what each sent", []step{
			{ev: "r-a"}, {ev: "r-b"},
			{req: map[string]any{"requestId": "r-b"}},
			{sends: "a", id: "r-a"}, {sends: "b", id: "r-b"},
		}, []string{"b"}},
		{"a request naming no id, with no case opened by a command: no case", []step{
			{sends: "a", ev: "r-a"},
			{req: map[string]any{"other": "x"}},
		}, []string{""}},
		{"cases a command opens: by where the id was given, or where the request stands", []step{
			{mark: "hold a", ev: "held-1"},
			{req: map[string]any{"other": "x"}},
			{mark: "hold b", ev: "held-2"},
			{req: map[string]any{"other": "y"}},
			{req: map[string]any{"requestId": "held-1"}},
			{mark: "end"},
			{req: map[string]any{"other": "z"}},
			{req: map[string]any{"requestId": "held-2"}},
		}, []string{"hold a", "hold b", "hold a", "", "hold b"}},
		{"an id the runtime gave before the cases is no case's", []step{
			{ev: "r-0"},
			{mark: "a", ev: "r-a"},
			{req: map[string]any{"requestId": "r-0"}},
		}, []string{""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := transcript.Memory()
			w := &Scenario{Rec: rec}
			id := 0
			event := func(requestID string) map[string]any {
				return map[string]any{"sessionId": "s1", "event": map[string]any{"data": map[string]any{"requestId": requestID}}}
			}
			for _, s := range tt.steps {
				switch s.mark {
				case "":
				case "end":
					w.CasesEnd()
				default:
					w.CaseStarts(s.mark)
				}
				if s.sends != "" {
					w.CaseSends(s.sends, event(s.ev+s.id))
				}
				if s.ev != "" {
					b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "session.event", "params": event(s.ev)})
					rec.Frame("c1", transcript.RuntimeToSDK, b)
				}
				if s.req != nil {
					id++
					b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "m", "params": s.req})
					rec.Frame("c1", transcript.SDKToRuntime, b)
				}
			}
			w.noteCases()
			var got []string
			for _, r := range transcript.Requests(rec.Entries(), "") {
				got = append(got, r.Case)
			}
			require.Len(t, got, len(tt.want))
			assert.Equal(t, tt.want, got)
			assert.Empty(t, w.caseMarks, "the marks are used once")
		})
	}
}
