package campaign

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/harness"
	"github.com/copilot-sdk-conformance/conformance/internal/history"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/runner"
	"github.com/copilot-sdk-conformance/conformance/internal/runschema"
	"github.com/copilot-sdk-conformance/conformance/internal/sdks"
	"github.com/copilot-sdk-conformance/conformance/internal/text"
)

// HistoryPlan is one SDK's history: every version run, each compared with the one before.
type HistoryPlan struct {
	// Config is every run's base (the shared flags); its ReportDir holds the history, each
	// version's run in SDK@VERSION/, the reference in reference/, the rechecks in recheck/.
	Config   harness.Config
	SDK      string
	Versions []string // oldest first
	// Others run at their pins (or Config's --sdk-version, --sdk-source for them) as the
	// reference of the cross-SDK verdicts; RefFile is an existing run's results.json instead.
	Others  []string
	RefFile string
	// Parallel runs are at once; up to Recheck regressions and fixes have their failing side
	// run again.
	Parallel, Recheck int
	Options           history.Options // the report's command, listing and rerun commands
	Run               RunFunc         // nil: harness.Run
	// Prepare readies a version before its run, outside the harness, so that a cold
	// preparation's progress shows (LocalPrepare); nil: the run prepares it. A version that
	// does not prepare is unavailable with the preparation's answer and is not run.
	Prepare func(ctx context.Context, version string) error
	Out     io.Writer // a line per finished run and recheck
}

// LocalPrepare prepares an SDK version into the cache on this machine, two at a time
// (preparing is CPU and network heavy: npm, go build, cargo, mvn, as the harness does within a
// run), its lines to out.
func LocalPrepare(cfg harness.Config, sdk string, out io.Writer) func(ctx context.Context, version string) error {
	cache := cacheOf(cfg)
	slots := make(chan struct{}, 2)
	return func(ctx context.Context, version string) error {
		slots <- struct{}{}
		defer func() { <-slots }()
		_, err := (&sdks.Preparer{RepoRoot: cfg.RepoRoot, CacheRoot: cache, Log: out}).Prepare(ctx, sdk, version, "")
		return err
	}
}

// SharedSchema loads the runtime's schemas once for every run of a campaign on this machine's
// pins (each version, the reference, each recheck): with the sweep's generated cases that is
// seconds of CPU a run. With --runner docker the schemas come from each driver image: nil.
func SharedSchema(ctx context.Context, cfg harness.Config, log io.Writer) (*runschema.Loaded, error) {
	if cfg.Runner != harness.RunnerLocal && cfg.Runner != "" {
		return nil, nil
	}
	pins, err := sdks.LoadPins(filepath.Join(cfg.RepoRoot, "fixtures", "sdks.yaml"))
	if err != nil {
		return nil, err
	}
	cache := cacheOf(cfg)
	l := runschema.Load(ctx, runner.Local{RepoRoot: cfg.RepoRoot, CacheRoot: cache}, pins, log)
	return &l, nil
}

// History runs the plan's versions (and the reference), builds the history, and runs the
// failing side of its regressions and fixes again. It writes nothing but the runs' folders:
// history.Write writes its files.
func History(ctx context.Context, p HistoryPlan) (*history.History, error) {
	base := p.Config.ReportDir
	out := p.Out
	if out == nil {
		out = io.Discard
	}
	// A version's run (and a recheck) runs the SDK alone; the reference runs the others, with
	// the --sdk-version and --sdk-source given for them.
	runCfg := func(sdkNames []string, vs map[string][]string, what string) harness.Config {
		c := p.Config
		c.SDKs, c.Command = sdkNames, "conformance history ("+what+")"
		if vs != nil {
			c.Versions, c.Sources = vs, nil
		}
		return c
	}
	type job struct {
		label string
		run   func() error
	}
	var queue []job
	var ref *history.Reference
	switch {
	case p.RefFile != "":
		res, err := report.ReadResults(p.RefFile)
		if err != nil {
			return nil, fmt.Errorf("%w: --compare-with: %v", harness.ErrSetup, err)
		}
		ref = &history.Reference{Name: "the run " + p.RefFile, Dir: filepath.Dir(p.RefFile), Results: res}
	case len(p.Others) > 0:
		// The reference run goes first in the queue: every comparison needs it.
		dir := filepath.Join(base, "reference")
		ref = &history.Reference{Name: "the pinned versions of " + strings.Join(p.Others, ", ") + " (reference/)", Dir: dir}
		queue = append(queue, job{"reference (" + strings.Join(p.Others, ",") + ")", func() error {
			res, err := RunInto(ctx, p.Run, runCfg(p.Others, nil, "reference"), dir)
			ref.Results = res
			return err
		}})
	}
	runs := make([]history.Run, len(p.Versions))
	for i, v := range p.Versions {
		dir := filepath.Join(base, report.Target(p.SDK, v))
		runs[i] = history.Run{Version: v, Dir: dir}
		queue = append(queue, job{report.Target(p.SDK, v), func() error {
			if p.Prepare != nil {
				if err := p.Prepare(ctx, v); err != nil {
					if ctx.Err() != nil {
						return harness.ErrInterrupted
					}
					runs[i].Err = err.Error()
					return fmt.Errorf("unavailable: %s", history.Brief(err.Error()))
				}
			}
			res, err := RunInto(ctx, p.Run, runCfg([]string{p.SDK}, map[string][]string{p.SDK: {v}}, p.SDK+" "+v), dir)
			runs[i].Results = res
			if err != nil {
				runs[i].Err = err.Error()
			}
			return err
		}})
	}

	parallel := max(1, p.Parallel)
	var (
		mu      sync.Mutex
		fatal   error
		done    int
		wg      sync.WaitGroup
		workers = make(chan struct{}, parallel)
		say     = func(format string, a ...any) {
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprintf(out, format, a...)
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
				status = text.FirstLine(strings.TrimSpace(err.Error()))
			}
			say("[%d/%d] %s: %s (%.1fs)\n", n, len(queue), j.label, status, time.Since(t).Seconds())
		}()
	}
	wg.Wait()
	if fatal == nil && ctx.Err() != nil {
		fatal = harness.ErrInterrupted
	}
	if fatal != nil {
		return nil, fatal
	}

	if ref != nil && ref.Results == nil {
		fmt.Fprintln(out, "the reference run wrote no results: no cross-SDK verdicts")
		ref = nil
	}
	o := p.Options
	o.SDK, o.Root = p.SDK, base
	h := history.Build(runs, ref, o)
	if err := recheck(ctx, p, h, runCfg, workers, say); err != nil {
		return nil, err
	}
	return h, nil
}

// recheck runs again the failing side of up to p.Recheck regressions and fixes (not those of a
// version where many scenarios changed alike), p.Parallel at a time: a regression or fix rests
// on one failure, and under load a timing-sensitive scenario can fail once (an SDK's own
// timeout). Changes resting on the same failure (a regression at V and the fix at V+1 of one
// scenario) share one recheck. A recheck runs the failing side up to twice and stops at the
// first run that does not fail: one failure on a loaded machine can be the machine's, and so
// can one pass be luck; a change stands only if every rerun fails as it did. A failure that
// does not come back is flaky.
func recheck(ctx context.Context, p HistoryPlan, h *history.History, runCfg func([]string, map[string][]string, string) harness.Config,
	workers chan struct{}, say func(string, ...any)) error {
	type recheckJob struct {
		version, feature, scenario string
		changes                    []history.Recheck
		results                    []report.Result
	}
	var rechecks []*recheckJob
	byFailure := map[[3]string]*recheckJob{}
	for _, r := range h.ToRecheck(p.Recheck) {
		v := h.Versions[r.V]
		c := v.Changes[r.I]
		k := [3]string{c.FailingSide(v), c.Feature, c.Scenario}
		if byFailure[k] == nil {
			byFailure[k] = &recheckJob{version: k[0], feature: k[1], scenario: k[2]}
			rechecks = append(rechecks, byFailure[k])
		}
		byFailure[k].changes = append(byFailure[k].changes, r)
	}
	const attempts = 2
	var wg sync.WaitGroup
	for n, j := range rechecks {
		wg.Add(1)
		workers <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-workers }()
			for a := 1; a <= attempts && ctx.Err() == nil; a++ {
				dir := filepath.Join(p.Config.ReportDir, "recheck", fmt.Sprintf("%d-%d", n+1, a))
				cfg := runCfg([]string{p.SDK}, map[string][]string{p.SDK: {j.version}}, "recheck "+p.SDK+" "+j.version)
				cfg.Scenario, cfg.Paths, cfg.Tags = j.scenario, []string{filepath.Join(p.Config.RepoRoot, "features", j.feature)}, ""
				res, err := RunInto(ctx, p.Run, cfg, dir)
				if res == nil || len(res.Results) != 1 {
					say("recheck %s %s: no result (%v)\n", report.Target(p.SDK, j.version), j.scenario, err)
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
		for _, r := range j.changes {
			if len(j.results) == 0 {
				continue
			}
			c := h.Versions[r.V].Changes[r.I]
			verdict := j.results[len(j.results)-1]
			for _, res := range j.results { // the first rerun that does not fail as the change says
				if !c.Reproduces(res) {
					verdict = res
					break
				}
			}
			h.Rechecked(r.V, r.I, j.version, verdict)
			say("[recheck %d/%d] %s %s: %s\n", n+1, len(rechecks), c.Kind, c.Scenario, h.Versions[r.V].Changes[r.I].Recheck)
		}
	}
	return nil
}

// Rebuild compares again the version folders an earlier history wrote into base, running
// nothing: after a harness update, or with another reference. The reference is refFile when
// given, else the earlier reference/ run, none with noRef; the rechecks' verdicts are carried
// over.
func Rebuild(base, refFile string, noRef bool, o history.Options) (*history.History, error) {
	old, err := history.Read(filepath.Join(base, "history.json"))
	if err != nil {
		return nil, fmt.Errorf("--rebuild: %w", err)
	}
	var ref *history.Reference
	file := filepath.Join(base, "reference", "results.json")
	if refFile != "" {
		file = refFile
	}
	if !noRef {
		if res, err := report.ReadResults(file); err == nil {
			ref = &history.Reference{Name: old.Reference, Dir: filepath.Dir(file), Results: res}
			if refFile != "" {
				ref.Name = "the run " + refFile
			}
		}
	}
	o.SDK, o.Listing, o.Root = old.SDK, old.Listing, base
	h := history.Build(old.Runs(base), ref, o)
	h.Carry(old)
	return h, nil
}
