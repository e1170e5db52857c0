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

// Results do not depend on --jobs: the same features on the same SDK, one scenario at a time
// and many at once (scenarios side by side on a shared driver.concurrent driver, its handles
// scoped), end with the same status and checks, scenario by scenario. The Go driver
// is concurrent; the features are the tool and behaviour folders (events, tool handlers,
// permission and input requests: the lines a shared driver routes by handle).
func TestJobsDoNotChangeResults(t *testing.T) {
	if testing.Short() {
		t.Skip("prepares the Go driver: not in -short mode")
	}
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	goRecipe, _ := sdks.Lookup("go")
	if _, err := sdks.CheckToolchain(goRecipe); err != nil && os.Getenv("CONFORMANCE_REQUIRE_SDKS") == "" {
		t.Skipf("needs the Go toolchain: %v", err)
	}
	run := func(jobs int) map[[2]string]report.Result {
		res, err := Run(context.Background(), Config{Steps: steps.Initializer, Vocabulary: steps.Vocabulary(), RepoRoot: root,
			SDKs: []string{goRecipe.Name}, Jobs: jobs, ReportDir: t.TempDir(),
			Paths: []string{filepath.Join(root, "features", "tools"), filepath.Join(root, "features", "behaviour")}})
		require.NoError(t, err)
		require.Len(t, res.SDKs, 1)
		require.Equal(t, report.Available, res.SDKs[0].Status, res.SDKs[0].Reason)
		out := map[[2]string]report.Result{}
		for _, r := range res.Results {
			out[[2]string{r.Feature, r.Scenario}] = r
		}
		return out
	}
	one, many := run(1), run(16)
	require.NotEmpty(t, one)
	require.Equal(t, len(one), len(many))
	for k, a := range one {
		b, ok := many[k]
		require.True(t, ok, "%v ran with --jobs 1 only", k)
		assert.Equal(t, a.Status, b.Status, "%v: %s | %s", k, a.Message, b.Message)
		// Messages may differ in what differs between any two runs (a request's number
		// among requests the SDK sends at once), not in what they say failed.
		assert.Equal(t, a.Message == "", b.Message == "", "%v", k)
		assert.Equal(t, len(a.Checked), len(b.Checked), "%v: checks", k)
	}
}
