// Package selftest is what proves the harness can fail: known wire regressions (mutants,
// fixtures/mutants.yaml) injected into copies of the pinned, published SDKs, and the verdict on
// each: caught when some scenario that passes (or fails only as expected) on an untouched copy
// fails on the mutant. The runs themselves (each copy's features through --sdk-source) are
// internal/campaign's (campaign.Selftest), so this package runs nothing.
package selftest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

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

// Judge is the verdict on mutant m: got is its run's results and baseline the pristine copy's,
// both by scenario name. It is caught when some scenario fails on the mutant and not on the
// pristine copy (a pristine failure, expected or not, catches nothing), and every scenario m
// expects is among them.
func Judge(m Mutant, got, baseline map[string]report.Result) Verdict {
	v := Verdict{Mutant: m}
	for name, r := range got {
		if r.Status == report.Failed && !report.Failing(baseline[name].Status) {
			v.By = append(v.By, name)
		}
	}
	sort.Strings(v.By)
	for _, e := range m.Expect {
		if !slices.Contains(v.By, e) {
			v.Missing = append(v.Missing, e)
		}
	}
	v.Caught = len(v.By) > 0 && len(v.Missing) == 0
	return v
}

// Selected says whether m is run when only (mutant names or SDKs) and sdkList (--sdk) are
// given; an empty list selects every mutant.
func Selected(m Mutant, only, sdkList []string) bool {
	return (len(only) == 0 || slices.Contains(only, m.Name) || slices.Contains(only, m.SDK)) &&
		(len(sdkList) == 0 || slices.Contains(sdkList, m.SDK))
}

// Features is every feature the mutants of sdk run, once each, in the file's order: the
// pristine baseline runs them all.
func Features(mutants []Mutant, sdk string) []string {
	var out []string
	for _, m := range mutants {
		if m.SDK != sdk {
			continue
		}
		for _, f := range m.Features {
			if !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
	}
	return out
}
