package report

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// inside reports whether rel, joined under a report folder, stays under its transcripts/.
func inside(rel string) bool {
	root := filepath.FromSlash("/report")
	p := filepath.Join(root, filepath.FromSlash(rel))
	return strings.HasPrefix(p, filepath.Join(root, "transcripts")+string(filepath.Separator)) && strings.HasSuffix(p, ".ndjson")
}

func TestTranscriptRelStaysInTheReportFolder(t *testing.T) {
	tests := []struct{ feature, scenario string }{
		{"tools/is_terminal.feature", "isTerminal explicitly false is omitted on session.create"},
		{"../../../etc/passwd.feature", "x"},
		{"/etc/cron.d/x.feature", "x"},
		{"a/../../../../b.feature", "../../../../etc/passwd"},
		{"..", ".."},
		{"", ""},
		{`..\..\win.feature`, `..\..\x`},
		{"a/./b.feature", "/"},
	}
	for _, tt := range tests {
		rel := TranscriptRel("node", tt.feature, tt.scenario)
		assert.True(t, inside(rel), "%q %q -> %s", tt.feature, tt.scenario, rel)
	}
	assert.Equal(t, "transcripts/node/tools/is_terminal/a-b-",
		TranscriptRel("node", "tools/is_terminal.feature", "a b")[:len("transcripts/node/tools/is_terminal/a-b-")],
		"ordinary names are unchanged")
}

func FuzzTranscriptRel(f *testing.F) {
	f.Add("tools/is_terminal.feature", "isTerminal explicitly false is omitted on session.create")
	f.Add("../../x.feature", "../../../y")
	f.Add("/abs/x.feature", "")
	f.Fuzz(func(t *testing.T, feature, scenario string) {
		if rel := TranscriptRel("go", feature, scenario); !inside(rel) {
			t.Fatalf("%q %q -> %s escapes the report folder", feature, scenario, rel)
		}
	})
}
