// Package selftest proves the harness can fail: it injects known wire regressions (mutants,
// fixtures/mutants.yaml) into copies of the pinned, published SDKs, runs the relevant features on
// each copy through --sdk-source, and checks that every mutant is caught: some scenario that
// passes (or fails only as expected) on an untouched copy fails on the mutant.
package selftest

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/harness"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/sdks"
	"gopkg.in/yaml.v3"
)

// Mutant is one injected regression.
type Mutant struct {
	Name       string   `yaml:"name"`
	SDK        string   `yaml:"sdk"`
	Why        string   `yaml:"why"`
	Files      []string `yaml:"files"`
	Find       string   `yaml:"find"`
	Replace    string   `yaml:"replace"`
	Occurrence int      `yaml:"occurrence"` // 0: every occurrence; N: only the Nth
	Features   []string `yaml:"features"`
	Expect     []string `yaml:"expect"`
}

// Load reads the mutants file.
func Load(path string) ([]Mutant, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var ms []Mutant
	if err := yaml.Unmarshal(b, &ms); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for i, m := range ms {
		if m.Name == "" || m.SDK == "" || len(m.Files) == 0 || m.Find == "" || len(m.Features) == 0 {
			return nil, fmt.Errorf("%s: mutant #%d (%q) needs name, sdk, files, find and features", path, i+1, m.Name)
		}
	}
	return ms, nil
}

