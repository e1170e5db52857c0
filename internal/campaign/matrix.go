package campaign

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/copilot-sdk-conformance/conformance/internal/compat"
	"github.com/copilot-sdk-conformance/conformance/internal/harness"
	"github.com/copilot-sdk-conformance/conformance/internal/progress"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
)

// Matrix runs the suite once per real runtime version, each into Config.ReportDir/runtime@V/,
// and writes the SDK × runtime compatibility matrix (compat.md, compat.json) into
// Config.ReportDir. view gives each version's run its progress view (nil: the run's compact
// log); failed says whether a version had a failing result.
func Matrix(ctx context.Context, cfg harness.Config, versions []string, run RunFunc, view func() *progress.View, out io.Writer) (m compat.Matrix, failed bool, err error) {
	if out == nil {
		out = io.Discard
	}
	root := cfg.ReportDir
	var runs []compat.Run
	for _, v := range versions {
		c := cfg
		c.RuntimeVersion = v
		c.ReportDir = filepath.Join(root, "runtime@"+v)
		if view != nil {
			c.Progress = view() // counts per version
		}
		fmt.Fprintf(out, "\nruntime %s\n", v)
		res, err := orRun(run)(ctx, c)
		if c.Progress != nil {
			c.Progress.Close()
		}
		if err != nil && res == nil {
			return compat.Matrix{}, false, err
		}
		if res != nil {
			runs = append(runs, compat.Run{Runtime: v, Dir: "runtime@" + v, Results: res})
			for _, r := range res.Results {
				failed = failed || report.Failing(r.Status)
			}
		}
		if ctx.Err() != nil {
			break
		}
	}
	m = compat.Build(runs)
	return m, failed, compat.Write(root, m)
}
