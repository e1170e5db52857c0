package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/campaign"
	"github.com/copilot-sdk-conformance/conformance/internal/harness"
	"github.com/spf13/cobra"
)

func selftestCmd() *cobra.Command {
	var mutants string
	var only []string
	var parallel int
	var suite *suiteFlags
	cmd := &cobra.Command{
		Use:   "selftest",
		Short: "Inject known wire regressions into copies of the pinned SDKs and check every one is caught",
		Long: `Selftest proves the harness can fail. For each mutant in fixtures/mutants.yaml it copies the
pinned, published SDK package, makes the mutant's edit, runs the mutant's features on the copy
through --sdk-source, and checks that scenarios which pass (or fail only as expected) on an
untouched copy now fail. --sdk selects the mutants of those SDKs; the other shared flags apply to
every run. Exit status 1 unless every mutant is caught.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := suite.config(args)
			if err != nil {
				return err
			}
			if len(cfg.Versions) > 0 || len(cfg.Sources) > 0 {
				return usage("selftest runs copies of the pinned SDKs: --sdk-version and --sdk-source are not for it")
			}
			if parallel < 1 {
				return usage("--parallel %d: want at least 1", parallel)
			}
			if cfg.Jobs == 0 {
				cfg.Jobs = max(1, harness.DefaultJobs()/parallel)
			}
			cfg.Log = os.Stdout
			ctx := context.Background()
			// Every run is of the pins' copies: the runtime's schemas are loaded once for all.
			if cfg.Schema, err = campaign.SharedSchema(ctx, cfg, &campaign.Lines{W: os.Stdout}); err != nil {
				return &exitError{2, err}
			}
			verdicts, err := campaign.Selftest(ctx, campaign.SelftestPlan{Config: cfg, Mutants: mutants, Only: only, Parallel: parallel})
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
	suite = bindSuite(cmd, suiteOptions{reportDir: "reports/selftest", reportDirHelp: "where each mutant's report goes",
		jobsChosen: true, jobsHelp: "scenarios of one run at once (default: the run's default divided by --parallel)"})
	cmd.Flags().StringSliceVar(&only, "only", nil, "run only these mutants or SDKs")
	cmd.Flags().IntVar(&parallel, "parallel", 4, "runs (each SDK's pristine copy and each mutant) at once")
	return cmd
}
