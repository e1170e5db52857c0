package campaign

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/copilot-sdk-conformance/conformance/internal/bisect"
	"github.com/copilot-sdk-conformance/conformance/internal/harness"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
)

// Bisect searches versions (from good to bad, in that order) for the first at which a selected
// scenario's status changes, running the SDK alone on each version it needs into
// Config.ReportDir/SDK@VERSION (bisect.Search chooses which).
func Bisect(ctx context.Context, cfg harness.Config, sdk string, versions []string, run RunFunc, out io.Writer) (*bisect.Outcome, error) {
	if out == nil {
		out = io.Discard
	}
	return bisect.Search(ctx, versions, func(ctx context.Context, version string) (string, error) {
		dir := filepath.Join(cfg.ReportDir, report.Target(sdk, version))
		fmt.Fprintf(out, "running %s %s (log %s)\n", sdk, version, filepath.Join(dir, "run.log"))
		c := cfg
		c.SDKs, c.Versions = []string{sdk}, map[string][]string{sdk: {version}}
		c.Command = fmt.Sprintf("conformance bisect (%s %s)", sdk, version)
		_, err := RunInto(ctx, run, c, dir)
		// A version that cannot be prepared is a result too (unavailable): only a run that
		// wrote no results stops the search.
		if _, statErr := os.Stat(filepath.Join(dir, "results.json")); statErr != nil || errors.Is(err, harness.ErrInterrupted) {
			if err == nil {
				err = statErr
			}
			return "", err
		}
		return dir, nil
	})
}
