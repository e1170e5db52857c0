package sdks

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// nodeSource writes a Node SDK source folder without dist/: a package.json named as the SDK with
// the given build script and dependencies, and a lockfile of no dependencies.
func nodeSource(t *testing.T, build, deps string) string {
	t.Helper()
	dir := t.TempDir()
	pkg := `{"name": "@github/copilot-sdk", "version": "0.0.0-dev", "scripts": {"build": ` + build + `}` + deps + `}`
	lock := `{"name": "@github/copilot-sdk", "version": "0.0.0-dev", "lockfileVersion": 3, "requires": true,
	  "packages": {"": {"name": "@github/copilot-sdk", "version": "0.0.0-dev"}}}`
	require.NoError(t, os.WriteFile(filepath.Join(dir, "package.json"), []byte(pkg), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "package-lock.json"), []byte(lock), 0o644))
	return dir
}

// A Node SDK source without dist/ (a checkout's nodejs/) is built in a copy by its own lockfile
// and build script; a step that fails is named with its exit status and its output's tail, never
// a bare "build it first".
func TestBuildNodeSource(t *testing.T) {
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("npm not on PATH")
	}
	tests := []struct {
		name        string
		build, deps string
		step        string   // the failing step named, "" when the build succeeds
		tail        []string // text of the output the reason quotes
	}{
		{name: "builds", build: `"node -e \"require('fs').mkdirSync('dist');require('fs').writeFileSync('dist/index.js','')\""`},
		{name: "the build script fails", build: `"echo the compiler is unhappy >&2; exit 3"`,
			step: "`npm run build` failed (exit status 3)", tail: []string{"the compiler is unhappy"}},
		{name: "the lockfile does not match", build: `"true"`, deps: `, "dependencies": {"left-pad": "1.3.0"}`,
			step: "`npm ci` failed (exit status 1)", tail: []string{"npm ci"}},
		{name: "the build writes no dist", build: `"true"`, step: "`npm run build` finished but wrote no dist/index.js"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := nodeSource(t, tt.build, tt.deps)
			var log bytes.Buffer
			pc := PrepareContext{CacheDir: filepath.Join(t.TempDir(), "node", "prep"), Log: &log,
				Run: func(ctx context.Context, dir string, env []string, argv ...string) error {
					return run(ctx, &log, "node", dir, 0, env, argv...)
				}}
			pkg, fallback, err := buildNodeSource(context.Background(), pc, src)
			if tt.step == "" {
				require.NoError(t, err, log.String())
				assert.Empty(t, fallback, "its own steps built it")
				assert.FileExists(t, filepath.Join(pkg, "dist", "index.js"))
				assert.NoDirExists(t, filepath.Join(src, "dist"), "the source folder is left as it was")
				assert.NoDirExists(t, filepath.Join(src, "node_modules"))
				log.Reset()
				again, _, err := buildNodeSource(context.Background(), pc, src)
				require.NoError(t, err)
				assert.Equal(t, pkg, again)
				assert.Contains(t, log.String(), "using the build of", "a rerun on the same source reuses its build")

				require.NoError(t, os.WriteFile(filepath.Join(src, "index.ts"), []byte("changed"), 0o644))
				changed, _, err := buildNodeSource(context.Background(), pc, src)
				require.NoError(t, err)
				assert.NotEqual(t, pkg, changed, "a changed source is built again")
				assert.NoDirExists(t, pkg, "and its older build removed")
				return
			}
			require.Error(t, err)
			var u *Unavailable
			require.True(t, errors.As(err, &u), "%v", err)
			assert.Contains(t, u.Reason, "cannot build the SDK from source "+src)
			assert.Contains(t, u.Reason, tt.step)
			for _, s := range tt.tail {
				assert.Contains(t, u.Reason, s)
			}
			assert.NotContains(t, u.Reason, "build it first")
			builds, _ := filepath.Glob(filepath.Join(filepath.Dir(pc.CacheDir), "builds", "*", "built"))
			assert.Empty(t, builds, "a failed build is not kept")
		})
	}
}

func TestNodeBuildError(t *testing.T) {
	out := "npm warn EBADENGINE Unsupported engine {\n" +
		"npm warn EBADENGINE   package: '@platformatic/vfs@0.3.0',\n" +
		"npm warn EBADENGINE   required: { node: '>= 22' },\n" +
		"npm warn EBADENGINE   current: { node: 'v20.20.2', npm: '11.19.1' }\n" +
		"npm warn EBADENGINE }\n" +
		"npm error code ETARGET\n" +
		"npm error notarget No matching version found for @platformatic/vfs@0.3.0.\n" +
		"npm error A complete log of this run can be found in: /root/.npm/_logs/x.log\n"
	err := nodeBuildError("/src/nodejs", []string{"npm", "ci", "--no-audit"}, errors.New("npm ci (in /x) failed: exit status 1\n"+out), nil, "")
	var u *Unavailable
	require.True(t, errors.As(err, &u))
	first, _, _ := bytes.Cut([]byte(u.Reason), []byte("; "))
	assert.Equal(t, "node: cannot build the SDK from source /src/nodejs: `npm ci` failed: notarget No matching version found for @platformatic/vfs@0.3.0. / "+
		"unmet engine requirement: @platformatic/vfs@0.3.0 wants node: '>= 22' (here node: 'v20.20.2', npm: '11.19.1')", string(first),
		"the summary's first sentence names the step, the package the registry lacks and the engine")
	assert.Contains(t, u.Reason, "npm error code ETARGET", "the tail follows")
}
