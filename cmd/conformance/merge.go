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
	var opt merge.Options
	cmd := &cobra.Command{
		Use:   "merge --report-dir OUT SHARD/results.json...",
		Short: "Join the reports of a sharded run (run --shard I/N) into one",
		Long: `Merge reads the results.json of every shard of one run and writes into --report-dir the report
the unsharded run writes: results.json, junit.xml, summary.md and the transcripts, with the
cross-SDK comparisons recomputed over all shards (each shard's driver logs go to shards/<I>/).

Every shard must be complete (each planned result reported); a shard that is not (interrupted,
say) is refused unless --allow-incomplete is given, and the merged report then says INCOMPLETE.

Exit status: as run's over the merged results (0 passed or xfail only, 1 on a failure or an
unexpected pass, 3 when INCOMPLETE with no failure), 2 when the shards cannot be merged: a
results.json this harness cannot read (another schemaVersion, a field missing, an unknown
status), an incomplete shard without --allow-incomplete, one missing, two overlapping, or shards
of different plans or harness versions.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if reportDir == "" {
				return &exitError{2, fmt.Errorf("merge: --report-dir is required")}
			}
			res, err := merge.Merge(reportDir, args, "conformance "+strings.Join(os.Args[1:], " "), opt)
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
	cmd.Flags().BoolVar(&opt.AllowIncomplete, "allow-incomplete", false, "merge shards that left planned results without one (interrupted); the merged report is INCOMPLETE and says so in its headline (exit 3 unless a result fails)")
	return cmd
}
