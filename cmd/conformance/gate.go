package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/harness"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/rundiff"
	"github.com/copilot-sdk-conformance/conformance/steps"
	"github.com/spf13/cobra"
)

func diffCmd() *cobra.Command {
	allow := map[string]*[]string{}
	var markdown, title, full string
	var budget int
	cmd := &cobra.Command{
		Use:   "diff BASE/results.json CANDIDATE/results.json",
		Short: "Print what changed between two runs; exit 1 on a regression",
		Long: `Diff compares two runs (a release candidate against the last release, say), one entry per
scenario and SDK: its statuses "from → to" and, where the scenario ran on both sides and both
report folders still hold their transcripts, its changed payloads per JSON path.

A regression fails the gate: a scenario that passed and is now unsupported, unavailable,
skipped, failed or gone, and any new failure (failed or xpass). A change away from passed can
be allowed by naming the SDK or the capability the candidate lacks:
  --allow-unsupported node              node may lose any capability
  --allow-unsupported tool.isTerminal   any SDK may lose tool.isTerminal
  --allow-unavailable dotnet            dotnet may be missing from the candidate machine
  --allow-removed go                    go's scenarios may be missing from the candidate run
A failure is never allowed here (list a known divergence in fixtures/expected-failures.yaml).

The text opens with what was compared (each SDK's version and source on both sides, or why it
was unavailable), then the capabilities each SDK's driver gained or lost, the regressions, the
new divergences (now expected failures), the fixes, the other status changes, the payload
changes grouped by field across SDKs, and each scenario's payload changes; each section counted.
--markdown FILE also writes it as a pull-request comment of at most --budget bytes, cut from the
least important end and saying what was cut and where the full diff is (--full-diff).
Both files must be complete runs' results.json of this harness's schemaVersion (README.md,
"Complete or INCOMPLETE"): anything else (null, {}, another schemaVersion, an unknown status,
an incomplete run) is refused, naming the file and what is wrong.
Exit status: 0 when nothing regressed, 1 on a regression, 2 when a file cannot be read or
trusted.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			a := rundiff.Allow{}
			for status, names := range allow {
				for _, n := range *names {
					a[status] = append(a[status], strings.TrimSpace(n))
				}
			}
			r, err := rundiff.Runs(args[0], args[1], a)
			if err != nil {
				return &exitError{2, err}
			}
			fmt.Print(r.Text())
			if markdown != "" {
				if err := os.WriteFile(markdown, []byte(r.Markdown(title, budget, full)), 0o644); err != nil {
					return &exitError{2, err}
				}
			}
			if n := r.Regressions(); n > 0 {
				return &exitError{1, fmt.Errorf("%d regression(s)", n)}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&markdown, "markdown", "", "also write the diff as a pull-request comment (Markdown) to this file")
	cmd.Flags().IntVar(&budget, "budget", 60000, "the comment's size limit in bytes (0: none); sections are cut from the least important")
	cmd.Flags().StringVar(&title, "title", "", "the comment's first line")
	cmd.Flags().StringVar(&full, "full-diff", "", "where the full diff is, named in the comment when it was cut (an uploaded artifact, say)")
	for _, status := range rundiff.Allowable {
		allow[status] = cmd.Flags().StringSlice("allow-"+status, nil,
			fmt.Sprintf("SDK or capability allowed to go from passed to %s (repeatable, comma-separated)", status))
	}
	return cmd
}

func replayCmd() *cobra.Command {
	var reportDir string
	cmd := &cobra.Command{
		Use:   "replay TRANSCRIPT | RUN/results.json --report-dir OUT",
		Short: "Re-check assertions against recorded transcripts, running no SDK",
		Long: `Replay runs the steps against what a run recorded, with no SDK: each driver command is answered
from the recorded transcript. Given one scenario's transcript it prints that scenario's status,
judged with the manifest of expected failures for the SDK version the run's results.json (in a
folder above the transcript) recorded.
Given a run's results.json it replays every recorded scenario on every SDK of that run through the
same suite, classification and finish as run, and writes the report into --report-dir (the
recorded run's SDKs, schema source and timing; the statuses as the features now judge them).

Exit status: as run's (0 passed or failed only as expected, 1 on a failure or an xpass, 3 when
INCOMPLETE: a recorded result it could not replay, or one the recorded run lacked), 2 when the
input cannot be read or is not a results.json of this harness's schemaVersion.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			root, err := repoRoot(cmd)
			if err != nil {
				return err
			}
			if filepath.Base(args[0]) == "results.json" {
				return replayRun(root, args[0], reportDir)
			}
			r, note, err := harness.ReplayResult(root, args[0], steps.Initializer)
			if err != nil {
				return &exitError{2, err}
			}
			fmt.Fprintf(os.Stdout, "%s on %s (%s), replayed from %s\n%s\n", r.Scenario, report.Target(r.SDK, r.Version), r.Feature, args[0], note)
			fmt.Printf("%s", r.Status)
			if r.Message != "" {
				fmt.Printf(": %s", r.Message)
			}
			fmt.Println()
			if report.Failing(r.Status) {
				return &exitError{1, fmt.Errorf("the recorded frames give %s", r.Status)}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&reportDir, "report-dir", "reports/replay", "where a replayed run's report goes")
	return cmd
}

// replayRun replays a whole recorded run into a report of its own.
func replayRun(root, results, reportDir string) error {
	dir, err := filepath.Abs(reportDir)
	if err != nil {
		return err
	}
	cfg := based(harness.Config{ReportDir: dir, Log: os.Stdout}, root)
	res, err := harness.ReplayRun(context.Background(), cfg, results)
	if res != nil {
		printTotals(res, dir)
	}
	if err != nil {
		return err
	}
	if err := failing(res); err != nil {
		return err
	}
	return nil
}
