package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestUntrustedResultsExit2: diff (as base and as candidate), merge and replay read a
// results.json only of this harness's schemaVersion, with the fields they need, known statuses
// and, for diff and merge, a complete run; anything else exits 2 naming the file and what is
// wrong, before anything is compared or written.
func TestUntrustedResultsExit2(t *testing.T) {
	bin := buildCLI(t)
	good := `{"schemaVersion":2,"harness":{"version":"h","shard":{"index":1,"count":1,"plan":"p","keys":1}},"sdks":[{"name":"go","status":"available"}],` +
		`"results":[{"feature":"f.feature","scenario":"s","sdk":"go","status":"passed"}],"completeness":{"complete":true,"planned":1,"reported":1}}`
	incomplete := `{"schemaVersion":2,"harness":{"version":"h","shard":{"index":1,"count":1,"plan":"p","keys":2}},"sdks":[{"name":"go","status":"available"}],` +
		`"results":[{"feature":"f.feature","scenario":"s","sdk":"go","status":"passed"}],` +
		`"completeness":{"complete":false,"planned":2,"reported":1,"missing":[{"feature":"f.feature","scenario":"t","sdk":"go","reason":"interrupted"}]}}`
	write := func(text string) string {
		p := filepath.Join(t.TempDir(), "results.json")
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
		return p
	}
	goodFile := write(good)
	tests := []struct{ name, text, want string }{
		{"null", "null", "the file holds null"},
		{"empty object", "{}", "no schemaVersion"},
		{"an unknown field", `{"foo":1}`, "no schemaVersion"},
		{"results null", `{"schemaVersion":2,"harness":{"version":"h"},"sdks":[],"results":null,"completeness":{"complete":true,"planned":0,"reported":0}}`, "at /results: got null, want array"},
		{"another schemaVersion", `{"schemaVersion":1,"harness":{"version":"h"},"sdks":[],"results":[]}`, "schemaVersion 1; this harness reads 2"},
		{"an unknown status", `{"schemaVersion":2,"harness":{"version":"h"},"sdks":[],"results":[{"feature":"f","scenario":"s","sdk":"go","status":"banana"}],"completeness":{"complete":true,"planned":1,"reported":1}}`, "at /results/0/status"},
	}
	for _, tt := range tests {
		bad := write(tt.text)
		for _, args := range [][]string{
			{"diff", bad, goodFile},
			{"diff", goodFile, bad},
			{"merge", "--report-dir", t.TempDir(), bad},
			{"replay", bad, "--report-dir", t.TempDir()},
		} {
			t.Run(tt.name+" "+args[0], func(t *testing.T) {
				code, out := runCLI(t, bin, args...)
				assert.Equal(t, 2, code, "%s", out)
				assert.Contains(t, out, bad)
				assert.Contains(t, out, tt.want)
			})
		}
	}
	inc := write(incomplete)
	for _, args := range [][]string{{"diff", inc, goodFile}, {"diff", goodFile, inc}, {"merge", "--report-dir", t.TempDir(), inc}} {
		t.Run("an incomplete run "+args[0], func(t *testing.T) {
			code, out := runCLI(t, bin, args...)
			assert.Equal(t, 2, code, "%s", out)
			assert.Contains(t, out, inc)
			assert.Contains(t, out, "incomplete")
			assert.Contains(t, out, "f.feature / t on go, interrupted")
		})
	}
}
