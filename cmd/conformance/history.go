package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/campaign"
	"github.com/copilot-sdk-conformance/conformance/internal/harness"
	"github.com/copilot-sdk-conformance/conformance/internal/history"
	"github.com/copilot-sdk-conformance/conformance/internal/registry"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/sdks"
	"github.com/copilot-sdk-conformance/conformance/internal/text"
	"github.com/spf13/cobra"
)

// compareAuto and compareNone are the words --compare-with takes besides a list or a file.
const (
	compareAuto = "auto"
	compareNone = "none"
)

func historyCmd() *cobra.Command {
	var (
		from, to, since, compareWith string
		previews, again              bool
		parallel, recheck            int
		suite                        *suiteFlags
	)
	cmd := &cobra.Command{
		Use:   "history --sdk S [--from V] [--to V] [--since V] [--previews] [feature files or folders]",
		Short: "Run every published version of an SDK in a range and list what changed from each to the next",
		Long: `History asks the SDK's registry which versions it publishes in the range (as bisect does;
pre-releases only with --previews), runs the selected scenarios on every version (each prepared and
cached like --sdk-version, --parallel versions at a time), and compares each version with the
previous one that ran: scenarios whose status changed and, where a scenario ran on both, the
payload paths whose values changed. Each change is classified: regression (passed, now fails),
fix, capability gained or lost, silent wire change (the payload changed, the status did not).
The failing side of up to --recheck regressions and fixes is run again: a failure that does not
come back is reported as flaky (a timeout on a loaded machine), not as the version's.

With --compare-with (default auto: every other SDK whose toolchain is present, at its pinned
version) each payload change also says whether it makes this SDK agree with the other SDKs or
differ from them. --compare-with takes a list of SDKs, the path of an existing run's
results.json, or none.

It writes history.json, history.md and history.html into --report-dir, and each version's full
report into --report-dir/SDK@VERSION (the reference run into --report-dir/reference).

--from defaults to the first release of the pinned version's major (e.g. 1.0.0), --to to the
newest published; --since V is --from V for CI ("what changed since the last release").
Exit status: 0 when the history was written (whatever it found), 2 on a usage or setup error.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := suite.config(args)
			if err != nil {
				return err
			}
			_, pins, err := rootAndPins(cmd)
			if err != nil {
				return err
			}
			if again {
				began := time.Now()
				refFile := ""
				if strings.HasSuffix(compareWith, ".json") {
					refFile = compareWith
				}
				h, err := campaign.Rebuild(cfg.ReportDir, refFile, compareWith == compareNone,
					history.Options{Command: "conformance " + strings.Join(os.Args[1:], " "), Rerun: rerunCommand})
				if err != nil {
					return &exitError{2, err}
				}
				return writeHistory(cfg.ReportDir, h, began)
			}
			if len(cfg.SDKs) == 0 {
				return usage("history needs --sdk")
			}
			sdk, err := oneSDK("history", cfg)
			if err != nil {
				return err
			}
			d, _ := sdks.Lookup(sdk)
			if d.Versions == nil {
				return &exitError{2, fmt.Errorf("%s: its recipe cannot list the registry's versions", sdk)}
			}
			if since != "" && from != "" {
				return &exitError{2, fmt.Errorf("--since and --from both name the first version: give one")}
			}
			if since != "" {
				from = since
			}
			if from == "" {
				if from, err = registry.MajorStart(pins[sdk].Version); err != nil {
					return &exitError{2, fmt.Errorf("%s: no --from, and the pin %w", sdk, err)}
				}
			}
			for _, v := range []string{from, to} {
				if v == "" {
					continue
				}
				if err := sdks.CheckVersion(sdk, v); err != nil {
					return &exitError{2, fmt.Errorf("%s %s: %w", sdk, v, err)}
				}
			}
			if parallel < 1 {
				return &exitError{2, fmt.Errorf("--parallel %d: want at least 1", parallel)}
			}
			if cfg.Jobs < 1 {
				cfg.Jobs = max(1, harness.DefaultJobs()/parallel)
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()

			versions, err := registry.Span(ctx, d.Versions, registry.Range{Lo: from, Hi: to, Previews: previews})
			if err != nil {
				return &exitError{2, fmt.Errorf("%s: %w", sdk, err)}
			}
			listing := fmt.Sprintf("%s %s %s, %s to %s (%d)", pins[sdk].Registry, pins[sdk].Package, map[bool]string{true: "with pre-releases", false: "releases"}[previews], from, registry.OrNewest(to), len(versions))
			if d.VersionsNote != "" {
				listing += "; " + d.VersionsNote
			}
			fmt.Printf("%s: %d versions: %s\n", sdk, len(versions), strings.Join(versions, " "))

			base := cfg.ReportDir
			if err := os.MkdirAll(base, 0o755); err != nil {
				return &exitError{2, err}
			}
			others, refFile, err := referenceOf(compareWith, sdk)
			if err != nil {
				return &exitError{2, err}
			}
			console := &campaign.Lines{W: os.Stdout}
			if cfg.Schema, err = campaign.SharedSchema(ctx, cfg, console); err != nil {
				return &exitError{2, err}
			}
			plan := campaign.HistoryPlan{Config: cfg, SDK: sdk, Versions: versions, Others: others, RefFile: refFile,
				Parallel: parallel, Recheck: recheck, Out: os.Stdout,
				Options: history.Options{Command: "conformance " + strings.Join(os.Args[1:], " "), Listing: listing, Rerun: rerunCommand}}
			if cfg.Runner == harness.RunnerLocal { // a docker runner prepares in the driver image
				plan.Prepare = campaign.LocalPrepare(cfg, sdk, console)
			}
			began := time.Now()
			h, err := campaign.History(ctx, plan)
			if err != nil {
				return err
			}
			return writeHistory(base, h, began)
		},
	}
	suite = bindSuite(cmd, suiteOptions{reportDir: "reports/history", reportDirHelp: "where the history and each version's reports go",
		jobsChosen: true, jobsHelp: "scenarios of one version run at once (default: the run's default divided by --parallel)"})
	f := cmd.Flags()
	f.StringVar(&from, "from", "", "the oldest version (default MAJOR.0.0 of the pinned version)")
	f.StringVar(&to, "to", "", "the newest version (default the newest published)")
	f.StringVar(&since, "since", "", "the last release: the history from it to the newest (--from for CI)")
	f.BoolVar(&previews, "previews", false, "include pre-releases (previews, betas)")
	f.BoolVar(&again, "rebuild", false, "run nothing: compare again the versions an earlier history wrote into --report-dir (after a harness update)")
	f.StringVar(&compareWith, "compare-with", compareAuto, "the other SDKs' run for cross-SDK verdicts: auto (every other SDK present, at its pin), none, a list (go,python), or a results.json")
	f.IntVar(&parallel, "parallel", 4, "versions run at once")
	f.IntVar(&recheck, "recheck", 10, "regressions and fixes whose failing side is run again to tell a flaky failure from the version's (0: none)")
	return cmd
}

// rerunCommand runs a scenario on two versions of an SDK side by side.
func rerunCommand(sdk, prev, cur, feature, scenario string) string {
	return fmt.Sprintf("go run ./cmd/conformance run --sdk %s --sdk-version %s=%s,%s --scenario %s %s", sdk, sdk, prev, cur,
		text.ShellWord(scenario), text.ShellWord(filepath.ToSlash(filepath.Join("features", feature))))
}

// writeHistory writes the history's files into base and prints its summary.
func writeHistory(base string, h *history.History, began time.Time) error {
	if err := history.Write(base, h); err != nil {
		return &exitError{2, err}
	}
	fmt.Printf("\n%s %s: %s (%.0fs)\n", h.SDK, h.Range(), h.CountLine(), time.Since(began).Seconds())
	for _, v := range h.Versions {
		switch {
		case v.Status != report.Available:
			fmt.Printf("  %s unavailable: %s\n", v.Version, history.Brief(v.Reason))
		case len(v.Changes) > 0:
			fmt.Printf("  %s: %s\n", v.Version, v.Summary())
		}
	}
	fmt.Printf("history: %s (history.md, history.html, history.json; each version under SDK@VERSION/)\n", base)
	return nil
}

// referenceOf reads --compare-with: the other SDKs to run at their pins, or a results.json.
func referenceOf(value, self string) (others []string, file string, err error) {
	switch value {
	case compareNone, "":
		return nil, "", nil
	case compareAuto:
		for _, n := range sdks.Names() {
			d, _ := sdks.Lookup(n)
			if _, err := sdks.CheckToolchain(d); n != self && err == nil {
				others = append(others, n)
			}
		}
		return others, "", nil
	}
	if strings.HasSuffix(value, ".json") {
		return nil, value, nil
	}
	for _, n := range strings.Split(value, ",") {
		n = strings.TrimSpace(n)
		if _, ok := sdks.Lookup(n); !ok {
			return nil, "", fmt.Errorf("--compare-with %q: %q is no SDK (known: %s), nor a results.json", value, n, strings.Join(sdks.Names(), ", "))
		}
		if n != self {
			others = append(others, n)
		}
	}
	return others, "", nil
}
