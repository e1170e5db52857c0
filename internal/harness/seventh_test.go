package harness

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/sdks"
	"github.com/copilot-sdk-conformance/conformance/steps"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A new SDK language is its driver folder and its recipe, nothing else: a stand-in seventh
// language, registered here with its driver under testdata, runs end to end (plan, preparation
// into the cache, hello, every scenario of a feature, the report) without a change anywhere
// else in the harness. Its driver wraps the Go driver, since no seventh SDK exists
// (testdata/drivers/seventh/README.md).
func TestSeventhLanguage(t *testing.T) {
	if testing.Short() {
		t.Skip("prepares the Go driver: not in -short mode")
	}
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	driverDir, err := filepath.Abs("testdata/drivers/seventh")
	require.NoError(t, err)
	pins, err := sdks.LoadPins(filepath.Join(root, "fixtures", "sdks.yaml"))
	require.NoError(t, err)
	goRecipe, _ := sdks.Lookup("go")
	if _, err := sdks.CheckToolchain(goRecipe); err != nil {
		if len(os.Getenv("CONFORMANCE_REQUIRE_SDKS")) == 0 {
			t.Skipf("the stand-in wraps the Go driver: %v", err)
		}
	}
	unregister := sdks.Register(sdks.Recipe{
		Name: "seventh", Order: 7, MonorepoDir: "seventh", DriverDir: driverDir,
		Toolchain: []sdks.Tool{{Bin: "sh"}, {Bin: "sed", VersionArgs: []string{"--version"}}},
		Prepare: func(ctx context.Context, pc sdks.PrepareContext) (sdks.Launch, error) {
			inner, err := (&sdks.Preparer{RepoRoot: root, CacheRoot: sdks.DefaultCacheRoot(), Log: pc.Log}).Prepare(ctx, goRecipe.Name, pins[goRecipe.Name].Version, "")
			if err != nil {
				return sdks.Launch{}, err
			}
			// Like every recipe, launch from the cache, never from the checkout: a cached
			// preparation outlives the folder it was prepared from.
			if err := sdks.CopyDir(pc.DriverDir, pc.CacheDir); err != nil {
				return sdks.Launch{}, err
			}
			l := inner.Launch
			l.Argv = append([]string{"sh", filepath.Join(pc.CacheDir, "driver.sh")}, l.Argv...)
			return l, nil
		},
	})
	defer unregister()
	assert.Contains(t, sdks.Names(), "seventh", "every list of SDKs derives from the recipes")

	dir := t.TempDir()
	res, err := Run(context.Background(), Config{Steps: steps.Initializer, Vocabulary: steps.Vocabulary(), RepoRoot: root,
		SDKs: []string{"seventh"}, Paths: []string{filepath.Join(root, "features", "tools", "is_terminal.feature")},
		ReportDir: dir})
	require.NoError(t, err)
	require.Len(t, res.SDKs, 1)
	assert.Equal(t, report.Available, res.SDKs[0].Status, res.SDKs[0].Reason)
	require.NotEmpty(t, res.Results)
	for _, r := range res.Results {
		assert.Equal(t, "seventh", r.SDK)
		assert.Equal(t, report.Passed, r.Status, "%s: %s", r.Scenario, r.Message)
		assert.FileExists(t, filepath.Join(dir, r.Transcript))
	}
	summary, err := os.ReadFile(filepath.Join(dir, "summary.md"))
	require.NoError(t, err)
	assert.Contains(t, string(summary), "| seventh |")
}
