package sdks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// npm's output for a dev dependency the registry does not serve, as `npm ci` printed it on a
// checkout of github/copilot-sdk 4e95deee5 here (Node 20, npm 11).
const npm404Output = `npm warn EBADENGINE Unsupported engine {
npm warn EBADENGINE   package: '@platformatic/vfs@0.3.0',
npm warn EBADENGINE   required: { node: '>= 22' },
npm warn EBADENGINE   current: { node: 'v20.20.2', npm: '11.19.1' }
npm warn EBADENGINE }
npm error code E404
npm error 404 Not Found - GET https://registry.npmjs.org/@platformatic/vfs/-/vfs-0.3.0.tgz
npm error 404
npm error 404  The requested resource '@platformatic/vfs@https://registry.npmjs.org/@platformatic/vfs/-/vfs-0.3.0.tgz' could not be found or you do not have permission to access it.
npm error A complete log of this run can be found in: /root/.npm/_logs/x.log
`

// fallbackSource is a Node SDK source whose lockfile has a runtime dependency (vscode-jsonrpc), a
// direct dev dependency (@platformatic/vfs) and a dev dependency reached only through another
// (vitest -> tinyspy).
func fallbackSource(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	pkg := `{"name": "@github/copilot-sdk", "version": "0.0.0-dev", "scripts": {"build": "x"},
	  "dependencies": {"vscode-jsonrpc": "^8.2.1"},
	  "devDependencies": {"@platformatic/vfs": "^0.3.0", "vitest": "^3.0.0", "esbuild": "^0.25.0"}}`
	lock := `{"name": "@github/copilot-sdk", "lockfileVersion": 3, "packages": {
	  "": {"name": "@github/copilot-sdk"},
	  "node_modules/vscode-jsonrpc": {"version": "8.2.1"},
	  "node_modules/@platformatic/vfs": {"version": "0.3.0", "dev": true, "engines": {"node": ">= 22"}},
	  "node_modules/vitest": {"version": "3.0.0", "dev": true, "dependencies": {"tinyspy": "^3.0.0"}},
	  "node_modules/tinyspy": {"version": "3.0.2", "dev": true},
	  "node_modules/esbuild": {"version": "0.25.0", "dev": true}}}`
	require.NoError(t, os.WriteFile(filepath.Join(dir, "package.json"), []byte(pkg), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "package-lock.json"), []byte(lock), 0o644))
	return dir
}

// The fallback a failed install step takes is read from npm's own error: a dev-only package the
// registry does not serve is left out (with the direct dev dependency that brings it), an engine
// range is relaxed; anything that may touch the SDK's build has none.
func TestPlanNodeFallback(t *testing.T) {
	ci := []string{"npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts"}
	tests := []struct {
		name, output string
		argv         []string
		drop         []string
		what, why    string
	}{
		{name: "a direct dev dependency not served", output: npm404Output, argv: ci, drop: []string{"@platformatic/vfs"},
			what: "`npm install` without the dev dependency @platformatic/vfs (the registry does not serve @platformatic/vfs@0.3.0: E404)"},
		{name: "no matching version of a dev dependency", argv: ci, drop: []string{"@platformatic/vfs"},
			output: "npm error code ETARGET\nnpm error notarget No matching version found for @platformatic/vfs@0.3.0.\n",
			what:   "`npm install` without the dev dependency @platformatic/vfs (the registry does not serve @platformatic/vfs@0.3.0: ETARGET)"},
		{name: "a package a dev dependency needs", argv: ci, drop: []string{"vitest"},
			output: "npm error code E404\nnpm error 404 Not Found - GET https://registry.npmjs.org/tinyspy/-/tinyspy-3.0.2.tgz\n",
			what:   "`npm install` without the dev dependency vitest (the registry does not serve tinyspy@3.0.2: E404)"},
		{name: "a scoped packument not served", argv: ci, drop: []string{"@platformatic/vfs"},
			output: "npm error code E404\nnpm error 404 Not Found - GET https://registry.npmjs.org/@platformatic%2fvfs - Not found\n",
			what:   "`npm install` without the dev dependency @platformatic/vfs (the registry does not serve @platformatic/vfs: E404)"},
		{name: "a runtime dependency not served", argv: ci,
			output: "npm error code E404\nnpm error 404 Not Found - GET https://registry.npmjs.org/vscode-jsonrpc/-/vscode-jsonrpc-8.2.1.tgz\n",
			why:    "vscode-jsonrpc is not a dev-only package of the lockfile: the SDK may need it"},
		{name: "a package the lockfile does not have", argv: ci,
			output: "npm error code E404\nnpm error 404 Not Found - GET https://registry.npmjs.org/left-pad/-/left-pad-1.3.0.tgz\n",
			why:    "left-pad is not a dev-only package of the lockfile: the SDK may need it"},
		{name: "an engine range under engine-strict", argv: ci, output: "npm error code EBADENGINE\nnpm error engine Unsupported engine\n",
			what: "`npm ci --engine-strict=false` (an engine range the Node here does not meet)"},
		{name: "an engine range once relaxed", argv: append(ci, "--engine-strict=false"), output: "npm error code EBADENGINE\n",
			why: "the engine check failed with --engine-strict=false"},
		{name: "a network error", argv: ci, output: "npm error code ECONNRESET\nnpm error network aborted\n",
			why: "npm error ECONNRESET is not one a fallback is for (an unserved dev-only package, an engine range)"},
		{name: "no error code", argv: ci, output: "Killed\n", why: "npm named no error code"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fb, why := planNodeFallback(fallbackSource(t), tt.argv, tt.output)
			assert.Equal(t, tt.why, why)
			assert.Equal(t, tt.what, fb.what)
			assert.Equal(t, tt.drop, fb.drop)
		})
	}
}

