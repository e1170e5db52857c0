package steps

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every phrase the steps bind is documented in features/README.md's vocabulary: each pattern
// bound (Vocabulary) must match at least one phrase spelled out there (placeholders filled in).
func TestEveryStepIsInTheVocabulary(t *testing.T) {
	// Every phrase bound, world's and every engine's, as the one registration binds them.
	var patterns []string
	for _, s := range Vocabulary() {
		patterns = append(patterns, s.Pattern)
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