// Apply copies the pristine package to dst and makes the mutant's edit there. An edit that no
// longer applies is an error naming the file.
func Apply(m Mutant, pristine, dst string) error {
	if err := sdks.CopyDir(pristine, dst); err != nil {
		return err
	}
	for _, f := range m.Files {
		path := filepath.Join(dst, f)
		b, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("mutant %s: %w", m.Name, err)
		}
		text := string(b)
		n := strings.Count(text, m.Find)
		switch {
		case n == 0:
			return fmt.Errorf("mutant %s no longer applies: %q not found in %s", m.Name, m.Find, f)
		case m.Occurrence > n:
			return fmt.Errorf("mutant %s no longer applies: %s has %d occurrence(s) of %q, not %d", m.Name, f, n, m.Find, m.Occurrence)
		case m.Occurrence == 0:
			text = strings.ReplaceAll(text, m.Find, m.Replace)
		default:
			i := -1
			for k := 0; k < m.Occurrence; k++ {
				i += 1 + strings.Index(text[i+1:], m.Find)
			}
			text = text[:i] + m.Replace + text[i+len(m.Find):]
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Pristine fetches the published SDK package at version into dir through the SDK's recipe and
// returns the folder that --sdk-source accepts.
func Pristine(ctx context.Context, sdk, version, dir string) (string, error) {
	d, ok := sdks.Lookup(sdk)
	if !ok || d.Pristine == nil {
		return "", fmt.Errorf("selftest has no way to fetch a pristine %s SDK (its recipe has no Pristine)", sdk)
	}
	return d.Pristine(ctx, version, dir)
}

// Verdict is what one mutant did.
type Verdict struct {
	Mutant  Mutant
	Caught  bool
	By      []string // scenarios that failed on the mutant but not on the pristine copy
	Missing []string // expected scenarios that did not catch it
	Report  string   // the mutant run's report folder
	Err     error
}

// Config is one selftest.
type Config struct {
	// Run is the configuration every mutant's run (and each pristine baseline) starts from: the
	// shared flags of the commands that run the suite. Each run sets its own SDK, source,
	// features, report folder (under Run.ReportDir) and log (Run.Log, its lines prefixed);
	// Run.SDKs, when given, selects the mutants of those SDKs.
	Run     harness.Config
	Mutants string // default fixtures/mutants.yaml
	Only    []string
}

// Run runs every mutant (and one pristine baseline per SDK) and returns the verdicts.
func Run(ctx context.Context, cfg Config) ([]Verdict, error) {
	log := cfg.Run.Log
	if log == nil {
		log = io.Discard
	}
	if cfg.Mutants == "" {
		cfg.Mutants = filepath.Join(cfg.Run.RepoRoot, "fixtures", "mutants.yaml")
	}
	mutants, err := Load(cfg.Mutants)
	if err != nil {
		return nil, err
	}
	pins, err := sdks.LoadPins(filepath.Join(cfg.Run.RepoRoot, "fixtures", "sdks.yaml"))
	if err != nil {
		return nil, err
	}
	work, err := os.MkdirTemp("", "conformance-selftest-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)

	run := func(sdk, source, name string, features []string) (map[string]report.Result, string, error) {
		dir := filepath.Join(cfg.Run.ReportDir, name)
		var paths []string
		for _, f := range features {
			paths = append(paths, filepath.Join(cfg.Run.RepoRoot, "features", f))
		}
		c := cfg.Run
		c.SDKs, c.Sources, c.Versions, c.Paths, c.ReportDir = []string{sdk}, map[string]string{sdk: source}, nil, paths, dir
		c.Log, c.Command = prefix(log, name), "conformance selftest ("+name+")"
		res, err := harness.Run(ctx, c)
		if err != nil {
			return nil, dir, err
		}
		out := map[string]report.Result{}
		for _, r := range res.Results {
			out[r.Scenario] = r
		}
		return out, dir, nil
	}

	pristine := map[string]string{}
	baseline := map[string]map[string]report.Result{}
	var verdicts []Verdict
	for _, m := range mutants {
		if len(cfg.Only) > 0 && !contains(cfg.Only, m.Name) && !contains(cfg.Only, m.SDK) ||
			len(cfg.Run.SDKs) > 0 && !contains(cfg.Run.SDKs, m.SDK) {
			continue
		}
		v := Verdict{Mutant: m}
		if pristine[m.SDK] == "" {
			dir, err := Pristine(ctx, m.SDK, pins[m.SDK].Version, filepath.Join(work, m.SDK+"-download"))
			if err == nil {
				fmt.Fprintf(log, "[selftest] pristine %s SDK %s: %s\n", m.SDK, pins[m.SDK].Version, dir)
				copyDir := filepath.Join(work, m.SDK+"-pristine")
				if err = sdks.CopyDir(dir, copyDir); err == nil {
					pristine[m.SDK] = copyDir
					var features []string
					for _, mm := range mutants {
						if mm.SDK == m.SDK {
							features = appendNew(features, mm.Features...)
						}
					}
					baseline[m.SDK], _, err = run(m.SDK, copyDir, m.SDK+"-pristine", features)
				}
			}
			if err != nil {
				v.Err = fmt.Errorf("pristine %s SDK: %w", m.SDK, err)
				verdicts = append(verdicts, v)
				continue
			}
		}
		dst := filepath.Join(work, m.Name)
		if err := Apply(m, pristine[m.SDK], dst); err != nil {
			v.Err = err
			verdicts = append(verdicts, v)
			continue
		}
		got, dir, err := run(m.SDK, dst, m.Name, m.Features)
		v.Report = dir
		if err != nil {
			v.Err = err
			verdicts = append(verdicts, v)
			continue
		}
		for name, r := range got {
			if r.Status == report.Failed && !report.Failing(baseline[m.SDK][name].Status) {
				v.By = append(v.By, name)
			}
		}
		sort.Strings(v.By)
		for _, e := range m.Expect {
			if !contains(v.By, e) {
				v.Missing = append(v.Missing, e)
			}
		}
		v.Caught = len(v.By) > 0 && len(v.Missing) == 0
		verdicts = append(verdicts, v)
	}
	return verdicts, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func appendNew(list []string, items ...string) []string {
	for _, it := range items {
		if !contains(list, it) {
			list = append(list, it)
		}
	}
	return list
}

// prefix tags each progress line with the run it belongs to.
func prefix(w io.Writer, name string) io.Writer {
	return writerFunc(func(p []byte) (int, error) {
		for _, line := range strings.SplitAfter(string(p), "\n") {
			if line != "" {
				fmt.Fprintf(w, "(%s) %s", name, line)
			}
		}
		return len(p), nil
	})
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
