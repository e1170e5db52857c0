// Package expect reads the known-divergence manifest (fixtures/expected-failures.yaml): which
// scenario is expected to fail on which SDK and versions, why, and where it is tracked.
//
// Strict, after DataDog system-tests: a marked scenario that fails is xfail; one that passes is
// xpass and fails the run, telling to remove the entry; an entry that names no scenario is an
// error at load time. Each entry also names what its failure must be (the request and JSON path
// the failing assertion checked, and/or a pattern of the failure message): a failure that does
// not match it is a different regression, not the known divergence (Entry.Explains).
package expect

import (
	"fmt"
	"github.com/copilot-sdk-conformance/conformance/internal/registry"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/Masterminds/semver/v3"
	"gopkg.in/yaml.v3"
)

// Entry is one known divergence.
type Entry struct {
	SDK      string `yaml:"sdk"`
	Versions string `yaml:"versions"` // semver constraint such as "<= 1.0.14"; empty means every version
	Feature  string `yaml:"feature"`  // feature file relative to features/; empty means any
	Scenario string `yaml:"scenario"` // exact scenario name (outline placeholders filled in); empty only with Runtime
	// Runtime limits the entry to runs on one runtime ("stand-in" or "real"; empty: any). An
	// entry with a runtime and no scenario marks every scenario of the SDK version on that
	// runtime: an SDK version that cannot talk to that runtime at all.
	Runtime string `yaml:"runtime"`
	Reason  string `yaml:"reason"`
	Link    string `yaml:"link"`

	// What the failure must be; at least Request or Message is required.
	Request string `yaml:"request"` // method of the request whose payload the failing assertion checked
	Path    string `yaml:"path"`    // JSON path in that request's params (needs request), e.g. tools[0].isTerminal
	Message string `yaml:"message"` // regexp the failure message must match (unanchored)

	File string `yaml:"-"`
	Line int    `yaml:"-"`
	con  *semver.Constraints
	msg  *regexp.Regexp
}

// keys are the fields an entry may have; anything else (a typo such as "mesage") is an error.
var keys = map[string]bool{"sdk": true, "versions": true, "feature": true, "scenario": true, "runtime": true, "reason": true,
	"link": true, "request": true, "path": true, "message": true}

// Runtimes an entry may name.
var Runtimes = []string{"stand-in", "real"}

