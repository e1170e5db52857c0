package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/copilot-sdk-conformance/conformance/internal/container"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/sdks"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDockerRunnerStandsAlone runs --runner docker on a PATH with no toolchain at all (a static
// harness, so not even go is needed for the SDKs' stdio runtime): the runtime schema comes from
// the Node driver image, and --sdk-source builds the Go SDK's source inside the Go build image by
// the recipe, reporting the source's version. A folder without the SDK, and a source that does
// not build, are named clearly.
func TestDockerRunnerStandsAlone(t *testing.T) {
	if testing.Short() {
		t.Skip("builds images and runs SDKs: not in -short mode")
	}
	pool := dockerEngine(t)
	bin := filepath.Join(t.TempDir(), "conformance")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)
	static, err := container.IsStatic(bin)
	require.NoError(t, err)
	require.True(t, static)
	code, log := runCLI(t, bin, "images", "--local-bases", "--sdk", "node,go")
	require.Equal(t, 0, code, "%s", log)

	noToolchain := t.TempDir()
	run := func(t *testing.T, args ...string) (int, string, *report.Results) {
		t.Helper()
		dir := t.TempDir()
		cmd := exec.Command(bin, append([]string{"run", "--runner", "docker", "--local-bases", "--report-dir", dir}, args...)...)
		cmd.Dir = repoDir(t)
		cmd.Env = append(os.Environ(), "PATH="+noToolchain)
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else {
			require.NoError(t, err, "%s", out)
		}
		assertRunLeftNothing(t, pool, dockerRunID(t, string(out)))
		res, err := report.ReadResults(filepath.Join(dir, "results.json"))
		if err != nil {
			return code, string(out), nil
		}
		return code, string(out), res
	}

	t.Run("the schema comes from the Node driver image", func(t *testing.T) {
		code, out, res := run(t, "--sdk", "go", "features/behaviour/schema.feature")
		require.Equal(t, 0, code, "%s", out)
		require.NotNil(t, res)
		assert.True(t, res.Harness.SchemaLoaded, "%s", res.Harness.Schema)
		assert.Contains(t, res.Harness.Schema, "read from the driver image conformance-driver/node:")
		require.NotEmpty(t, res.Results)
		for _, r := range res.Results {
			assert.Equal(t, report.Passed, r.Status, "%s: %s", r.Scenario, r.Message)
		}
	})

	// The Go SDK's published module source, as a checkout's go/ folder holds it.
	d, ok := sdks.Lookup("go")
	require.True(t, ok)
	pins, err := sdks.LoadPins(filepath.Join(repoDir(t), "fixtures", "sdks.yaml"))
	require.NoError(t, err)
	pristine, err := d.Pristine(context.Background(), pins["go"].Version, t.TempDir())
	require.NoError(t, err)
	checkout := t.TempDir()
	require.NoError(t, sdks.CopyDir(pristine, filepath.Join(checkout, "go")))

	t.Run("a source is built in the image by the recipe", func(t *testing.T) {
		feature := "features/behaviour/framing.feature"
		code, out, res := run(t, "--sdk", "go", "--sdk-source", checkout, feature)
		require.NotNil(t, res, "%s", out)
		assert.Contains(t, out, "RUN conformance prepare", "the build runs the recipe")
		assert.Contains(t, out, "go: using local SDK source /conformance/sdk-source/go", "the recipe took the source in the image")
		require.Len(t, res.SDKs, 1)
		s := res.SDKs[0]
		require.Equal(t, report.Available, s.Status, s.Reason)
		// A module folder outside git declares no version and has no tag: the label says it is
		// matched as no release version (internal/sdks/checkout.go).
		assert.Equal(t, "(devel) (no release version)", s.Version, "the version the source build reports")
		assert.Equal(t, "local "+filepath.Join(checkout, "go"), s.Source)
		require.NotEmpty(t, s.Toolchain)
		assert.Regexp(t, `^image conformance-driver/go:source-`, s.Toolchain[0])

		// The same source on the local runner gives every scenario the same status.
		dir := t.TempDir()
		lcode, lout := runCLI(t, bin, "run", "--sdk", "go", "--sdk-source", checkout, "--report-dir", dir, feature)
		assert.Equal(t, lcode, code, "both runners exit alike:\n%s", lout)
		local, err := report.ReadResults(filepath.Join(dir, "results.json"))
		require.NoError(t, err)
		assert.Equal(t, local.SDKs[0].Version, s.Version)
		statuses := func(res *report.Results) map[string]string {
			m := map[string]string{}
			for _, r := range res.Results {
				m[r.Scenario] = r.Status
			}
			return m
		}
		assert.Equal(t, statuses(local), statuses(res))
	})

	t.Run("a folder without the SDK is named before any build", func(t *testing.T) {
		empty := t.TempDir()
		code, out, res := run(t, "--sdk", "go", "--sdk-source", "go="+empty, "features/behaviour/framing.feature")
		assert.Equal(t, 2, code, "an SDK named with --sdk that cannot run:\n%s", out)
		assert.NotContains(t, out, "Step 1/", "nothing was built")
		require.NotNil(t, res, "%s", out)
		assert.Equal(t, report.Unavailable, res.SDKs[0].Status)
		assert.Contains(t, res.SDKs[0].Reason, "--sdk-source go="+empty)
		assert.Contains(t, res.SDKs[0].Reason, "holds no module github.com/github/copilot-sdk/go")
	})

	t.Run("a source that does not build names the SDK, the Dockerfile and the step", func(t *testing.T) {
		broken := t.TempDir()
		require.NoError(t, sdks.CopyDir(pristine, broken))
		// Not Go at all: the build fails at its first file, before compiling the SDK's dependencies.
		require.NoError(t, os.WriteFile(filepath.Join(broken, "broken.go"), []byte("this is not Go\n"), 0o644))
		code, out, res := run(t, "--sdk", "go", "--sdk-source", "go="+broken, "features/behaviour/framing.feature")
		assert.Equal(t, 2, code, "%s", out)
		require.NotNil(t, res, "%s", out)
		reason := res.SDKs[0].Reason
		assert.Equal(t, report.Unavailable, res.SDKs[0].Status)
		assert.Contains(t, reason, "go driver image from source "+broken)
		assert.Contains(t, reason, container.SourceDockerfile)
		assert.Regexp(t, `failed at Step \d+/\d+ : RUN conformance prepare`, reason)
		assert.Contains(t, reason, "broken.go:1:1: expected 'package'", "the build log's tail has the compiler's error")
		assert.NotContains(t, reason, "\x1b[", "no terminal colours")
	})
}
