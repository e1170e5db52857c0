package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/harness"
	"github.com/copilot-sdk-conformance/conformance/internal/progress"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/steps"
	"github.com/spf13/cobra"
)

func benchCmd() *cobra.Command {
	var (
		sdkList, reportDir string
		jobs               int
	)
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Run the suite once and print, per SDK, where its time went",
		Long: `Bench runs the whole suite once (as run does) and prints, per SDK, measured in that one run:

  drivers    driver processes the run started for the SDK (see --jobs)
  wall       from the SDK's first scenario start to its last scenario's end
  SDK calls  the driver commands' round trips added up: the time spent inside the SDK, the
             floor of the SDK's run; wall÷calls is the goal's ratio (at most 3; below 1 when
             scenarios overlap)
  overhead   per scenario, its wall time minus its SDK calls and its wait for a driver: the
             harness's own time (p50 and p95; goal: p50 at most 5 ms)
  start      preparing (a cache hit when warm) and the first driver's hello

and the whole run's wall time. The numbers come from the run's transcripts and the harness's
clock; they are also in results.json ("timing") and in summary.md's Timing section.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			root, err := repoRoot(cmd)
			if err != nil {
				return err
			}
			if reportDir == "" {
				if reportDir, err = os.MkdirTemp("", "conformance-bench-"); err != nil {
					return err
				}
			}
			if reportDir, err = filepath.Abs(reportDir); err != nil {
				return err
			}
			cfg := harness.Config{Steps: steps.Initializer, Vocabulary: steps.Vocabulary(), RepoRoot: root, ReportDir: reportDir, Self: selfArgv(), Log: io.Discard,
				Jobs: jobs, Progress: progress.New(io.Discard, progress.Options{}), Command: "conformance " + strings.Join(os.Args[1:], " ")}
			if sdkList != "" {
				for _, s := range strings.Split(sdkList, ",") {
					cfg.SDKs = append(cfg.SDKs, strings.TrimSpace(s))
				}
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
			defer stop()
			began := time.Now()
			res, err := harness.Run(ctx, cfg)
			took := time.Since(began)
			if err != nil {
				return err
			}
			printBench(os.Stdout, res, took, cfg.Jobs)
			fmt.Printf("reports: %s\n", reportDir)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&sdkList, "sdk", "", "comma-separated SDKs; default every SDK whose toolchain is present")
	f.StringVar(&reportDir, "report-dir", "", "where the run's reports go (default a new temporary folder)")
	f.IntVar(&jobs, "jobs", harness.DefaultJobs(), "scenarios of one SDK run at once")
	return cmd
}

func printBench(w io.Writer, res *report.Results, took time.Duration, jobs int) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "SDK\tscenarios\tdrivers\twall\tSDK calls\twall÷calls\toverhead p50\tp95\tstart\t")
	for _, t := range res.Timing {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.2f s\t%.2f s\t%.2f\t%.1f ms\t%.1f ms\t%.2f s\t\n", t.SDK, t.Scenarios, t.Drivers,
			t.WallMS/1000, t.SDKCallsMS/1000, ratio(t.WallMS, t.SDKCallsMS), t.Overhead.P50, t.Overhead.P95, t.StartMS/1000)
	}
	tw.Flush()
	fmt.Fprintf(w, "whole run: %.2f s with --jobs %d\n", took.Seconds(), jobs)
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}
