package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/merge"
	"github.com/spf13/cobra"
)

func mergeCmd() *cobra.Command {
	var reportDir string
	cmd := &cobra.Command{
		Use:   "merge --report-dir OUT SHARD/results.json...",
		Short: "Join the reports of a sharded run (run --shard I/N) into one",
		Long: `Merge reads the results.json of every shard of one run and writes into --report-dir the report
the unsharded run writes: results.json, junit.xml, summary.md and the transcripts, with the
cross-SDK comparisons recomputed over all shards (each shard's driver logs go to shards/<I>/).

Exit status: as run's over the merged results (0 passed or xfail only, 1 on a failure or an
unexpected pass), 2 when the shards cannot be merged: one missing, two overlapping, or shards of
different plans or harness versions.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if reportDir == "" {
				return &exitError{2, fmt.Errorf("merge: --report-dir is required")}
			}
			res, err := merge.Merge(reportDir, args, "conformance "+strings.Join(os.Args[1:], " "))
			if errors.Is(err, merge.ErrInput) {
				return &exitError{2, err}
			}
			if err != nil {
				return &exitError{2, fmt.Errorf("merge: %w", err)}
			}
			printTotals(res, reportDir)
			if err := failing(res); err != nil {
				return err
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&reportDir, "report-dir", "", "where the merged report goes")
	return cmd
}
