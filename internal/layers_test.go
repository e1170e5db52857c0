// Package internal_test checks the pipeline's layering (internal/README.md): dependencies run
// one way, from cmd/ down, with no cycle.
package internal_test

import (
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

const module = "github.com/copilot-sdk-conformance/conformance/"

// imports maps each package under internal/ (by its path under the module) to the module
// packages its non-test files import.
func imports(t *testing.T) map[string]map[string]bool {
	out := map[string]map[string]bool{}
	err := filepath.WalkDir(".", func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || strings.Contains(path, "testdata") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		require.NoError(t, err)
		pkg := "internal/" + filepath.ToSlash(filepath.Dir(path))
		if out[pkg] == nil {
			out[pkg] = map[string]bool{}
		}
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if rest, ok := strings.CutPrefix(p, module); ok {
				out[pkg][rest] = true
			}
		}
		return nil
	})
	require.NoError(t, err)
	return out
}

func TestNoUpwardImport(t *testing.T) {
	all := imports(t)
	require.NotEmpty(t, all)
	for pkg, deps := range all {
		for d := range deps {
			assert.False(t, d == "steps" || strings.HasPrefix(d, "cmd/"), "%s imports %s: internal/ never imports steps/ or cmd/", pkg, d)
		}
	}
	// The stages below the harness never import it: runner and finish are its seams, merge
	// finishes without it.
	for _, pkg := range []string{"internal/runner", "internal/finish", "internal/merge", "internal/render", "internal/report", "internal/suite"} {
		assert.False(t, all[pkg]["internal/harness"], "%s imports internal/harness", pkg)
	}
	// Several runs are orchestrated in internal/campaign, above the harness: nothing under
	// internal/ builds on it (cmd/ binds its flags and prints), and the packages that compare
	// finished runs (history, bisect, fidelity, compat) run none themselves.
	for pkg, deps := range all {
		assert.False(t, deps["internal/campaign"], "%s imports internal/campaign: only cmd/ does", pkg)
	}
	for _, pkg := range []string{"internal/history", "internal/bisect", "internal/fidelity", "internal/compat", "internal/selftest"} {
		assert.False(t, all[pkg]["internal/harness"], "%s imports internal/harness: the runs are internal/campaign's", pkg)
	}
	// Asking a registry which versions it publishes needs nothing of the pipeline: the recipes
	// (internal/sdks) name their registry, bisect and history ask it.
	for d := range all["internal/registry"] {
		assert.Contains(t, []string{"internal/procgroup", "internal/text"}, d, "internal/registry imports %s", d)
	}
	for d := range all["internal/report"] {
		assert.Fail(t, "internal/report holds the records and imports no other package of the module", "it imports %s", d)
	}
	// No cycle: a depth-first walk never meets a package on its own path.
	state := map[string]int{} // 1 on the path, 2 done
	var walk func(p string, path []string)
	walk = func(p string, path []string) {
		switch state[p] {
		case 1:
			assert.Fail(t, "import cycle", strings.Join(append(path, p), " -> "))
			return
		case 2:
			return
		}
		state[p] = 1
		for d := range all[p] {
			walk(d, append(path, p))
		}
		state[p] = 2
	}
	for p := range all {
		walk(p, nil)
	}
}
