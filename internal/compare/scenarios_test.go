package compare

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// writeRequests writes a transcript under dir of the SDK sending one request per params, in
// order, all of method, and returns its path relative to dir.
func writeRequests(t *testing.T, dir, sdk, method string, params ...string) string {
	t.Helper()
	rel := filepath.Join("transcripts", sdk, "s.ndjson")
	var b strings.Builder
	for i, p := range params {
		frame := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, i+1, method, p)
		line, err := json.Marshal(transcript.Entry{Seq: i + 1, Conn: "c1", Dir: transcript.SDKToRuntime, Frame: json.RawMessage(frame)})
		require.NoError(t, err)
		b.Write(append(line, '\n'))
	}
	require.NoError(t, os.MkdirAll(filepath.Join(dir, filepath.Dir(rel)), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, rel), []byte(b.String()), 0o644))
	return rel
}

// A hand-written scenario whose requests of one method go out several at a time in no fixed
// order is compared request by request by what each carries: the same requests in another
// order are no difference, and the one request that differs is one difference, once. Only a
// method whose order a feature checks (report.RequestOrder) is compared by position.
func TestScenariosPairRequestsByValue(t *testing.T) {
	const method = "session.log"
	a, b, c := `{"sessionId":"s","message":"a","level":"info"}`, `{"sessionId":"s","message":"b","level":"info"}`, `{"sessionId":"s","message":"c","level":"info"}`
	bWarn := `{"sessionId":"s","message":"b","level":"warning"}`
	tests := []struct {
		name    string
		node    []string
		checked []report.Check
		want    []string // "request path" of each difference
	}{
		{name: "the same requests in another order", node: []string{c, a, b}, want: nil},
		{name: "another order and one request changed", node: []string{c, bWarn, a}, want: []string{"session.log#2 level"}},
		{name: "one request more, sent first", node: []string{`{"sessionId":"s","message":"d","level":"info"}`, b, c, a},
			want: []string{"session.log#4 "}},
		{name: "an order a feature checks is compared by position", node: []string{c, a, b},
			checked: []report.Check{{Method: method, Path: report.RequestOrder}},
			want:    []string{"session.log#1 message", "session.log#2 message", "session.log#3 message"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			rs := []report.Result{
				{Feature: "f.feature", Scenario: "s", SDK: "go", Status: report.Passed, Transcript: writeRequests(t, dir, "go", method, a, b, c), Checked: tt.checked},
				{Feature: "f.feature", Scenario: "s", SDK: "node", Status: report.Passed, Transcript: writeRequests(t, dir, "node", method, tt.node...), Checked: tt.checked},
			}
			comps, err := Scenarios(transcript.NewStore(dir), rs)
			require.NoError(t, err)
			require.Len(t, comps, 1)
			var got []string
			for _, d := range comps[0].Differences {
				got = append(got, d.Request+" "+d.Path)
			}
			assert.Equal(t, tt.want, got)
		})
	}
}
