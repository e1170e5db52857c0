package cases

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A scenario's id survives a new title; it changes with what the scenario does, and an
// @id.<name> tag fixes it.
func TestCaseIDSurvivesARename(t *testing.T) {
	ids := func(text string) map[string]string {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, "f.feature"), []byte(text), 0o644))
		list, err := List(dir)
		require.NoError(t, err)
		out := map[string]string{}
		for _, s := range list {
			out[s.Name] = s.ID
		}
		return out
	}
	const body = "\n    Given the application connects\n    When it sends \"hi\"\n"
	before := ids("Feature: f\n  Scenario: old title" + body)
	after := ids("Feature: f\n  Scenario: new title" + body)
	require.NotEmpty(t, before["old title"])
	assert.Equal(t, before["old title"], after["new title"])
	changed := ids("Feature: f\n  Scenario: old title\n    Given the application connects\n    When it sends \"bye\"\n")
	assert.NotEqual(t, before["old title"], changed["old title"])
	tagged := ids("Feature: f\n  @id.greeting\n  Scenario: old title" + body)
	assert.Equal(t, "greeting", tagged["old title"])
}
