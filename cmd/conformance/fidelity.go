package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/copilot-sdk-conformance/conformance/internal/campaign"
	"github.com/copilot-sdk-conformance/conformance/internal/progress"
	"github.com/spf13/cobra"
)

func fidelityCmd() *cobra.Command {
	var (
		compareOnly, noProbe bool
		suite                *suiteFlags
	)
	cmd := &cobra.Command{
		Use:   "fidelity [feature files or folders]",
		Short: "Run the suite on the stand-in and on the real runtime and list where they differ",
		Long: `Fidelity runs the features twice, on the stand-in runtime (into <report-dir>/stand-in) and on
the real Copilot runtime behind the recording proxy (into <report-dir>/real), then compares them:
per scenario and SDK the statuses (every difference with its cause), per method the shapes of the
answers, the notifications and event types only one runtime sent, and the schema/runtime skew
(methods the runtime's published schema lists that the real runtime does not implement, real
answers that do not validate against the schema). It writes fidelity.md and fidelity.json.

With --compare it runs nothing and compares <report-dir>/stand-in and <report-dir>/real as they are.
Exit status: 0 when both runs and the comparison were made (differences are findings, not errors),
2 on a setup error.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			base, err := suite.config(args)
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			view := func() *progress.View {
				return progress.New(os.Stdout, progress.Options{Live: progress.IsTerminal(os.Stdout)})
			}
			md, err := campaign.Fidelity(ctx, campaign.FidelityPlan{Config: base, CompareOnly: compareOnly, NoProbe: noProbe, View: view, Out: os.Stdout})
			if err != nil {
				return err
			}
			dir := base.ReportDir
			fmt.Printf("%s\nreports: %s (fidelity.md, fidelity.json, stand-in/, real/)\n", md, dir)
			return nil
		},
	}
	suite = bindSuite(cmd, suiteOptions{reportDir: "reports/fidelity", reportDirHelp: "where stand-in/, real/, fidelity.md and fidelity.json go",
		jobsHelp: "scenarios of one SDK run at once, on each runtime", bothRuntimes: true})
	f := cmd.Flags()
	f.BoolVar(&noProbe, "no-probe", false, "leave out the per-method probe of the schema/runtime skew (every public method called once on a real runtime)")
	f.BoolVar(&compareOnly, "compare", false, "run nothing: compare the stand-in/ and real/ runs already in --report-dir")
	return cmd
}
