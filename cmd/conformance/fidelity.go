package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/fidelity"
	"github.com/copilot-sdk-conformance/conformance/internal/harness"
	"github.com/copilot-sdk-conformance/conformance/internal/progress"
	"github.com/copilot-sdk-conformance/conformance/internal/realruntime"
	"github.com/copilot-sdk-conformance/conformance/internal/sdks"
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
			root, dir, cacheDir, rtVersion := base.RepoRoot, base.ReportDir, base.CacheRoot, base.RuntimeVersion
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			times := map[string]time.Duration{}
			if !compareOnly {
				for _, rt := range []string{harness.RuntimeStandIn, harness.RuntimeReal} {
					view := progress.New(os.Stdout, progress.Options{Live: progress.IsTerminal(os.Stdout)})
					cfg := base
					cfg.Log, cfg.Progress, cfg.Runtime, cfg.ReportDir = os.Stdout, view, rt, filepath.Join(dir, rt)
					if rt != harness.RuntimeReal {
						cfg.RuntimeVersion = ""
					}
					begin := time.Now()
					_, err := harness.Run(ctx, cfg)
					view.Close()
					times[rt] = time.Since(begin)
					if err != nil && ctx.Err() != nil {
						return err
					}
					if err != nil {
						fmt.Printf("%s run: %v\n", rt, err)
					}
				}
			}
			doc, prepDir, why := runtimeSchema(ctx, root, cacheDir)
			if doc == nil {
				fmt.Printf("schema/runtime skew not measured: %s\n", why)
			}
			r, err := fidelity.Compare(filepath.Join(dir, harness.RuntimeStandIn), filepath.Join(dir, harness.RuntimeReal), doc)
			if err != nil {
				return &exitError{2, err}
			}
			md := fidelity.Markdown(r)
			if doc != nil && !noProbe {
				if cacheDir == "" {
					cacheDir = sdks.DefaultCacheRoot()
				}
				rb, err := sdks.PrepareRuntime(ctx, cacheDir, rtVersion, prepDir, os.Stdout)
				if err == nil {
					var probe *realruntime.SkewProbe
					if probe, err = realruntime.ProbeSkew(ctx, realruntime.Config{Binary: rb.Path, Env: rb.Env}, doc); err == nil {
						md += probe.Markdown()
					}
				}
				if err != nil {
					md += fmt.Sprintf("\n(the per-method probe did not run: %v)\n", err)
				}
			}
			if len(times) == 2 {
				md += fmt.Sprintf("\n## Time\n\nstand-in %.1fs, real %.1fs (%.2f×)\n", times[harness.RuntimeStandIn].Seconds(),
					times[harness.RuntimeReal].Seconds(), times[harness.RuntimeReal].Seconds()/times[harness.RuntimeStandIn].Seconds())
			}
			j, _ := json.MarshalIndent(r, "", "  ")
			if err := os.WriteFile(filepath.Join(dir, "fidelity.json"), append(j, '\n'), 0o644); err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(dir, "fidelity.md"), []byte(md), 0o644); err != nil {
				return err
			}
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

// runtimeSchema reads the runtime's api.schema.json from the prepared schema-source SDK, and
// returns that preparation's folder (which also ships the runtime).
func runtimeSchema(ctx context.Context, root, cacheDir string) ([]byte, string, string) {
	d, ok := sdks.SchemaSource()
	if !ok {
		return nil, "", "no SDK recipe ships the runtime schema"
	}
	pins, err := sdks.LoadPins(filepath.Join(root, "fixtures", "sdks.yaml"))
	if err != nil {
		return nil, "", err.Error()
	}
	if cacheDir == "" {
		cacheDir = sdks.DefaultCacheRoot()
	}
	prep, err := (&sdks.Preparer{RepoRoot: root, CacheRoot: cacheDir, Log: os.Stdout}).Prepare(ctx, d.Name, pins[d.Name].Version, "")
	if err != nil {
		return nil, "", err.Error()
	}
	sd, err := d.Schema(prep.CacheDir)
	if err != nil {
		return nil, "", err.Error()
	}
	b, err := os.ReadFile(filepath.Join(sd, "api.schema.json"))
	if err != nil {
		return nil, "", err.Error()
	}
	return b, prep.CacheDir, ""
}
