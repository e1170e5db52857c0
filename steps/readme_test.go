package steps

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every folder under steps/ has a README whose table says what each of its files holds.
func TestReadmeListsEveryFile(t *testing.T) {
	err := filepath.WalkDir(".", func(path string, e fs.DirEntry, err error) error {
		if err != nil || !e.IsDir() {
			return err
		}
		files, err := filepath.Glob(filepath.Join(path, "*.go"))
		require.NoError(t, err)
		if len(files) == 0 {
			return nil
		}
		b, err := os.ReadFile(filepath.Join(path, "README.md"))
		if !assert.NoError(t, err, "steps/%s has no README.md", path) {
			return nil
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			assert.Contains(t, string(b), "| `"+filepath.Base(f)+"` |", "steps/%s/README.md does not list %s", path, filepath.Base(f))
		}
		return nil
	})
	require.NoError(t, err)
}
