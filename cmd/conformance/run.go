package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/harness"
	"github.com/copilot-sdk-conformance/conformance/internal/progress"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/report/html"
	"github.com/copilot-sdk-conformance/conformance/internal/sdks"
	"github.com/spf13/cobra"
)

func runCmd() *cobra.Command {
	var (
		shard   string
		verbose bool
		suite   *suiteFlags
	)
	cmd := &cobra.Command{
		Use:   "run [feature files or folders]",
		Short: "Run the features on every SDK whose toolchain is present and write the reports",
		Long: `Run prepares each SDK's driver (installing the pinned SDK into the cache on first use),
runs every feature on every SDK against the recording runtime, and writes results.json, junit.xml,
summary.md, report.html and the transcripts into the report folder (and report.png, a picture of
report.html, when Chromium is installed).

Each SDK runs up to --jobs scenarios at once, side by side on a driver that runs commands
concurrently, else each on a driver process of its own; a new driver starts only when waiting for
a busy one would take longer than starting one (see README, "Speed").

Exit status: 0 when every result passed or failed only as expected (xfail), 1 on a failure or an
unexpected pass (xpass), 2 on a usage or setup error (including an SDK named with --sdk that is
unavailable).`,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := suite.config(args)
			if err != nil {
				return err
			}
			if shard != "" {
				if cfg.Shard, err = harness.ParseShard(shard); err != nil {
					return &exitError{2, err}
				}
			}
			view := progress.New(os.Stdout, progress.Options{Live: progress.IsTerminal(os.Stdout), Verbose: verbose})
			cfg.Log, cfg.Progress = os.Stdout, view
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			if rtVersions := suite.runtimeVersions(); len(rtVersions) > 1 {
				view.Close()
				return runMatrix(ctx, cfg, rtVersions)
			}
			res, err := harness.Run(ctx, cfg)
			view.Close()
			if res != nil {
				if ctx.Err() == nil {
					screenshot(ctx, cfg.ReportDir)
				}
				printTotals(res, cfg.ReportDir)
			}
			if err != nil {
				return err
			}
			return failing(res)
		},
	}
	suite = bindSuite(cmd, suiteOptions{reportDir: "reports/latest", reportDirHelp: "where results.json, junit.xml, summary.md and transcripts go", runtimeMatrix: true})
	f := cmd.Flags()
	f.StringVar(&shard, "shard", "", "run part I of N of the (scenario × SDK × version) matrix, e.g. 2/4; conformance merge joins the parts")
	f.BoolVarP(&verbose, "verbose", "v", false, "print every result, not only failures")
	return cmd
}

// failing is the exit status of a finished report: 1 on a failed or unexpectedly passing result,
// or on a field the SDKs send under different keys that is not a known difference; else 3 when
// the report is INCOMPLETE.
func failing(res *report.Results) error {
	n := 0
	for _, r := range res.Results {
		if report.Failing(r.Status) {
			n++
		}
	}
	if c, stale := res.CrossSDKFailing(), len(res.StaleViolations); n > 0 || c > 0 || stale > 0 {
		msg := fmt.Sprintf("%d failed, %d xpass, %d cross-SDK differences not known (summary.md, \"Cross-SDK field differences\")", res.Totals[report.Failed], res.Totals[report.XPass], c)
		if stale > 0 {
			msg += fmt.Sprintf(", %d known schema violations not observed:\n  %s", stale, strings.Join(res.StaleViolations, "\n  "))
		}
		return &exitError{1, errors.New(msg)}
	}
	if res.Incomplete() {
		return &exitError{exitIncomplete, fmt.Errorf("%s: results.json's completeness lists each missing result with why", res.Completeness.Headline())}
	}
	return nil
}

// exitIncomplete is the exit status of a run, merge or replay with no failure that left planned
// results without one (report.Completeness): not a pass, not a failure either.
const exitIncomplete = 3

func printTotals(res *report.Results, dir string) {
	var parts []string
	for _, s := range []string{report.Passed, report.Failed, report.XFail, report.XPass, report.Unsupported, report.Unavailable, report.Skipped} {
		if n := res.Totals[s]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, s))
		}
	}
	if c := res.CrossSDKFailing(); c > 0 {
		parts = append(parts, fmt.Sprintf("%d cross-SDK field differences not known", c))
	}
	if h := res.Completeness.Headline(); h != "" {
		parts = append([]string{h}, parts...)
	}
	fmt.Printf("\n%s\nreports: %s (summary.md, report.html, results.json, junit.xml, transcripts/)\n", strings.Join(parts, ", "), dir)
}

// screenshot keeps report.png, a picture of report.html, when Chromium is installed: a reviewer
// sees the page without opening it. It is optional and never fails the run.
func screenshot(ctx context.Context, dir string) {
	if _, err := html.Chromium(); err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := html.Screenshot(ctx, filepath.Join(dir, html.FileName), filepath.Join(dir, "report.png")); err != nil {
		fmt.Printf("report.png not written: %v\n", err)
	}
}

// versionLists reads --sdk-version LANG=V1,V2 (repeatable): each SDK's versions in the order
// given, without repeats, each checked against its registry's syntax.
func versionLists(values []string) (map[string][]string, error) {
	out := map[string][]string{}
	for _, v := range values {
		name, list, ok := strings.Cut(v, "=")
		if !ok || name == "" || list == "" {
			return nil, &exitError{2, fmt.Errorf("--sdk-version %q: want LANG=VERSION[,VERSION…]", v)}
		}
		for _, ver := range strings.Split(list, ",") {
			ver = strings.TrimSpace(ver)
			if err := sdks.CheckVersion(name, ver); err != nil {
				return nil, &exitError{2, fmt.Errorf("--sdk-version %s=%s: %w", name, ver, err)}
			}
			if !slices.Contains(out[name], ver) {
				out[name] = append(out[name], ver)
			}
		}
	}
	return out, nil
}
