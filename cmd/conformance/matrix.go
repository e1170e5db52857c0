package main

import (
	"context"
	"fmt"
	"os"

	"github.com/copilot-sdk-conformance/conformance/internal/campaign"
	"github.com/copilot-sdk-conformance/conformance/internal/compat"
	"github.com/copilot-sdk-conformance/conformance/internal/harness"
	"github.com/copilot-sdk-conformance/conformance/internal/progress"
)

// runMatrix runs the SDK × runtime compatibility matrix (campaign.Matrix) and prints it.
func runMatrix(ctx context.Context, cfg harness.Config, versions []string) error {
	view := func() *progress.View {
		return progress.New(os.Stdout, progress.Options{Live: progress.IsTerminal(os.Stdout)})
	}
	m, failed, err := campaign.Matrix(ctx, cfg, versions, nil, view, os.Stdout)
	if err != nil {
		return err
	}
	fmt.Printf("\n%s\nreports: %s (compat.md, compat.json, runtime@<version>/)\n", compat.Markdown(m), cfg.ReportDir)
	if failed {
		return &exitError{1, fmt.Errorf("a runtime version has failures (see compat.md)")}
	}
	return nil
}
