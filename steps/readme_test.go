package steps

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// steps/README.md's table says what every file of the package holds.
func TestReadmeListsEveryFile(t *testing.T) {
	b, err := os.ReadFile("README.md")
	require.NoError(t, err)
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		assert.Contains(t, string(b), "| `"+f+"` |", "steps/README.md does not list %s", f)
	}
}
