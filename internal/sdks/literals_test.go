package sdks

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A language lives in its recipe: no Go code outside internal/sdks (and the drivers, which are
// the languages' own code) spells a language's name or monorepo folder as a string literal.
// "go" is left out: it is also the Go tool's name, which the harness runs to build itself.
func TestNoLanguageLiteralOutsideRecipes(t *testing.T) {
	names := map[string]bool{}
	for _, n := range Names() {
		d, _ := Lookup(n)
		names[n], names[d.MonorepoDir] = true, true
	}
	delete(names, "go")
	delete(names, "")
	root := filepath.Join("..", "..")
	var found []string
	err := filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if e.IsDir() {
			switch {
			case rel == ".":
			case rel == "internal/sdks", rel == "drivers", strings.HasPrefix(e.Name(), "."), e.Name() == "testdata", e.Name() == "reports":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		require.NoError(t, err)
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil && names[s] {
					found = append(found, rel+": "+lit.Value)
				}
			}
			return true
		})
		return nil
	})
	require.NoError(t, err)
	assert.Empty(t, found, "put what the code needs to know about a language in its recipe (internal/sdks)")
}