var (
	// bareMessage is a failure text that says nothing about the value observed (an optional
	// "the SDK raised" and error type, then only a generic outcome): a hang, a crash or an
	// unrelated error would match it too.
	bareMessage = regexp.MustCompile(`(?i)^(?:the SDK raised\s+)?(?:[A-Za-z_][\w]*(?:::[\w]+)*:\s*)?(?:timed\s*out|timeout|deadline exceeded|EOF|failed|failure|error|crashed|panic|exit status [0-9]+)\.?$`)
	methodRE    = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)*$`)
	pathRE      = regexp.MustCompile(`^\S+$`)
)

// Failure is one failed step of a scenario: its message and the "method:path" of each payload
// value that step checked, in order (steps record a check before asserting it, so the last one is
// where it failed when the step checked a payload). A scenario goes on after a failed check, so
// it may have several.
type Failure struct {
	Message string
	Checked []report.Check
	// Items are the divergences of a step that lists what it found one by one (a sweep, the
	// surface), each as "step "…": group: what was observed"; Judge matches each alone.
	Items []string
}

// Expectation says what the entry's failure must be, for reports.
func (e *Entry) Expectation() string {
	var parts []string
	if e.Request != "" {
		at := e.Request
		if e.Path != "" {
			at += " " + e.Path
		}
		parts = append(parts, "a failed check of "+at)
	}
	if e.Message != "" {
		parts = append(parts, fmt.Sprintf("a message matching /%s/", e.Message))
	}
	return strings.Join(parts, " with ")
}

// Explains reports whether f is the entry's known divergence: every condition the entry names
// holds. When it is not, why shows both what was expected and what was observed.
func (e *Entry) Explains(f Failure) (ok bool, why string) {
	var last report.Check
	if len(f.Checked) > 0 {
		last = f.Checked[len(f.Checked)-1]
	}
	ok = true
	if e.Request != "" {
		ok = last.Method == e.Request && (e.Path == "" || last.Path == e.Path)
	}
	if e.msg != nil && !e.msg.MatchString(f.Message) {
		ok = false
	}
	if ok {
		return true, ""
	}
	observed := "no payload check"
	if last.Method != "" {
		observed = "last check " + last.Method + " " + last.Path
	}
	first, _, _ := strings.Cut(f.Message, "\n")
	return false, fmt.Sprintf("expected %s (%s); observed %s with the message %q", e.Expectation(), e.Where(), observed, first)
}

// Where is "file:line" of the entry.
func (e *Entry) Where() string { return fmt.Sprintf("%s:%d", e.File, e.Line) }

// Manifest is the list of known divergences.
type Manifest struct {
	Entries []*Entry
	// Violations are the known schema violations (ViolationsFile beside the manifest).
	Violations []*Violation
}

// KnownViolation is the entry that names violation v of this SDK version, nil when none does.
func (m *Manifest) KnownViolation(sdk, version string, v transcript.Violation) *Violation {
	for _, e := range m.Violations {
		if e.Explains(sdk, version, v) {
			return e
		}
	}
	return nil
}

// Scenario names a scenario for validation.
type Scenario struct {
	Feature, Name string
	ID            string // the scenario's stable id (report.Result.ID)
}

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
		if n.Kind != yaml.MappingNode {
			return nil, fmt.Errorf("%s:%d: an entry must be a mapping of sdk, scenario, reason, …", name, n.Line)
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if k := n.Content[i]; !keys[k.Value] {
				return nil, fmt.Errorf("%s:%d: unknown key %q (known: sdk, versions, feature, scenario, runtime, reason, link, request, path, message)", name, k.Line, k.Value)
			}
		}
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
	if e.Runtime != "" && !slices.Contains(Runtimes, e.Runtime) {
		return fmt.Errorf("runtime %q is not one of %s", e.Runtime, strings.Join(Runtimes, ", "))
	}
	if e.SDK == "" || (e.Scenario == "" && e.Runtime == "") || e.Reason == "" {
		return fmt.Errorf("an entry needs sdk, scenario (or a runtime, for every scenario on it) and reason")
	}
	if e.Link == "" {
		return fmt.Errorf("an entry needs a link: where the divergence is tracked or its evidence is written down")
	}
	if e.Message == "" {
		return fmt.Errorf("an entry must name the failure it expects with message (the value observed, e.g. 'want \\[\\], got null', or the SDK's own words): request and path alone also match any other wrong value there")
	}
	if bareMessage.MatchString(strings.TrimSpace(e.Message)) {
		return fmt.Errorf("message %q names no observed value: any hang or crash would match it; quote what timed out or what was observed", e.Message)
	}
	if e.Request != "" && !methodRE.MatchString(e.Request) {
		return fmt.Errorf("request %q is not a method name such as session.create", e.Request)
	}
	if e.Path != "" && (e.Request == "" || !pathRE.MatchString(e.Path)) {
		return fmt.Errorf("path %q needs a request and no spaces, e.g. request: session.create, path: tools[0].isTerminal", e.Path)
	}
	if e.Message != "" {
		re, err := regexp.Compile(e.Message)
		if err != nil {
			return fmt.Errorf("message %q is not a regular expression: %w", e.Message, err)
		}
		e.msg = re
	}
	known := false
	for _, s := range sdks {
		known = known || s == e.SDK
	}
	if !known {
		return fmt.Errorf("unknown sdk %q (known: %s)", e.SDK, strings.Join(sdks, ", "))
	}
	var err error
	if e.con, err = versionRange(e.Versions); err != nil {
		return err
	}
	for _, s := range scenarios {
		if (e.Scenario == "" || s.Name == e.Scenario) && (e.Feature == "" || e.Feature == s.Feature) {
			return nil
		}
	}
	return fmt.Errorf("the entry matches no scenario: no scenario named %q%s exists", e.Scenario, inFeature(e.Feature))
}

// versionRange is the semver constraint of an entry's versions (nil: every version).
func versionRange(versions string) (*semver.Constraints, error) {
	if versions == "" {
		return nil, nil
	}
	c, err := semver.NewConstraint(versions)
	if err != nil {
		return nil, fmt.Errorf("versions %q: %w", versions, err)
	}
	// SDK versions are often pre-releases (1.0.15-preview.4, 0.3.0-java.2): a range covers them.
	c.IncludePrerelease = true
	return c, nil
}

// inRange says whether version is in con (nil: every version).
func inRange(con *semver.Constraints, version string) bool {
	if con == nil {
		return true
	}
	// registry.OrderKey reads a PEP 440 pre-release (1.0.0b1, 1.0.27rc1) as the pre-release it is,
	// which semver alone refuses: such a version would match no range.
	v, err := registry.OrderKey(strings.TrimPrefix(version, "v"))
	return err == nil && con.Check(v)
}

func inFeature(f string) string {
	if f == "" {
		return ""
	}
	return " in " + f
}

// Match returns the first entry that marks this scenario on this SDK version and runtime as
// expected to fail.
func (m *Manifest) Match(sdk, version, runtime, feature, scenario string) *Entry {
	if all := m.MatchAll(sdk, version, runtime, feature, scenario); len(all) > 0 {
		return all[0]
	}
	return nil
}

// MatchAll returns every entry that marks this scenario on this SDK version and runtime
// ("stand-in" or "real") as expected to fail (a scenario may fail several checks, each a known
// divergence of its own). A version that is not semver (a local source) matches only entries
// without a version range.
func (m *Manifest) MatchAll(sdk, version, runtime, feature, scenario string) []*Entry {
	var out []*Entry
	for _, e := range m.Entries {
		if e.SDK != sdk || (e.Scenario != "" && e.Scenario != scenario) || (e.Feature != "" && e.Feature != feature) ||
			(e.Runtime != "" && e.Runtime != runtime) {
			continue
		}
		if !inRange(e.con, version) {
			continue
		}
		out = append(out, e)
	}
	// An SDK version that cannot talk to the runtime at all never reaches a scenario's own
	// divergence: its whole-runtime entries stand alone.
	var whole []*Entry
	for _, e := range out {
		if e.Scenario == "" {
			whole = append(whole, e)
		}
	}
	if len(whole) > 0 {
		return whole
	}
	return out
}

// Judge matches a failed scenario's failures against its entries strictly: every failure must be
// explained by an entry and every entry must explain a failure. ok is false with the reasons
// (each unexplained failure with what was expected, each entry whose failure was not seen).
//
// A failure that lists several divergences (Failure.Items) is judged item by item: each item
// must be explained by an entry, and an entry is seen when it explains one item. So an entry
// names what diverges (a field, a method, an event type), not how many divergences the step
// counted: a version that shows the same divergence in more or fewer places is still the known
// one, and an item no entry names is a new failure.
func Judge(entries []*Entry, failures []Failure) (ok bool, why []string) {
	used := make([]bool, len(entries))
	unexplained := 0
	for _, f := range failures {
		units := []Failure{f}
		if len(f.Items) > 0 {
			units = units[:0]
			for _, it := range f.Items {
				units = append(units, Failure{Message: it, Checked: f.Checked})
			}
		}
		for _, u := range units {
			explained := false
			var whys []string
			for i, e := range entries {
				if yes, w := e.Explains(u); yes {
					explained, used[i] = true, true
					break
				} else {
					whys = append(whys, w)
				}
			}
			if explained {
				continue
			}
			// A new regression of a sweep may be hundreds of items: the first few say what it is.
			if unexplained++; unexplained <= maxUnexplained {
				why = append(why, strings.Join(whys, "; "))
			}
		}
	}
	if unexplained > maxUnexplained {
		why = append(why, fmt.Sprintf("and %d more failures no entry explains", unexplained-maxUnexplained))
	}
	for i, e := range entries {
		if !used[i] {
			why = append(why, fmt.Sprintf("the known divergence at %s (%s) was not observed", e.Where(), e.Expectation()))
		}
	}
	return len(why) == 0, why
}

// maxUnexplained is how many unexplained failures Judge spells out.
const maxUnexplained = 10
