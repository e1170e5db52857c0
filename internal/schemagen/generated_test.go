package schemagen

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
)

// TestGeneratedStringsAreKnown: every string of every generated case is known to the transcript
// as the harness's own (transcript.Generated), so one sent under a credential key is not
// scrubbed out of other scenarios' strings.
func TestGeneratedStringsAreKnown(t *testing.T) {
	d, err := Load("testdata")
	require.NoError(t, err)
	var schemaText string // a const or an enum value is the schema's, not generated
	for _, f := range []string{"api.schema.json", "session-events.schema.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", f))
		require.NoError(t, err)
		schemaText += string(b)
	}
	var walk func(v any) []string
	walk = func(v any) []string {
		var out []string
		switch x := v.(type) {
		case string:
			out = append(out, x)
		case map[string]any:
			for _, e := range x {
				out = append(out, walk(e)...)
			}
		case []any:
			for _, e := range x {
				out = append(out, walk(e)...)
			}
		}
		return out
	}
	checked := 0
	for _, m := range d.Methods {
		cases, _, _ := d.Cases(m)
		for _, c := range cases {
			for _, s := range walk(map[string]any(c.Params)) {
				if len(s) < 6 || strings.Contains(schemaText, strconv.Quote(s)) {
					continue
				}
				assert.True(t, transcript.IsGenerated(s), "%s %s: %q", m.Name, c.Name, s)
				checked++
			}
		}
	}
	require.NotZero(t, checked, "testdata's cases hold generated strings")
}
