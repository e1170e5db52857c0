package steps

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every phrase the steps bind is documented in features/README.md's vocabulary: each pattern in
// register.go must match at least one phrase spelled out there (placeholders filled in).
func TestEveryStepIsInTheVocabulary(t *testing.T) {
	// Every file that binds phrases (register.go and the register* functions it calls).
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	var patterns []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, m := range regexp.MustCompile("\\.Step\\(`([^`]+)`").FindAllStringSubmatch(string(src), -1) {
			patterns = append(patterns, m[1])
		}
	}
	require.NotEmpty(t, patterns)

	doc, err := os.ReadFile("../features/README.md")
	require.NoError(t, err)
	_, vocab, ok := strings.Cut(string(doc), "## Step vocabulary")
	require.True(t, ok, "features/README.md has a Step vocabulary section")
	if i := strings.Index(vocab, "\n## "); i >= 0 {
		vocab = vocab[:i]
	}
	var phrases []string
	for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(strings.ReplaceAll(vocab, "\n  ", " "), -1) {
		phrases = append(phrases, regexp.MustCompile(`\bN\b`).ReplaceAllString(m[1], "3"))
	}
	for _, p := range patterns {
		re := regexp.MustCompile(p)
		found := false
		for _, ph := range phrases {
			found = found || re.MatchString(ph)
		}
		assert.True(t, found, "step %s is not spelled out in features/README.md's Step vocabulary", p)
	}
}
