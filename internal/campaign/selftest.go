package campaign

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

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

	pristine := map[string]string{}
	baseline := map[string]map[string]report.Result{}
	broken := map[string]error{} // an SDK whose pristine copy could not be fetched or run: its mutants are not judged
	var verdicts []selftest.Verdict
	for _, m := range mutants {
		if !selftest.Selected(m, p.Only, cfg.SDKs) {
			continue
		}
		if err := broken[m.SDK]; err != nil {
			verdicts = append(verdicts, selftest.Verdict{Mutant: m, Err: err})
			continue
		}
		if pristine[m.SDK] == "" {
			if err := func() error {
				dir, err := pristineOf(ctx, m.SDK, pins[m.SDK].Version, filepath.Join(work, m.SDK+"-download"))
				if err != nil {
					return err
				}
				fmt.Fprintf(log, "[selftest] pristine %s SDK %s: %s\n", m.SDK, pins[m.SDK].Version, dir)
				copyDir := filepath.Join(work, m.SDK+"-pristine")
				if err := sdks.CopyDir(dir, copyDir); err != nil {
					return err
				}
				baseline[m.SDK], _, err = runOn(m.SDK, copyDir, m.SDK+"-pristine", selftest.Features(mutants, m.SDK))
				if err == nil {
					pristine[m.SDK] = copyDir
				}
				return err
			}(); err != nil {
				broken[m.SDK] = fmt.Errorf("pristine %s SDK: %w", m.SDK, err)
				verdicts = append(verdicts, selftest.Verdict{Mutant: m, Err: broken[m.SDK]})
				continue
			}
		}
		dst := filepath.Join(work, m.Name)
		if err := selftest.Apply(m, pristine[m.SDK], dst); err != nil {
			verdicts = append(verdicts, selftest.Verdict{Mutant: m, Err: err})
			continue
		}
		got, dir, err := runOn(m.SDK, dst, m.Name, m.Features)
		v := selftest.Verdict{Mutant: m, Err: err}
		if err == nil {
			v = selftest.Judge(m, got, baseline[m.SDK])
		}
		v.Report = dir
		verdicts = append(verdicts, v)
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
