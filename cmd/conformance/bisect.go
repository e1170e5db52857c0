package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/copilot-sdk-conformance/conformance/internal/campaign"
	"github.com/copilot-sdk-conformance/conformance/internal/registry"
	"github.com/copilot-sdk-conformance/conformance/internal/sdks"
	"github.com/spf13/cobra"
)

func bisectCmd() *cobra.Command {
	var (
		good, bad string
		suite     *suiteFlags
	)
	cmd := &cobra.Command{
		Use:   "bisect --sdk S --good V1 --bad V2 [--scenario NAME] [feature files or folders]",
		Short: "Find the first published version between two at which a scenario's status changes",
		Long: `Bisect asks the SDK's registry which versions it publishes from --good to --bad (pre-releases
left out; the Go proxy reachable here refuses version lists, so Go's candidate tags vX.Y.Z are
probed one by one), runs the selected scenarios on --good and --bad, then on the version halfway
between, and so on, until two adjacent versions differ in some scenario's status (xfail counts
as failed, xpass as passed). It prints the versions it ran and, for the first changed version
against the last one like --good, each changed scenario's statuses and its differing payload
paths. Each version's reports are kept under --report-dir/SDK@VERSION.

--good may be older or newer than --bad: bisect searches from good towards bad.
Exit status: 0 when a change was found or none exists, 2 on a usage or setup error.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			base, err := suite.config(args)
			if err != nil {
				return err
			}
			if len(base.SDKs) == 0 || good == "" || bad == "" {
				return usage("bisect needs --sdk, --good and --bad")
			}
			if len(base.Versions) > 0 || len(base.Sources) > 0 {
				return usage("bisect runs published versions of --sdk only: --sdk-version and --sdk-source are not for it")
			}
			sdk, err := oneSDK("bisect", base)
			if err != nil {
				return err
			}
			d, _ := sdks.Lookup(sdk)
			for _, v := range []string{good, bad} {
				if err := sdks.CheckVersion(sdk, v); err != nil {
					return &exitError{2, fmt.Errorf("%s %s: %w", sdk, v, err)}
				}
			}
			if d.Versions == nil {
				return &exitError{2, fmt.Errorf("%s: its recipe cannot list the registry's versions", sdk)}
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			versions, err := registry.Bisection(ctx, d.Versions, good, bad)
			if err != nil {
				return &exitError{2, fmt.Errorf("%s: %w", sdk, err)}
			}
			if d.VersionsNote != "" {
				fmt.Printf("%s: %s\n", sdk, d.VersionsNote)
			}
			o, err := campaign.Bisect(ctx, base, sdk, versions, nil, os.Stdout)
			if err != nil {
				return &exitError{2, err}
			}
			fmt.Print("\n" + o.Text())
			return nil
		},
	}
	suite = bindSuite(cmd, suiteOptions{reportDir: "reports/bisect", reportDirHelp: "where each version's reports go (one folder per SDK@version)"})
	f := cmd.Flags()
	f.StringVar(&good, "good", "", "a version with the known-good behaviour")
	f.StringVar(&bad, "bad", "", "a version with the changed behaviour")
	return cmd
}
