package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/harness"
	"github.com/copilot-sdk-conformance/conformance/internal/rundiff"
	"github.com/copilot-sdk-conformance/conformance/steps"
	"github.com/spf13/cobra"
)

func diffCmd() *cobra.Command {
	allow := map[string]*[]string{}
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
Exit status: 0 when nothing regressed, 1 on a regression, 2 when a file cannot be read.`,
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
			if n := r.Regressions(); n > 0 {
				return &exitError{1, fmt.Errorf("%d regression(s)", n)}
			}
			return nil
		},
	}
	for _, status := range rundiff.Allowable {
		allow[status] = cmd.Flags().StringSlice("allow-"+status, nil,
			fmt.Sprintf("SDK or capability allowed to go from passed to %s (repeatable, comma-separated)", status))
	}
	return cmd
}

func replayCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "replay TRANSCRIPT",
		Short: "Re-check a scenario's assertions against a recorded transcript, running no SDK",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			root, err := repoRoot(cmd)
			if err != nil {
				return err
			}
			o, sdk, err := harness.Replay(root, args[0], steps.Initializer)
			if err != nil {
				return &exitError{2, err}
			}
			fmt.Fprintf(os.Stdout, "%s on %s (%s), replayed from %s\n", o.Scenario, sdk, o.Feature, args[0])
			switch {
			case o.Err != nil:
				fmt.Printf("failed: %v\n", o.Err)
				return &exitError{1, fmt.Errorf("the recorded frames fail the scenario")}
			case o.Unavailable != "":
				fmt.Printf("unavailable: %s\n", o.Unavailable)
			case o.Unsupported != "":
				fmt.Printf("unsupported: %s\n", o.Unsupported)
			default:
				fmt.Println("passed: the recorded frames satisfy every assertion")
			}
			return nil
		},
	}
}
