package steps

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const stepsModule = "github.com/copilot-sdk-conformance/conformance/"

// stepsImports maps each package under steps/ (by its path under the module) to the packages
// under steps/ its non-test files import.
func stepsImports(t *testing.T) map[string]map[string]bool {
	out := map[string]map[string]bool{}
	err := filepath.WalkDir(".", func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		require.NoError(t, err)
		pkg := filepath.ToSlash(filepath.Join("steps", filepath.Dir(path)))
		if out[pkg] == nil {
			out[pkg] = map[string]bool{}
		}
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if rest, ok := strings.CutPrefix(p, stepsModule); ok && (rest == "steps" || strings.HasPrefix(rest, "steps/")) {
				out[pkg][rest] = true
			}
		}
		return nil
	})
	require.NoError(t, err)
	return out
}

// sweepOf is the sweep a package belongs to (steps/sweeps/<name>/...), "" for any other.
func sweepOf(pkg string) string {
	rest, ok := strings.CutPrefix(pkg, "steps/sweeps/")
	if !ok {
		return ""
	}
	name, _, _ := strings.Cut(rest, "/")
	return name
}

// layerViolations lists every import that breaks the steps' layering: the plain phrases
// (package steps) sit on top and register every engine; the core (steps/scenario) and the
// engines never import them; no sweep imports another sweep; the core imports no sweep and no
// shared package (it is the bottom), and a shared package (steps/<name>, not a sweep) imports
// no sweep.
func layerViolations(all map[string]map[string]bool) []string {
	var out []string
	for pkg, deps := range all {
		for d := range deps {
			switch {
			case pkg == "steps":
			case d == "steps":
				out = append(out, pkg+" imports steps: only cmd/ and the harness's tests build on the plain phrases")
			case sweepOf(pkg) != "" && sweepOf(d) != "" && sweepOf(d) != sweepOf(pkg):
				out = append(out, pkg+" imports "+d+": one sweep never reaches into another (shared code goes to the core or a shared package)")
			case strings.HasPrefix(pkg, "steps/scenario") && !strings.HasPrefix(d, "steps/scenario"):
				out = append(out, pkg+" imports "+d+": the core imports nothing above it")
			case sweepOf(pkg) == "" && sweepOf(d) != "":
				out = append(out, pkg+" imports "+d+": a shared package imports no sweep")
			}
		}
	}
	sort.Strings(out)
	return out
}

func TestLayersOfTheSteps(t *testing.T) {
	all := stepsImports(t)
	require.Contains(t, all, "steps/scenario")
	require.NotEmpty(t, all["steps"], "package steps registers the engines")
	assert.Empty(t, layerViolations(all))
}

// The layering check fails on each kind of import it forbids, and passes the allowed ones.
func TestLayerViolationsFindsEachForbiddenImport(t *testing.T) {
	tests := []struct {
		name string
		pkg  string
		dep  string
		bad  bool
	}{
		{"steps registers a sweep", "steps", "steps/sweeps/cancel", false},
		{"a sweep builds on the core", "steps/sweeps/cancel", "steps/scenario", false},
		{"a sweep uses a shared package", "steps/sweeps/cancel", "steps/rpccall", false},
		{"a sweep's own subpackage", "steps/sweeps/cancel", "steps/sweeps/cancel/internal", false},
		{"a shared package builds on the core", "steps/rpccall", "steps/scenario", false},
		{"two sweeps share a package", "steps/sweeps/pending", "steps/handlerset", false},
		{"steps hands a shared package to the sweeps", "steps", "steps/handlerset", false},
		{"the core imports the sweeps' shared state", "steps/scenario", "steps/handlerset", true},
		{"a shared package imports the sweep it serves", "steps/hold", "steps/sweeps/resolved", true},
		{"a sweep imports steps", "steps/sweeps/cancel", "steps", true},
		{"the core imports steps", "steps/scenario", "steps", true},
		{"a sweep imports another", "steps/sweeps/cancel", "steps/sweeps/surface", true},
		{"the core imports a sweep", "steps/scenario", "steps/sweeps/cancel", true},
		{"the core imports a shared package", "steps/scenario", "steps/rpccall", true},
		{"a shared package imports a sweep", "steps/rpccall", "steps/sweeps/cancel", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := layerViolations(map[string]map[string]bool{tt.pkg: {tt.dep: true}})
			assert.Equal(t, tt.bad, len(got) > 0, "%v", got)
		})
	}
}
