package steps

import (
	"encoding/json"
	"testing"

	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// noteCases gives each request the SDK sent during a runtime-to-SDK sweep the case of the
// runtime frame that first carried an id it names, whenever it came; else, for a sweep that
// waits for each case, the case it came in; a request before the sweep is no case's.
func TestNoteCases(t *testing.T) {
	type step struct {
		mark string         // a case starts here (caseStarts); "end": the sweep ends (casesEnd)
		ev   string         // the runtime sends an event with this requestId
		req  map[string]any // the SDK sends a request with these params
	}
	tests := []struct {
		name  string
		spans bool
		steps []step
		want  []string // the case of each SDK request, in order
	}{
		{"answers in another order than the events: by the id they name", false, []step{
			{req: map[string]any{"sessionId": "s1"}},
			{mark: "permission.requested all", ev: "r-a"},
			{mark: "permission.requested edge /kind shell", ev: "r-b"},
			{req: map[string]any{"requestId": "r-b", "sessionId": "s1"}},
			{req: map[string]any{"requestId": "r-a", "sessionId": "s1"}},
		}, []string{"", "permission.requested edge /kind shell", "permission.requested all"}},
		{"a request naming no id: no case when the cases overlap", false, []step{
			{mark: "a", ev: "r-a"},
			{req: map[string]any{"other": "x"}},
		}, []string{""}},
		{"a request naming no id: the case it came in when each is waited for", true, []step{
			{mark: "a", ev: "r-a"},
			{req: map[string]any{"other": "x"}},
			{mark: "b", ev: "r-b"},
			{req: map[string]any{"other": "y"}},
			{req: map[string]any{"requestId": "r-a"}},
		}, []string{"a", "b", "a"}},
		{"after the sweep: an answer naming a case's id is that case's, another request none", true, []step{
			{mark: "a", ev: "r-a"},
			{mark: "end"},
			{req: map[string]any{"other": "x"}},
			{req: map[string]any{"requestId": "r-a"}},
		}, []string{"", "a"}},
		{"an id the runtime gave before the sweep is no case's", true, []step{
			{ev: "r-0"},
			{mark: "a", ev: "r-a"},
			{req: map[string]any{"requestId": "r-0"}},
		}, []string{"a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := transcript.Memory()
			w := &world{rec: rec}
			id := 0
			for _, s := range tt.steps {
				switch s.mark {
				case "":
				case "end":
					w.casesEnd(tt.spans)
				default:
					w.caseStarts(s.mark)
				}
				if s.ev != "" {
					b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "session.event", "params": map[string]any{"sessionId": "s1", "event": map[string]any{"data": map[string]any{"requestId": s.ev}}}})
					rec.Frame("c1", transcript.RuntimeToSDK, b)
				}
				if s.req != nil {
					id++
					b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "m", "params": s.req})
					rec.Frame("c1", transcript.SDKToRuntime, b)
				}
			}
			if w.casesFrom < len(w.caseMarks) {
				w.casesEnd(tt.spans) // the sweep ends here unless it ended before
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

// A generated secret's value (and so its fingerprint in the transcript) is the same in every
// run for the same method and place, and differs between places: two runs of one case pair
// their redacted values.
func TestSecretsApartIsStable(t *testing.T) {
	params := map[string]any{"apiKey": "x", "token": "x", "provider": map[string]any{"bearerToken": "x", "name": "n"},
		"headers": []any{map[string]any{"authToken": "x"}}}
	first := secretsApart(params, "session.provider.add")
	for range 20 { // map order differs from call to call
		assert.Equal(t, first, secretsApart(params, "session.provider.add"))
	}
	seen := map[string]bool{}
	for _, v := range []any{first["apiKey"], first["token"], first["provider"].(map[string]any)["bearerToken"], first["headers"].([]any)[0].(map[string]any)["authToken"]} {
		s := v.(string)
		assert.False(t, seen[s], "each secret its own value: %s", s)
		seen[s] = true
	}
	assert.Equal(t, "n", first["provider"].(map[string]any)["name"])
	assert.NotEqual(t, first["apiKey"], secretsApart(params, "sessions.open")["apiKey"], "another method, another value")
}
