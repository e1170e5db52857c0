package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/copilot-sdk-conformance/conformance/internal/compat"
	"github.com/copilot-sdk-conformance/conformance/internal/harness"
	"github.com/copilot-sdk-conformance/conformance/internal/progress"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
)

// runMatrix runs the suite once per real runtime version, each into <report-dir>/runtime@V/,
// and writes the SDK × runtime compatibility matrix (compat.md, compat.json) into the report
// folder.
func runMatrix(ctx context.Context, cfg harness.Config, versions []string) error {
	root := cfg.ReportDir
	var runs []compat.Run
	failed := false
	for _, v := range versions {
		c := cfg
		c.RuntimeVersion = v
		c.ReportDir = filepath.Join(root, "runtime@"+v)
		c.Progress = progress.New(os.Stdout, progress.Options{Live: progress.IsTerminal(os.Stdout)}) // counts per version
		fmt.Printf("\nruntime %s\n", v)
		res, err := harness.Run(ctx, c)
		c.Progress.Close()
		if err != nil && res == nil {
			return err
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
	m := compat.Build(runs)
	if err := compat.Write(root, m); err != nil {
		return err
	}
	fmt.Printf("\n%s\nreports: %s (compat.md, compat.json, runtime@<version>/)\n", compat.Markdown(m), root)
	if failed {
		return &exitError{1, fmt.Errorf("a runtime version has failures (see compat.md)")}
	}
	return nil
}
