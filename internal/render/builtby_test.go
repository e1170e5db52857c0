package render

import (
	"testing"

	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/stretchr/testify/assert"
)

// The drivers' tallies of SDK types built through the SDK's own deserializer (which could not
// show a serializer mistake) are in the summary, one clause per SDK that reports one.
func TestSummaryShowsBuiltByTally(t *testing.T) {
	for _, tc := range []struct {
		name  string
		notes map[string]string
		want  string
	}{
		{"a tally is shown", map[string]string{report.BuiltByNote: "40 SDK types built by name; 1 through the SDK's deserializer: X: built through the SDK's deserializer because it is an interface"},
			`SDK values the drivers build from JSON (drivers/PROTOCOL.md "Building SDK values"; ` + "`notes[\"driver.builtBy\"]`" + ` in results.json): node: 40 SDK types built by name; 1 through the SDK's deserializer: X: built through the SDK's deserializer because it is an interface.`},
		{"no tally, no line", map[string]string{"session.setTools": "no setTools"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := sample()
			r.SDKs[0].Notes = tc.notes
			r.Tally()
			md := MarkdownText(r)
			if tc.want == "" {
				assert.NotContains(t, md, "SDK values the drivers build")
			} else {
				assert.Contains(t, md, tc.want)
			}
		})
	}
}
