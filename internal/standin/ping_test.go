package standin

import (
	"encoding/json"
	"testing"

	"github.com/copilot-sdk-conformance/conformance/internal/transcript"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ping is answered as the current runtime answers it (an ISO 8601 timestamp), and as a runtime
// that predates connect did (a number) only when the runtime stands for one: a scenario's
// legacy handshake, or Options.PreConnect for an SDK that cannot talk to the current runtime.
func TestPingAnswersAsTheRuntimeItStandsFor(t *testing.T) {
	tests := []struct {
		name       string
		opts       Options
		legacy     bool
		wantNumber bool
	}{
		{name: "the current runtime"},
		{name: "a scenario's runtime without connect", legacy: true, wantNumber: true},
		{name: "a stand-in for an SDK that predates connect", opts: Options{PreConnect: true}, wantNumber: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := New(transcript.Memory(), tt.opts)
			if tt.legacy {
				srv.SetLegacyHandshake()
			}
			addr, err := srv.Listen("127.0.0.1:0")
			require.NoError(t, err)
			t.Cleanup(srv.Close)
			var res struct {
				Timestamp json.RawMessage `json:"timestamp"`
			}
			require.NoError(t, json.Unmarshal(dial(t, addr).call("ping", map[string]any{"message": "hi"}).Result, &res))
			var number float64
			var text string
			if tt.wantNumber {
				assert.NoError(t, json.Unmarshal(res.Timestamp, &number), "%s", res.Timestamp)
			} else {
				require.NoError(t, json.Unmarshal(res.Timestamp, &text), "%s", res.Timestamp)
				assert.Regexp(t, `^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$`, text)
			}
		})
	}
}
