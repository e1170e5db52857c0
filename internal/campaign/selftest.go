package campaign

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/copilot-sdk-conformance/conformance/internal/harness"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/sdks"
	"github.com/copilot-sdk-conformance/conformance/internal/selftest"
)

// SelftestPlan is one selftest: every selected mutant's run and one pristine baseline per SDK.
type SelftestPlan struct {
	// Config is what every run (each mutant's and each baseline) starts from: the shared flags
	// of the commands that run the suite. Each run sets its own SDK, source, features, report
	// folder (under Config.ReportDir) and log (Config.Log, its lines prefixed with the run's
	// name); Config.SDKs, when given, selects the mutants of those SDKs.
	Config  harness.Config
	Mutants string   // default fixtures/mutants.yaml
	Only    []string // mutant names or SDKs; none: every mutant
	Run     RunFunc  // nil: harness.Run
	// Parallel is how many runs (the baselines and the mutants) go at once; 0 or 1: one after
	// another. A run mostly waits (on the stand-in's timed moves, on npm or the go build), so a
	// few at a time shorten a selftest even on two cores.
	Parallel int
	// Pristine fetches the published package of sdk at version into dir and returns the folder
	// --sdk-source takes (nil: selftest.Pristine, the SDK recipe's).
	Pristine func(ctx context.Context, sdk, version, dir string) (string, error)
}

// Selftest runs every selected mutant on a copy of its SDK's pinned package (and the untouched
// copy once per SDK, the baseline) and returns the verdicts, in the mutants file's order.
func Selftest(ctx context.Context, p SelftestPlan) ([]selftest.Verdict, error) {
	cfg, run := p.Config, orRun(p.Run)
	pristineOf := p.Pristine
	if pristineOf == nil {
		pristineOf = selftest.Pristine
	}
	log := cfg.Log
	if log == nil {
		log = io.Discard
	}
	log = &Lines{W: log} // the runs log side by side
	if p.Mutants == "" {
		p.Mutants = filepath.Join(cfg.RepoRoot, "fixtures", "mutants.yaml")
	}
	mutants, err := selftest.Load(p.Mutants)
	if err != nil {
		return nil, err
	}
	pins, err := sdks.LoadPins(filepath.Join(cfg.RepoRoot, "fixtures", "sdks.yaml"))
	if err != nil {
		return nil, err
	}
	work, err := os.MkdirTemp("", "conformance-selftest-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)

	// runOn runs features on the SDK package in source; the results by scenario name.
	runOn := func(sdk, source, name string, features []string) (map[string]report.Result, string, error) {
		c := cfg
		c.Paths = nil
		for _, f := range features {
			c.Paths = append(c.Paths, filepath.Join(cfg.RepoRoot, "features", f))
		}
		c.SDKs, c.Sources, c.Versions, c.ReportDir = []string{sdk}, map[string]string{sdk: source}, nil, filepath.Join(cfg.ReportDir, name)
		// A copy of the pin is matched as the pin, also where the package declares no version
		// (a Go module folder): the manifest's version ranges apply to it as to the pin.
		c.SourcesAs = map[string]string{sdk: pins[sdk].Version}
		c.Log, c.Command = prefixed(log, name), "conformance selftest ("+name+")"
		res, err := run(ctx, c)
		if err != nil {
			return nil, c.ReportDir, err
		}
		out := map[string]report.Result{}
		for _, r := range res.Results {
			out[r.Scenario] = r
		}
		return out, c.ReportDir, nil
	}

	// The pristine copies first, one SDK after another (a registry fetch each); then every run
	// (each SDK's baseline and each mutant's) as a job, p.Parallel at a time: a mutant needs its
	// SDK's pristine copy, not its baseline's results, which only the verdicts read.
	var chosen []selftest.Mutant
	for _, m := range mutants {
		if selftest.Selected(m, p.Only, cfg.SDKs) {
			chosen = append(chosen, m)
		}
	}
	pristine := map[string]string{}
	broken := map[string]error{} // an SDK whose pristine copy could not be fetched or run: its mutants are not judged
	var jobs []func()
	baseline := map[string]map[string]report.Result{}
	var mu sync.Mutex
	for _, m := range chosen {
		if pristine[m.SDK] != "" || broken[m.SDK] != nil {
			continue
		}
		dir, err := pristineOf(ctx, m.SDK, pins[m.SDK].Version, filepath.Join(work, m.SDK+"-download"))
		if err == nil {
			fmt.Fprintf(log, "[selftest] pristine %s SDK %s: %s\n", m.SDK, pins[m.SDK].Version, dir)
			err = sdks.CopyDir(dir, filepath.Join(work, m.SDK+"-pristine"))
		}
		if err != nil {
			broken[m.SDK] = fmt.Errorf("pristine %s SDK: %w", m.SDK, err)
			continue
		}
		sdk, copyDir := m.SDK, filepath.Join(work, m.SDK+"-pristine")
		pristine[sdk] = copyDir
		jobs = append(jobs, func() {
			got, _, err := runOn(sdk, copyDir, sdk+"-pristine", selftest.Features(chosen, sdk))
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				broken[sdk] = fmt.Errorf("pristine %s SDK: %w", sdk, err)
				return
			}
			baseline[sdk] = got
		})
	}
	verdicts := make([]selftest.Verdict, len(chosen))
	runs := make([]map[string]report.Result, len(chosen))
	for i, m := range chosen {
		verdicts[i] = selftest.Verdict{Mutant: m, Err: broken[m.SDK]}
		if broken[m.SDK] != nil {
			continue
		}
		dst := filepath.Join(work, m.Name)
		if err := selftest.Apply(m, pristine[m.SDK], dst); err != nil {
			verdicts[i].Err = err
			continue
		}
		jobs = append(jobs, func() {
			runs[i], verdicts[i].Report, verdicts[i].Err = runOn(m.SDK, dst, m.Name, m.Features)
		})
	}
	parallel := max(1, p.Parallel)
	slots := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for _, job := range jobs {
		slots <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			job()
		}()
	}
	wg.Wait()
	for i, v := range verdicts {
		switch {
		case v.Err != nil:
		case broken[v.Mutant.SDK] != nil:
			verdicts[i].Err = broken[v.Mutant.SDK]
		default:
			verdicts[i] = selftest.Judge(v.Mutant, runs[i], baseline[v.Mutant.SDK])
			verdicts[i].Report = v.Report
		}
	}
	return verdicts, nil
}

// prefixed tags each line written to w with the run it belongs to.
func prefixed(w io.Writer, name string) io.Writer {
	return writerFunc(func(b []byte) (int, error) {
		for _, line := range strings.SplitAfter(string(b), "\n") {
			if line != "" {
				fmt.Fprintf(w, "(%s) %s", name, line)
			}
		}
		return len(b), nil
	})
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }
