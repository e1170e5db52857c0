package main

import (
	"fmt"
	"os"

	"github.com/copilot-sdk-conformance/conformance/internal/harness"
	"github.com/copilot-sdk-conformance/conformance/internal/rundiff"
	"github.com/copilot-sdk-conformance/conformance/steps"
	"github.com/spf13/cobra"
)

func diffCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "diff BASE/results.json CANDIDATE/results.json",
		Short: "Print only what changed between two runs; exit 1 on a new failure",
		Long: `Diff compares two runs (a release candidate against the last release, say): new failures,
fixed cases, new and removed scenarios, other status changes, and, where both report folders
still hold their transcripts, changed payloads on the same scenario, per JSON path.
Exit status: 0 when nothing new fails, 1 on a new failure, 2 when a file cannot be read.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := rundiff.Runs(args[0], args[1])
			if err != nil {
				return &exitError{2, err}
			}
			fmt.Print(r.Text())
			if n := r.NewFailures(); n > 0 {
				return &exitError{1, fmt.Errorf("%d new failure(s)", n)}
			}
			return nil
		},
	}
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
