package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/sdks"
	"github.com/copilot-sdk-conformance/conformance/internal/selftest"
	"github.com/copilot-sdk-conformance/conformance/steps"
	"github.com/spf13/cobra"
)

func selftestCmd() *cobra.Command {
	var mutants, reportDir string
	var only []string
	cmd := &cobra.Command{
		Use:   "selftest",
		Short: "Inject known wire regressions into copies of the pinned SDKs and check every one is caught",
		Long: `Selftest proves the harness can fail. For each mutant in fixtures/mutants.yaml it copies the
pinned, published SDK package, makes the mutant's edit, runs the mutant's features on the copy
through --sdk-source, and checks that scenarios which pass (or fail only as expected) on an
untouched copy now fail. Exit status 1 unless every mutant is caught.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			root, err := repoRoot(cmd)
			if err != nil {
				return err
			}
			if reportDir, err = filepath.Abs(reportDir); err != nil {
				return err
			}
			verdicts, err := selftest.Run(context.Background(), selftest.Config{Steps: steps.Initializer, Vocabulary: steps.Vocabulary(), RepoRoot: root, Mutants: mutants, Only: only,
				ReportDir: reportDir, CacheRoot: sdks.DefaultCacheRoot(), Self: selfArgv(), Log: os.Stdout})
			if err != nil {
				return &exitError{2, err}
			}
			missed := 0
			fmt.Println("\nmutant                              sdk   verdict")
			for _, v := range verdicts {
				switch {
				case v.Err != nil:
					missed++
					fmt.Printf("%-35s %-5s ERROR: %v\n", v.Mutant.Name, v.Mutant.SDK, v.Err)
				case v.Caught:
					fmt.Printf("%-35s %-5s caught by: %s\n", v.Mutant.Name, v.Mutant.SDK, strings.Join(v.By, "; "))
				default:
					missed++
					fmt.Printf("%-35s %-5s NOT CAUGHT (expected failures missing: %s; report %s)\n", v.Mutant.Name, v.Mutant.SDK, strings.Join(v.Missing, "; "), v.Report)
				}
			}
			if len(verdicts) == 0 {
				return &exitError{2, fmt.Errorf("no mutant selected")}
			}
			if missed > 0 {
				return &exitError{1, fmt.Errorf("%d of %d mutants not caught", missed, len(verdicts))}
			}
			fmt.Printf("all %d mutants caught\n", len(verdicts))
			return nil
		},
	}
	cmd.Flags().StringVar(&mutants, "mutants", "", "mutants file (default fixtures/mutants.yaml)")
	cmd.Flags().StringVar(&reportDir, "report-dir", "reports/selftest", "where each mutant's report goes")
	cmd.Flags().StringSliceVar(&only, "only", nil, "run only these mutants or SDKs")
	return cmd
}
