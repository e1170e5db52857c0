// Package expect reads the known-divergence manifest (fixtures/expected-failures.yaml): which
// scenario is expected to fail on which SDK and versions, why, and where it is tracked.
//
// Strict, after DataDog system-tests: a marked scenario that fails is xfail; one that passes is
// xpass and fails the run, telling to remove the entry; an entry that names no scenario is an
// error at load time.
package expect

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/Masterminds/semver/v3"
	"gopkg.in/yaml.v3"
)

// Entry is one known divergence.
type Entry struct {
	SDK      string `yaml:"sdk"`
	Versions string `yaml:"versions"` // semver constraint such as "<= 1.0.14"; empty means every version
	Feature  string `yaml:"feature"`  // feature file relative to features/; empty means any
	Scenario string `yaml:"scenario"` // exact scenario name (outline placeholders filled in)
	Reason   string `yaml:"reason"`
	Link     string `yaml:"link"`

	File string `yaml:"-"`
	Line int    `yaml:"-"`
	con  *semver.Constraints
}

// Where is "file:line" of the entry.
func (e *Entry) Where() string { return fmt.Sprintf("%s:%d", e.File, e.Line) }

// Manifest is the list of known divergences.
type Manifest struct{ Entries []*Entry }

// Scenario names a scenario for validation.
type Scenario struct{ Feature, Name string }

// Load reads a manifest and checks every entry against the scenarios that exist and the SDKs
// that are known. A missing file is an empty manifest.
func Load(path string, scenarios []Scenario, sdks []string) (*Manifest, error) {
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return &Manifest{}, nil
	}
	if err != nil {
		return nil, err
	}
	return Parse(b, filepath.ToSlash(path), scenarios, sdks)
}

// Parse reads a manifest from b; name (the file) is used in errors and in Entry.File.
func Parse(b []byte, name string, scenarios []Scenario, sdks []string) (*Manifest, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	m := &Manifest{}
	if len(doc.Content) == 0 {
		return m, nil
	}
	list := doc.Content[0]
	if list.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("%s:%d: the manifest must be a list of entries", name, list.Line)
	}
	for _, n := range list.Content {
		e := &Entry{File: name, Line: n.Line}
		if err := n.Decode(e); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, n.Line, err)
		}
		if err := e.validate(scenarios, sdks); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, n.Line, err)
		}
		m.Entries = append(m.Entries, e)
	}
	return m, nil
}

func (e *Entry) validate(scenarios []Scenario, sdks []string) error {
	if e.SDK == "" || e.Scenario == "" || e.Reason == "" {
		return fmt.Errorf("an entry needs sdk, scenario and reason")
	}
	known := false
	for _, s := range sdks {
		known = known || s == e.SDK
	}
	if !known {
		return fmt.Errorf("unknown sdk %q (known: %s)", e.SDK, strings.Join(sdks, ", "))
	}
	if e.Versions != "" {
		c, err := semver.NewConstraint(e.Versions)
		if err != nil {
			return fmt.Errorf("versions %q: %w", e.Versions, err)
		}
		// SDK versions are often pre-releases (1.0.15-preview.4, 0.3.0-java.2): a range covers them.
		c.IncludePrerelease = true
		e.con = c
	}
	for _, s := range scenarios {
		if s.Name == e.Scenario && (e.Feature == "" || e.Feature == s.Feature) {
			return nil
		}
	}
	return fmt.Errorf("the entry matches no scenario: no scenario named %q%s exists", e.Scenario, inFeature(e.Feature))
}

func inFeature(f string) string {
	if f == "" {
		return ""
	}
	return " in " + f
}

// Match returns the entry that marks this scenario on this SDK version as expected to fail.
// A version that is not semver (a local source) matches only entries without a version range.
func (m *Manifest) Match(sdk, version, feature, scenario string) *Entry {
	for _, e := range m.Entries {
		if e.SDK != sdk || e.Scenario != scenario || (e.Feature != "" && e.Feature != feature) {
			continue
		}
		if e.con != nil {
			v, err := semver.NewVersion(strings.TrimPrefix(version, "v"))
			if err != nil || !e.con.Check(v) {
				continue
			}
		}
		return e
	}
	return nil
}
