package expect

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var scenarios = []Scenario{{Feature: "tools/is_terminal.feature", Name: "explicit false"}, {Feature: "a.feature", Name: "other"}}
var known = []string{"node", "go"}

func write(t *testing.T, body string) string {
	p := filepath.Join(t.TempDir(), "expected-failures.yaml")
	require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	return p
}

func TestLoadRejectsBadEntries(t *testing.T) {
	tests := []struct{ name, body, want string }{
		{"no scenario matches", "- sdk: node\n  scenario: nope\n  reason: r\n", `:1: the entry matches no scenario: no scenario named "nope" exists`},
		{"wrong feature", "- sdk: node\n  feature: a.feature\n  scenario: explicit false\n  reason: r\n", "matches no scenario"},
		{"unknown sdk", "- sdk: cobol\n  scenario: other\n  reason: r\n", `unknown sdk "cobol"`},
		{"missing reason", "- sdk: node\n  scenario: other\n", "needs sdk, scenario and reason"},
		{"bad range", "- sdk: node\n  scenario: other\n  reason: r\n  versions: '<= banana'\n", "versions"},
		{"second entry line", "- sdk: node\n  scenario: other\n  reason: r\n- sdk: go\n  scenario: zz\n  reason: r\n", ":4: "},
		{"not a list", "sdk: node\n", "must be a list"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(write(t, tt.body), scenarios, known)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestMatch(t *testing.T) {
	m, err := Load(write(t, "- sdk: node\n  versions: '<= 1.0.14'\n  scenario: explicit false\n  reason: r\n- sdk: go\n  scenario: other\n  reason: r\n"), scenarios, known)
	require.NoError(t, err)
	tests := []struct {
		sdk, version, feature, scenario string
		want                            bool
	}{
		{"node", "1.0.14", "tools/is_terminal.feature", "explicit false", true},
		{"node", "1.0.13", "tools/is_terminal.feature", "explicit false", true},
		{"node", "1.0.15", "tools/is_terminal.feature", "explicit false", false},
		{"node", "1.0.14-preview.1", "tools/is_terminal.feature", "explicit false", true},
		{"node", "1.0.15-preview.4", "tools/is_terminal.feature", "explicit false", false},
		{"node", "(devel)", "tools/is_terminal.feature", "explicit false", false},
		{"go", "v1.0.14", "tools/is_terminal.feature", "explicit false", false},
		{"go", "anything", "a.feature", "other", true},
	}
	for _, tt := range tests {
		got := m.Match(tt.sdk, tt.version, tt.feature, tt.scenario)
		assert.Equal(t, tt.want, got != nil, "%+v", tt)
	}
	assert.Empty(t, mustLoadMissing(t).Entries, "a missing manifest is empty")
}

func mustLoadMissing(t *testing.T) *Manifest {
	m, err := Load(filepath.Join(t.TempDir(), "none.yaml"), scenarios, known)
	require.NoError(t, err)
	return m
}

// FuzzParse: any manifest either loads into entries that each name a known SDK and an existing
// scenario, or is an error naming the file; it never panics.
func FuzzParse(f *testing.F) {
	f.Add([]byte("- sdk: node\n  versions: '<= 1.0.14'\n  feature: tools/is_terminal.feature\n  scenario: explicit false\n  reason: r\n  link: l\n"))
	f.Add([]byte("- sdk: go\n  scenario: other\n  reason: r\n  request: session.create\n  path: tools[0].isTerminal\n"))
	f.Add([]byte("- sdk: node\n  scenario: other\n  reason: r\n  message: 'got (\"x\"'\n"))
	f.Add([]byte("sdk: node\n"))
	f.Add([]byte("- [1, 2]\n- &a {sdk: *a}\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Parse(b, "expected-failures.yaml", scenarios, known)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "expected-failures.yaml") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		for _, e := range m.Entries {
			if e.SDK != "node" && e.SDK != "go" {
				t.Fatalf("accepted unknown sdk %q", e.SDK)
			}
			_ = m.Match(e.SDK, "1.0.14", e.Feature, e.Scenario)
		}
	})
}
