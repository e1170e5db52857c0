package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func validResults() map[string]any {
	return map[string]any{
		"schemaVersion": SchemaVersion,
		"harness":       map[string]any{"version": "h"},
		"sdks":          []any{map[string]any{"name": "go", "status": "available", "version": "v1"}},
		"results":       []any{map[string]any{"feature": "f.feature", "scenario": "s", "sdk": "go", "status": "passed"}},
		"completeness":  map[string]any{"complete": true, "planned": 1, "reported": 1},
	}
}

// Load takes only a results.json it can trust; anything else is an error naming the file and
// what is wrong.
func TestLoadRefusesWhatItCannotTrust(t *testing.T) {
	with := func(edit func(m map[string]any)) string {
		m := validResults()
		edit(m)
		b, err := json.Marshal(m)
		require.NoError(t, err)
		return string(b)
	}
	tests := []struct {
		name, text, want string
	}{
		{"null", `null`, "want a JSON object, the file holds null"},
		{"empty object", `{}`, "no schemaVersion"},
		{"unknown field only", `{"foo":1}`, "no schemaVersion"},
		{"an array", `[]`, "holds an array"},
		{"not JSON", `{"schemaVersion":`, "not JSON"},
		{"results null", with(func(m map[string]any) { m["results"] = nil }), "at /results: got null, want array"},
		{"another schema version", with(func(m map[string]any) { m["schemaVersion"] = 1 }), "schemaVersion 1; this harness reads 2"},
		{"schema version a string", with(func(m map[string]any) { m["schemaVersion"] = "2" }), "schemaVersion is a string"},
		{"unknown status", with(func(m map[string]any) {
			m["results"] = []any{map[string]any{"feature": "f.feature", "scenario": "s", "sdk": "go", "status": "banana"}}
		}), "at /results/0/status"},
		{"no completeness", with(func(m map[string]any) { delete(m, "completeness") }), "completeness"},
		{"no harness", with(func(m map[string]any) { delete(m, "harness") }), "harness"},
		{"a result without its SDK", with(func(m map[string]any) {
			m["results"] = []any{map[string]any{"feature": "f.feature", "scenario": "s", "status": "passed"}}
		}), "at /results/0"},
		{"counts disagree", with(func(m map[string]any) {
			m["completeness"] = map[string]any{"complete": true, "planned": 2, "reported": 1}
		}), "lists 0 missing results, but 1 of 2 planned"},
		{"complete with a missing key", with(func(m map[string]any) {
			m["completeness"] = map[string]any{"complete": true, "planned": 2, "reported": 1,
				"missing": []any{map[string]any{"feature": "f", "scenario": "t", "sdk": "go", "reason": "interrupted"}}}
		}), "complete=true with 1 missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "results.json")
			require.NoError(t, os.WriteFile(p, []byte(tt.text), 0o644))
			_, err := Load(p)
			require.ErrorIs(t, err, ErrUnreadable)
			assert.Contains(t, err.Error(), p)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
	t.Run("a valid file", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "results.json")
		require.NoError(t, os.WriteFile(p, []byte(with(func(map[string]any) {})), 0o644))
		r, err := Load(p)
		require.NoError(t, err)
		assert.False(t, r.Incomplete())
		assert.Len(t, r.Results, 1)
	})
}
