package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/Masterminds/semver/v3"
	"github.com/copilot-sdk-conformance/conformance/internal/harness"
	"github.com/copilot-sdk-conformance/conformance/internal/history"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/runner"
	"github.com/copilot-sdk-conformance/conformance/internal/runschema"
	"github.com/copilot-sdk-conformance/conformance/internal/sdks"
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
			root, pins, err := rootAndPins(cmd)
			if err != nil {
				return err
			}
			if again {
				base := cfg.ReportDir
				return rebuild(base, compareWith, history.Options{Command: "conformance " + strings.Join(os.Args[1:], " "), Root: base,
					Rerun: rerunCommand})
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
				if from, err = majorStart(pins[sdk].Version); err != nil {
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

			r := sdks.Range{Lo: from, Hi: to, Previews: previews}
			versions, err := d.Versions(ctx, r)
			if err != nil {
				return &exitError{2, fmt.Errorf("%s: listing published versions: %w", sdk, err)}
			}
			if len(versions) < 2 {
				return &exitError{2, fmt.Errorf("%s publishes %d version(s) from %s to %s (%v): a history needs two", sdk, len(versions), from, orNewest(to), versions)}
			}
			listing := fmt.Sprintf("%s %s %s, %s to %s (%d)", pins[sdk].Registry, pins[sdk].Package, map[bool]string{true: "with pre-releases", false: "releases"}[previews], from, orNewest(to), len(versions))
			if d.VersionsNote != "" {
				listing += "; " + d.VersionsNote
			}
			fmt.Printf("%s: %d versions: %s\n", sdk, len(versions), strings.Join(versions, " "))

			base := cfg.ReportDir
			if err := os.MkdirAll(base, 0o755); err != nil {
				return &exitError{2, err}
			}
			// Every run of the history (each version, the reference, each recheck) uses the same
			// runtime schemas: loaded once here, with the sweep's generated cases, instead of once
			// per run (seconds of CPU each).
			// (With --runner docker the schemas come from the driver images: each run loads its own.)
			if cfg.Runner == harness.RunnerLocal {
				shared := runschema.Load(ctx, runner.Local{RepoRoot: root, CacheRoot: cacheDirOr(cfg.CacheRoot)}, pins, &lines{w: os.Stdout})
				cfg.Schema = &shared
			}
			// A version's run (and a recheck) runs the SDK alone; the reference runs the others,
			// with the --sdk-version and --sdk-source given for them.
			runCfg := func(dir string, sdkNames []string, vs map[string][]string, what string) harness.Config {
				c := cfg
				c.SDKs, c.ReportDir, c.Command = sdkNames, dir, "conformance history ("+what+")"
				if vs != nil {
					c.Versions, c.Sources = vs, nil
				}
				return c
			}

			// The reference run of the other SDKs goes first in the queue: every comparison needs it.
			type job struct {
				label string
				run   func() error
			}
			var queue []job
			var ref *history.Reference
			switch others, refFile, err := referenceOf(compareWith, sdk); {
			case err != nil:
				return &exitError{2, err}
			case refFile != "":
				res, err := report.ReadResults(refFile)
				if err != nil {
					return &exitError{2, fmt.Errorf("--compare-with: %w", err)}
				}
				ref = &history.Reference{Name: "the run " + refFile, Dir: filepath.Dir(refFile), Results: res}
			case len(others) > 0:
				dir := filepath.Join(base, "reference")
				ref = &history.Reference{Name: "the pinned versions of " + strings.Join(others, ", ") + " (reference/)", Dir: dir}
				queue = append(queue, job{"reference (" + strings.Join(others, ",") + ")", func() error {
					res, err := runOne(ctx, runCfg(dir, others, nil, "reference"), dir)
					ref.Results = res
					return err
				}})
			}
			// Preparing is CPU and network heavy (npm, go build, cargo, mvn): two at a time, as
			// the harness does within a run.
			prepSlots := make(chan struct{}, 2)
			runs := make([]history.Run, len(versions))
			for i, v := range versions {
				dir := filepath.Join(base, report.Target(sdk, v))
				runs[i] = history.Run{Version: v, Dir: dir}
				queue = append(queue, job{report.Target(sdk, v), func() error {
					// Preparing first, outside the harness, shows a cold preparation's progress
					// on the console; the harness then finds it cached.
					// A version that does not prepare is unavailable with the preparation's answer
					// (the registry's, or the build's) and is not tried a second time.
					// (A docker runner prepares in the driver image instead.)
					prep := &sdks.Preparer{RepoRoot: root, CacheRoot: cacheDirOr(cfg.CacheRoot), Log: &lines{w: os.Stdout}}
					prepSlots <- struct{}{}
					var err error
					if cfg.Runner == harness.RunnerLocal {
						_, err = prep.Prepare(ctx, sdk, v, "")
					}
					<-prepSlots
					if err != nil {
						if ctx.Err() != nil {
							return harness.ErrInterrupted
						}
						runs[i].Err = err.Error()
						return fmt.Errorf("unavailable: %s", history.Brief(err.Error()))
					}
					res, err := runOne(ctx, runCfg(dir, []string{sdk}, map[string][]string{sdk: {v}}, sdk+" "+v), dir)
					runs[i].Results = res
					if err != nil {
						runs[i].Err = err.Error()
					}
					return err
				}})
			}

			began := time.Now()
			var (
				mu       sync.Mutex
				fatal    error
				done     int
				wg       sync.WaitGroup
				workers  = make(chan struct{}, parallel)
				progress = func(format string, a ...any) {
					mu.Lock()
					defer mu.Unlock()
					fmt.Printf(format, a...)
				}
			)
			for _, j := range queue {
				workers <- struct{}{}
				if ctx.Err() != nil { // interrupted: start nothing more
					break
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					defer func() { <-workers }()
					t := time.Now()
					err := j.run()
					mu.Lock()
					done++
					n := done
					if err != nil && (errors.Is(err, harness.ErrInterrupted) || ctx.Err() != nil) && fatal == nil {
						fatal = err
					}
					mu.Unlock()
					status := "done"
					if err != nil {
						status = firstLineOf(err.Error())
					}
					progress("[%d/%d] %s: %s (%.1fs)\n", n, len(queue), j.label, status, time.Since(t).Seconds())
				}()
			}
			wg.Wait()
			if fatal == nil && ctx.Err() != nil {
				fatal = harness.ErrInterrupted
			}
			if fatal != nil {
				return fatal
			}

			if ref != nil && ref.Results == nil {
				fmt.Println("the reference run wrote no results: no cross-SDK verdicts")
				ref = nil
			}
			h := history.Build(runs, ref, history.Options{SDK: sdk, Command: "conformance " + strings.Join(os.Args[1:], " "),
				Listing: listing, Root: base,
				Rerun: rerunCommand})
			// A regression or fix rests on one failure; under load a timing-sensitive scenario
			// can fail once (an SDK's own timeout). The failing side of up to --recheck of them
			// (not those of a version where many scenarios changed alike) is run again,
			// --parallel at a time: a failure that does not come back is flaky.
			// Changes resting on the same failure (a regression at V and the fix at V+1 of one
			// scenario) share one recheck. A recheck runs the failing side up to twice and stops
			// at the first run that does not fail: one failure on a loaded machine can be the
			// machine's, and so can one pass be luck; a change stands only if every rerun fails
			// as it did.
			type recheckJob struct {
				version, feature, scenario string
				changes                    []history.Recheck
				results                    []report.Result
			}
			var rechecks []*recheckJob
			byFailure := map[[3]string]*recheckJob{}
			for _, p := range h.ToRecheck(recheck) {
				v := h.Versions[p.V]
				c := v.Changes[p.I]
				k := [3]string{c.FailingSide(v), c.Feature, c.Scenario}
				if byFailure[k] == nil {
					byFailure[k] = &recheckJob{version: k[0], feature: k[1], scenario: k[2]}
					rechecks = append(rechecks, byFailure[k])
				}
				byFailure[k].changes = append(byFailure[k].changes, p)
			}
			const attempts = 2
			for n, j := range rechecks {
				wg.Add(1)
				workers <- struct{}{}
				go func() {
					defer wg.Done()
					defer func() { <-workers }()
					for a := 1; a <= attempts && ctx.Err() == nil; a++ {
						dir := filepath.Join(base, "recheck", fmt.Sprintf("%d-%d", n+1, a))
						cfg := runCfg(dir, []string{sdk}, map[string][]string{sdk: {j.version}}, "recheck "+sdk+" "+j.version)
						cfg.Scenario, cfg.Paths, cfg.Tags = j.scenario, []string{filepath.Join(root, "features", j.feature)}, ""
						res, err := runOne(ctx, cfg, dir)
						if res == nil || len(res.Results) != 1 {
							progress("recheck %s %s: no result (%v)\n", report.Target(sdk, j.version), j.scenario, err)
							return
						}
						r := res.Results[0]
						j.results = append(j.results, r)
						if r.Status != report.Failed && r.Status != report.XFail {
							return
						}
					}
				}()
			}
			wg.Wait()
			if ctx.Err() != nil {
				return harness.ErrInterrupted
			}
			for n, j := range rechecks {
				for _, p := range j.changes {
					if len(j.results) == 0 {
						continue
					}
					c := h.Versions[p.V].Changes[p.I]
					verdict := j.results[len(j.results)-1]
					for _, r := range j.results { // the first rerun that does not fail as the change says
						if !c.Reproduces(r) {
							verdict = r
							break
						}
					}
					h.Rechecked(p.V, p.I, j.version, verdict)
					fmt.Printf("[recheck %d/%d] %s %s: %s\n", n+1, len(rechecks), c.Kind, c.Scenario, h.Versions[p.V].Changes[p.I].Recheck)
				}
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
		quote(scenario), quote(filepath.ToSlash(filepath.Join("features", feature))))
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

// rebuild compares again the version folders an earlier history wrote into base, running
// nothing: after a harness update, or with another --compare-with results.json. The reference
// is that file, else the earlier reference/ run; the rechecks' verdicts are carried over.
func rebuild(base, compareWith string, o history.Options) error {
	began := time.Now()
	old, err := history.Read(filepath.Join(base, "history.json"))
	if err != nil {
		return &exitError{2, fmt.Errorf("--rebuild: %w", err)}
	}
	var ref *history.Reference
	refFile := filepath.Join(base, "reference", "results.json")
	if strings.HasSuffix(compareWith, ".json") {
		refFile = compareWith
	}
	if compareWith != compareNone {
		if res, err := report.ReadResults(refFile); err == nil {
			ref = &history.Reference{Name: old.Reference, Dir: filepath.Dir(refFile), Results: res}
			if refFile == compareWith {
				ref.Name = "the run " + refFile
			}
		}
	}
	o.SDK, o.Listing = old.SDK, old.Listing
	h := history.Build(old.Runs(base), ref, o)
	h.Carry(old)
	return writeHistory(base, h, began)
}

// runOne runs one harness run into dir. A target that cannot be prepared is a result too
// (unavailable): only a run that wrote no results.json is an error.
func runOne(ctx context.Context, cfg harness.Config, dir string) (*report.Results, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	logf, err := os.Create(filepath.Join(dir, "run.log"))
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	cfg.Log = logf
	_, err = harness.Run(ctx, cfg)
	if errors.Is(err, harness.ErrInterrupted) {
		return nil, err
	}
	res, readErr := report.ReadResults(filepath.Join(dir, "results.json"))
	if readErr != nil {
		if err == nil {
			err = readErr
		}
		return nil, err
	}
	return res, nil
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

// majorStart is the first release of version's major: 1.0.14 → 1.0.0, v1.0.14 → v1.0.0.
func majorStart(version string) (string, error) {
	v, err := semver.NewVersion(version)
	if err != nil {
		return "", fmt.Errorf("%q is not a semantic version: %w", version, err)
	}
	prefix := version[:len(version)-len(strings.TrimPrefix(version, "v"))]
	return fmt.Sprintf("%s%d.0.0", prefix, v.Major()), nil
}

func orNewest(v string) string {
	if v == "" {
		return "the newest"
	}
	return v
}

func cacheDirOr(dir string) string {
	if dir == "" {
		return sdks.DefaultCacheRoot()
	}
	return dir
}

func firstLineOf(s string) string { return strings.SplitN(strings.TrimSpace(s), "\n", 2)[0] }

// quote makes one shell word of s (the rerun commands are copied into a shell).
func quote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r == '=' || r == '@' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// lines writes whole lines only: several versions prepare at once and share the console (each
// preparation's lines name its version).
type lines struct {
	mu  sync.Mutex
	w   io.Writer
	buf []byte
}

func (p *lines) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.buf = append(p.buf, b...)
	for {
		i := strings.IndexByte(string(p.buf), '\n')
		if i < 0 {
			return len(b), nil
		}
		if _, err := fmt.Fprintf(p.w, "%s\n", p.buf[:i]); err != nil {
			return 0, err
		}
		p.buf = p.buf[i+1:]
	}
}