// npmStub stands in for npm in a build: each install step answers from the list in turn, the build
// writes dist/index.js; it records the argv it ran and the devDependencies it saw.
type npmStub struct {
	installs []error
	ran      []string
	devDeps  []string
}

func (s *npmStub) run(_ context.Context, dir string, _ []string, argv ...string) error {
	s.ran = append(s.ran, strings.Join(argv, " "))
	if argv[1] == "run" {
		if err := os.MkdirAll(filepath.Join(dir, "dist"), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, "dist", "index.js"), nil, 0o644)
	}
	var pkg struct {
		DevDependencies map[string]string `json:"devDependencies"`
	}
	b, _ := os.ReadFile(filepath.Join(dir, "package.json"))
	_ = json.Unmarshal(b, &pkg)
	s.devDeps = s.devDeps[:0]
	for d := range pkg.DevDependencies {
		s.devDeps = append(s.devDeps, d)
	}
	if len(s.installs) == 0 {
		return nil
	}
	err := s.installs[0]
	s.installs = s.installs[1:]
	return err
}

// A checkout whose `npm ci` fails on an unserved dev dependency is built by the fallback, which
// the log, the result and a reuse of the build all name; one that fails for another reason is
// unavailable with npm's error and the reason no fallback applies.
func TestBuildNodeSourceFallsBack(t *testing.T) {
	ciFailed := errors.New("npm ci --no-audit --no-fund --ignore-scripts (in /x) failed: exit status 1\n" + npm404Output)
	t.Run("an unserved dev dependency", func(t *testing.T) {
		src := fallbackSource(t)
		stub := &npmStub{installs: []error{ciFailed, nil}}
		var log bytes.Buffer
		pc := PrepareContext{CacheDir: filepath.Join(t.TempDir(), "node", "prep"), Log: &log, Run: stub.run}
		pkg, fallback, err := buildNodeSource(context.Background(), pc, src)
		require.NoError(t, err, log.String())
		want := "`npm install` without the dev dependency @platformatic/vfs (the registry does not serve @platformatic/vfs@0.3.0: E404)"
		assert.Equal(t, want, fallback)
		assert.Equal(t, []string{"npm ci --no-audit --no-fund --ignore-scripts", "npm install --no-audit --no-fund --ignore-scripts", "npm run build"}, stub.ran)
		assert.ElementsMatch(t, []string{"vitest", "esbuild"}, stub.devDeps, "the install ran without the unserved dev dependency")
		assert.Contains(t, log.String(), "fallback: "+want)
		assert.FileExists(t, filepath.Join(pkg, "dist", "index.js"))
		b, _ := os.ReadFile(filepath.Join(src, "package.json"))
		assert.Contains(t, string(b), "@platformatic/vfs", "the source folder is left as it was")

		log.Reset()
		_, again, err := buildNodeSource(context.Background(), pc, src)
		require.NoError(t, err)
		assert.Equal(t, want, again, "a reused build still says how it was built")
		assert.Contains(t, log.String(), "using the build of")
	})
	t.Run("a runtime dependency not served", func(t *testing.T) {
		src := fallbackSource(t)
		out := "npm error code E404\nnpm error 404 Not Found - GET https://registry.npmjs.org/vscode-jsonrpc/-/vscode-jsonrpc-8.2.1.tgz\n"
		stub := &npmStub{installs: []error{errors.New("npm ci (in /x) failed: exit status 1\n" + out)}}
		pc := PrepareContext{CacheDir: filepath.Join(t.TempDir(), "node", "prep"), Log: &bytes.Buffer{}, Run: stub.run}
		_, _, err := buildNodeSource(context.Background(), pc, src)
		var u *Unavailable
		require.True(t, errors.As(err, &u), "%v", err)
		assert.Contains(t, u.Reason, "`npm ci` failed")
		assert.Contains(t, u.Reason, "no fallback applies: vscode-jsonrpc is not a dev-only package of the lockfile")
		assert.Equal(t, []string{"npm ci --no-audit --no-fund --ignore-scripts"}, stub.ran)
	})
	t.Run("the fallback's own install fails", func(t *testing.T) {
		src := fallbackSource(t)
		net := errors.New("npm install (in /x) failed: exit status 1\nnpm error code ECONNRESET\nnpm error network aborted\n")
		stub := &npmStub{installs: []error{ciFailed, net}}
		pc := PrepareContext{CacheDir: filepath.Join(t.TempDir(), "node", "prep"), Log: &bytes.Buffer{}, Run: stub.run}
		_, _, err := buildNodeSource(context.Background(), pc, src)
		var u *Unavailable
		require.True(t, errors.As(err, &u), "%v", err)
		assert.Contains(t, u.Reason, "`npm install` failed")
		assert.Contains(t, u.Reason, "by the fallback `npm install` without the dev dependency @platformatic/vfs")
	})
}
