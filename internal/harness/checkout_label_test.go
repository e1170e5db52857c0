package harness

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/sdks"
	"github.com/copilot-sdk-conformance/conformance/steps"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An SDK run from a folder of a git checkout is labelled with the checkout's commit in the
// report, by the harness, whatever the driver reports; a source outside git keeps the driver's
// version; a source that cannot be prepared is still named as the local source with its commit.
func TestCheckoutSourceIsLabelledWithItsCommit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not on PATH")
	}
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	exe, err := os.Executable()
	require.NoError(t, err)
	checkout := t.TempDir()
	git := func(args ...string) string {
		cmd := exec.Command("git", append([]string{"-C", checkout}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	require.NoError(t, os.MkdirAll(filepath.Join(checkout, "fake"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(checkout, "fake", "sdk.txt"), []byte("sdk"), 0o644))
	git("add", ".")
	git("commit", "-q", "-m", "sdk")
	git("tag", "fake/v2.0.0")
	require.NoError(t, os.WriteFile(filepath.Join(checkout, "fake", "sdk.txt"), []byte("changed"), 0o644))

	failPrepare, generated := false, ""
	unregister := sdks.Register(sdks.Recipe{
		Name: "fake", Order: 99, MonorepoDir: "fake", DriverDir: t.TempDir(),
		Generated: func(context.Context, *sdks.Prepared) (string, error) { return generated, nil },
		Prepare: func(_ context.Context, pc sdks.PrepareContext) (sdks.Launch, error) {
			if failPrepare {
				return sdks.Launch{}, &sdks.Unavailable{Reason: "cannot build it"}
			}
			return sdks.Launch{Argv: []string{exe}, Dir: pc.CacheDir,
				Env: []string{"FAKE_DRIVER=ok", "FAKE_DRIVER_MARKER=" + filepath.Join(t.TempDir(), "marker")}}, nil
		},
	})
	defer unregister()

	features := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(features, "f.feature"),
		[]byte("Feature: f\n  Scenario: s\n    When a session is created with no tools\n"), 0o644))
	// One cache for the three runs: the runtime schema's SDK (node) is prepared once.
	cache := t.TempDir()
	var sourcesAs map[string]string
	run := func(source string) report.SDK {
		t.Helper()
		res, err := Run(context.Background(), Config{Steps: steps.Initializer, Vocabulary: steps.Vocabulary(), RepoRoot: root,
			CacheRoot: cache, SDKs: []string{"fake"}, Sources: map[string]string{"fake": source}, SourcesAs: sourcesAs,
			Paths: []string{features}, CommandTimeout: 30 * time.Second, ReportDir: t.TempDir()})
		require.NotNil(t, res, "%v", err)
		require.Len(t, res.SDKs, 1)
		if res.SDKs[0].Status == report.Available {
			require.NoError(t, err)
		}
		return res.SDKs[0]
	}
	s := run(filepath.Join(checkout, "fake"))
	require.Equal(t, report.Available, s.Status, s.Reason)
	assert.Equal(t, "1.0.0 (git fake/v2.0.0-dirty; matched as 2.0.0)", s.Version, "the SDK's own version, then the commit and the version it is matched as")
	assert.Equal(t, "2.0.0 (fake/v2.0.0)", s.Matched)
	assert.Equal(t, "local "+filepath.Join(checkout, "fake"), s.Source)

	plain := t.TempDir()
	s = run(plain)
	assert.Equal(t, "1.0.0", s.Version, "a source outside git keeps the driver's version")

	// Selftest's copy of a pin is matched as the pin where the source gives no version; a
	// checkout's tag still wins.
	sourcesAs = map[string]string{"fake": "v3.0.0"}
	s = run(plain)
	assert.Equal(t, "1.0.0 (matched as 3.0.0)", s.Version)
	assert.Equal(t, "3.0.0 (a copy of the published v3.0.0)", s.Matched)
	s = run(filepath.Join(checkout, "fake"))
	assert.Equal(t, "2.0.0 (fake/v2.0.0)", s.Matched)
	sourcesAs = nil

	// The driver declares no rpc.generated, while the SDK's files hold the layer: the report says so.
	generated = "fake/generated/rpc"
	s = run(plain)
	assert.Contains(t, s.Notes["rpc.generated"], "but the SDK ships its generated layer (fake/generated/rpc)")

	// A source is prepared again only when its content changed (an unchanged one reuses its
	// preparation): changed again, it fails to prepare.
	failPrepare = true
	require.NoError(t, os.WriteFile(filepath.Join(checkout, "fake", "sdk.txt"), []byte("changed again"), 0o644))
	s = run(filepath.Join(checkout, "fake"))
	assert.Equal(t, report.Unavailable, s.Status)
	assert.Equal(t, "git fake/v2.0.0-dirty; matched as 2.0.0", s.Version, "an unprepared source is labelled too")
	assert.Equal(t, "local "+filepath.Join(checkout, "fake"), s.Source, "not the pin's registry package")
}
