// Package history builds the conformance history of one SDK: every published version in a range
// ran the same scenarios (one report folder each), and each version is compared with the one
// before it (internal/rundiff) so that the changes are found, not looked for. Each change is
// classified (a regression, a fix, a capability gained or lost, a method newly generated, a
// field newly declared or a method removed, as the versions' own records explain them, and a
// silent wire change: a payload that changed while the status did not, for no declared
// reason) and, where a reference run of the other SDKs is given,
// said to make this SDK agree with them or differ from them. Running the versions is the
// caller's job; this package only compares, classifies and renders (history.json, history.md,
// history.html).
package history

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/canon"
	"github.com/copilot-sdk-conformance/conformance/internal/compare"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/rundiff"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
)

// Kinds of change, in the order a reviewer reads them.
const (
	Regression       = "regression"         // passed, now fails
	SilentWire       = "silent-wire-change" // the same status, a different payload
	CapabilityLost   = "capability-lost"    // ran, now unsupported (or the driver's hello lost it)
	Fix              = "fix"                // failed, now passes
	CapabilityGained = "capability-gained"  // unsupported, now runs (or the driver's hello gained it)
	// A wire change the SDK's own declarations or the schema explain (declared.go): the SDK did
	// not change what an existing method or field puts on the wire, it gained or lost one.
	MethodGenerated = "method-generated" // now sends a method the previous version's generated layer (or the schema) lacked, or that it never sent
	FieldDeclared   = "field-declared"   // sends a field its surface newly declares (or, in the surface probe, one request more for it)
	MethodRemoved   = "method-removed"   // no longer sends a method the schema, or its generated layer, no longer has
	StatusChange    = "status-change"    // any other change of status (skipped, removed, new)
	// Flaky is a regression or fix whose failing side passed when the scenario was run again:
	// the failure was the machine's (a timeout under load), not the version's.
	Flaky = "flaky"
)

// Kinds lists the kinds in reading order.
var Kinds = []string{Regression, SilentWire, CapabilityLost, Fix, CapabilityGained, MethodGenerated, FieldDeclared, MethodRemoved, StatusChange, Flaky}

// Explained are the kinds of a wire change the SDK's declarations or the schema explain.
var Explained = []string{MethodGenerated, FieldDeclared, MethodRemoved}

// History is history.json.
type History struct {
	Schema  int    `json:"schemaVersion"`
	SDK     string `json:"sdk"`
	Command string `json:"command"`
	// Listing says how the versions were found (the registry and how it was asked).
	Listing  string    `json:"listing,omitempty"`
	Versions []Version `json:"versions"`
	// Reference names the other SDKs' run the cross-SDK verdicts come from ("" when none).
	Reference string `json:"reference,omitempty"`
	// Counts are the changes per kind over the whole history.
	Counts map[string]int `json:"counts"`
	// WireCounts are the wire changes (Version.Wire, one per method, path and values) per kind
	// over the whole history: silent-wire-change, the explained kinds, or the kind of the status
	// change they came with.
	WireCounts map[string]int `json:"wireCounts,omitempty"`
}

// Version is one published version: how it ran and what changed since the previous one that ran.
type Version struct {
	Version string `json:"version"`
	// Status is available, or unavailable with Reason (the registry's or the toolchain's answer).
	Status string `json:"status"`
	Reason string `json:"reason,omitempty"`
	Dir    string `json:"dir"` // its report folder, relative to the history folder
	// Totals are its results per status.
	Totals map[string]int `json:"totals,omitempty"`
	// Previous is the version it is compared with: the closest older one that was available.
	Previous string   `json:"previous,omitempty"`
	Changes  []Change `json:"changes,omitempty"`
	// Wire groups the payload changes of every scenario by request method, path and values:
	// one line per change however many scenarios show it.
	Wire []Wire `json:"wire,omitempty"`
}

// Change is one scenario (or, with no scenario, the SDK's advertised capabilities) that changed.
type Change struct {
	Kind       string    `json:"kind"`
	Feature    string    `json:"feature,omitempty"`
	Scenario   string    `json:"scenario,omitempty"`
	From       string    `json:"from,omitempty"` // statuses as reported (xfail and xpass kept)
	To         string    `json:"to,omitempty"`
	Capability string    `json:"capability,omitempty"`
	Message    string    `json:"message,omitempty"`
	Payload    []Payload `json:"payload,omitempty"`
	// Before and After are the scenario's transcripts on the previous and this version,
	// relative to the history folder.
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
	// Rerun runs the scenario on both versions side by side.
	Rerun string `json:"rerun,omitempty"`
	// Others are the other SDKs' statuses of the scenario in the reference run.
	Others map[string]string `json:"others,omitempty"`
	// Recheck says what running the failing side again showed (Rechecked).
	Recheck string `json:"recheck,omitempty"`
	// NowFails and NoLongerFails are the failure lines a regression now fails with and a fix no
	// longer fails with; for a scenario that failed on both versions, but differently, the lines
	// only the new version has (a check that passed now fails: a regression) and those only the
	// previous had (a fix). Request numbers are left out of the comparison, and so are the
	// manifest's reasons (a range ending is not the SDK's change).
	NowFails      []string `json:"nowFails,omitempty"`
	NoLongerFails []string `json:"noLongerFails,omitempty"`
}

// FailingSide is the version whose failure a regression or fix rests on: the new version of a
// regression, the previous one of a fix ("" for other kinds).
func (c Change) FailingSide(v Version) string {
	switch c.Kind {
	case Regression:
		return v.Version
	case Fix:
		return v.Previous
	}
	return ""
}

// Reproduces says whether r, a rerun of the change's failing side, fails as the change says
// that side failed (with the same failure lines, for a scenario that failed on both versions).
func (c Change) Reproduces(r report.Result) bool {
	if did(r.Status) != report.Failed {
		return false
	}
	if did(c.From) != did(c.To) {
		return true // failed or not is the change: a failure reproduces it
	}
	lines := c.NowFails // a regression's failing side is the new version
	if c.Kind == Fix {
		lines = c.NoLongerFails
	}
	return containsAll(failureLines(r.Message), lines)
}

// Recheck names change I of version V.
type Recheck struct{ V, I int }

// massChange is how many scenarios changing the same way between two versions make it the
// version's doing rather than a flake (a flake is one scenario's timeout).
const massChange = 3

// ToRecheck lists, up to max, the regressions and then the fixes worth running again: those of
// a version in which at most massChange scenarios changed that way.
func (h *History) ToRecheck(max int) []Recheck {
	var out []Recheck
	for _, kind := range []string{Regression, Fix} {
		for vi, v := range h.Versions {
			var these []Recheck
			for ci, c := range v.Changes {
				if c.Kind == kind && c.Scenario != "" {
					these = append(these, Recheck{vi, ci})
				}
			}
			if len(these) <= massChange {
				out = append(out, these...)
			}
		}
	}
	if len(out) > max {
		out = out[:max]
	}
	return out
}

// Rechecked records that the failing side of change i of version v was run again with result r:
// a failure again (with the same failure lines, for a scenario that failed on both versions)
// confirms the change; anything else makes it flaky.
func (h *History) Rechecked(v, i int, version string, r report.Result) {
	c := &h.Versions[v].Changes[i]
	if c.Reproduces(r) {
		c.Recheck = fmt.Sprintf("reproduced: %s failed again when rerun", version)
		return
	}
	status := r.Status
	if did(r.Status) == report.Failed {
		status += " without those failures"
	}
	c.Recheck = fmt.Sprintf("not reproduced: %s was %s when rerun, so the failure was not the version's", version, status)
	h.Counts[c.Kind]--
	if h.Counts[c.Kind] == 0 {
		delete(h.Counts, c.Kind)
	}
	c.Kind = Flaky
	h.Counts[Flaky]++
}

// Payload is one changed JSON path of one request, with the other SDKs' values there.
type Payload struct {
	Request string `json:"request"` // method#occurrence
	Path    string `json:"path"`    // "" when only one side sent the request
	Before  string `json:"before"`
	After   string `json:"after"`
	// Others are the other SDKs' values at the same request and path (reference run).
	Others map[string]string `json:"others,omitempty"`
	// Explained is the explained kind of the change (method-generated, field-declared,
	// method-removed) when the SDK's declarations or the schema account for it, Because the
	// record that does.
	Explained string `json:"explained,omitempty"`
	Because   string `json:"because,omitempty"`
}

// Wire is one payload change aggregated over the scenarios that show it.
type Wire struct {
	Headline string `json:"headline"` // "session.create gained tools[0].isTerminal (false)"
	Method   string `json:"method"`
	Path     string `json:"path"`
	Before   string `json:"before"`
	After    string `json:"after"`
	// Silent is set when in some scenario the status did not change and the SDK's declarations
	// do not explain it: nothing but the payload tells the reviewer.
	Silent bool `json:"silent"`
	// Kind is silent-wire-change when Silent, the explained kind when every scenario's change is
	// explained so (Because says by what), else the kind of the status change it came with.
	Kind    string `json:"kind"`
	Because string `json:"because,omitempty"`
	// Agrees lists the other SDKs this version now agrees with at this path (they had the new
	// value where this SDK had the old); Differs those it now differs from.
	Agrees    []string `json:"agrees,omitempty"`
	Differs   []string `json:"differs,omitempty"`
	Cross     string   `json:"cross,omitempty"` // the two lists as a sentence
	Scenarios []Ref    `json:"scenarios"`
}

// Ref is one scenario showing a change.
type Ref struct {
	Feature  string `json:"feature"`
	Scenario string `json:"scenario"`
	Request  string `json:"request"`
	Before   string `json:"before,omitempty"`
	After    string `json:"after,omitempty"`
	Rerun    string `json:"rerun,omitempty"`
}

// Run is one version's run: its results and the folder they were written to.
type Run struct {
	Version string
	Dir     string          // absolute
	Results *report.Results // nil when the run wrote none
	Err     string          // why there are no results
}

// Read reads a history.json.
func Read(path string) (*History, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var h History
	if err := json.Unmarshal(b, &h); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &h, nil
}

// Runs are the version runs an earlier history wrote into root (its history.json), read back
// for Build: each version's results where its folder has them, else its recorded reason.
func (h *History) Runs(root string) []Run {
	runs := make([]Run, len(h.Versions))
	for i, v := range h.Versions {
		dir := filepath.Join(root, filepath.FromSlash(v.Dir))
		runs[i] = Run{Version: v.Version, Dir: dir, Err: v.Reason}
		if res, err := report.ReadResults(filepath.Join(dir, "results.json")); err == nil {
			runs[i].Results = res
		} else if v.Reason == "" {
			runs[i].Err = err.Error()
		}
	}
	return runs
}

// Carry keeps what the rechecks of an earlier history of the same runs found: a change of the
// same version, scenario and kind (or that was made flaky) gets the same verdict.
func (h *History) Carry(old *History) {
	type key struct{ version, feature, scenario string }
	verdicts := map[key]Change{}
	for _, v := range old.Versions {
		for _, c := range v.Changes {
			if c.Recheck != "" {
				verdicts[key{v.Version, c.Feature, c.Scenario}] = c
			}
		}
	}
	for vi, v := range h.Versions {
		for ci, c := range v.Changes {
			was, ok := verdicts[key{v.Version, c.Feature, c.Scenario}]
			if !ok || (c.Kind != Regression && c.Kind != Fix) {
				continue
			}
			if was.Kind == Flaky {
				h.Rechecked(vi, ci, c.FailingSide(v), report.Result{Status: report.Passed})
			}
			h.Versions[vi].Changes[ci].Recheck = was.Recheck
		}
	}
}

// Reference is a run of the other SDKs on the same scenarios.
type Reference struct {
	Name    string // how the history names it ("pinned versions of go, python")
	Dir     string
	Results *report.Results
	loaded  map[string]map[string]any // sdk + "\x00" + feature + "\x00" + scenario -> requests
}

// Options say how to write commands and paths.
type Options struct {
	SDK     string
	Command string
	Listing string
	Root    string // the history folder: Dir, Before and After are relative to it
	// Rerun formats the command that runs a scenario on two versions of the SDK.
	Rerun func(sdk, prev, cur, feature, scenario string) string
}

// Build compares each available version with the previous available one.
func Build(runs []Run, ref *Reference, o Options) *History {
	h := &History{Schema: 1, SDK: o.SDK, Command: o.Command, Listing: o.Listing, Counts: map[string]int{}, WireCounts: map[string]int{}}
	if ref != nil {
		h.Reference = ref.Name
	}
	var prev *Run
	// Each version's transcripts are read once, compared with the version before and after.
	rq := &rundiff.Requests{}
	for i := range runs {
		r := &runs[i]
		v := Version{Version: r.Version, Dir: rel(o.Root, r.Dir)}
		sdk, ok := sdkEntry(r.Results, o.SDK)
		switch {
		case r.Results == nil:
			v.Status, v.Reason = report.Unavailable, r.Err
		case !ok || sdk.Status != report.Available:
			v.Status, v.Reason = report.Unavailable, sdk.Reason
		default:
			v.Status, v.Totals = report.Available, r.Results.Totals
		}
		if v.Status == report.Available {
			if prev != nil {
				v.Previous = prev.Version
				v.Changes = changes(rq, prev, r, ref, o)
				rq.Forget(prev.Dir)
				v.Wire = wire(v.Changes)
				for _, c := range v.Changes {
					h.Counts[c.Kind]++
				}
				for _, w := range v.Wire {
					h.WireCounts[w.Kind]++
				}
			}
			prev = r
		}
		h.Versions = append(h.Versions, v)
	}
	return h
}

func sdkEntry(res *report.Results, name string) (report.SDK, bool) {
	if res == nil {
		return report.SDK{}, false
	}
	for _, s := range res.SDKs {
		if s.Name == name {
			return s, true
		}
	}
	return report.SDK{}, false
}

// did is what the SDK did, whatever the manifest expected (as bisect counts it).
func did(status string) string {
	switch status {
	case report.XFail:
		return report.Failed
	case report.XPass:
		return report.Passed
	}
	return status
}

// kind classifies a change of status (statuses as the SDK did).
func kind(from, to string) string {
	ran := func(s string) bool { return s == report.Passed || s == report.Failed }
	switch {
	case from == to:
		return SilentWire
	case from == report.Passed && to == report.Failed:
		return Regression
	case from == report.Failed && to == report.Passed:
		return Fix
	case ran(from) && to == report.Unsupported:
		return CapabilityLost
	case from == report.Unsupported && ran(to):
		return CapabilityGained
	}
	return StatusChange
}

func changes(rq *rundiff.Requests, prev, cur *Run, ref *Reference, o Options) []Change {
	d := rundiff.CompareWith(rq, prev.Results, cur.Results, prev.Dir, cur.Dir, nil)
	type key struct{ feature, scenario string }
	index := func(res *report.Results) map[key]report.Result {
		m := map[key]report.Result{}
		for _, r := range res.Results {
			m[key{r.Feature, r.Scenario}] = r
		}
		return m
	}
	before, after := index(prev.Results), index(cur.Results)
	was, is := declarations(prev.Results, o.SDK, prev.Version), declarations(cur.Results, o.SDK, cur.Version)
	var out []Change
	for _, dc := range d.Changes {
		from, to := did(dc.From), did(dc.To)
		if from == to && len(dc.Payload) == 0 {
			continue // xfail → failed and the like: the manifest changed, not the SDK
		}
		c := Change{Kind: kind(from, to), Feature: dc.Feature, Scenario: dc.Scenario, From: dc.From, To: dc.To,
			Capability: dc.Capability, Message: dc.Message}
		var beforePath string // the transcript diff keyed the payload changes against
		if b, ok := before[key{dc.Feature, dc.Scenario}]; ok && b.Transcript != "" {
			beforePath = filepath.Join(prev.Dir, b.Transcript)
			c.Before = rel(o.Root, beforePath)
		}
		if a, ok := after[key{dc.Feature, dc.Scenario}]; ok && a.Transcript != "" {
			c.After = rel(o.Root, filepath.Join(cur.Dir, a.Transcript))
		}
		if o.Rerun != nil {
			c.Rerun = o.Rerun(o.SDK, prev.Version, cur.Version, dc.Feature, dc.Scenario)
		}
		c.Others = ref.statuses(o.SDK, dc.Feature, dc.Scenario)
		// The failure lines name what failed (a field, a request): what a regression now
		// fails with, what a fix no longer fails with.
		switch c.Kind {
		case Regression:
			c.NowFails = failureLines(after[key{dc.Feature, dc.Scenario}].Message)
		case Fix:
			if c.NoLongerFails = failureLines(before[key{dc.Feature, dc.Scenario}].Message); len(c.NoLongerFails) > 0 {
				c.Message = "no longer fails: " + specific(c.NoLongerFails)
			}
		}
		for _, p := range dc.Payload {
			c.Payload = append(c.Payload, Payload{Request: p.Request, Path: p.Path, Before: p.Base, After: p.Candidate,
				Others: ref.values(o.SDK, dc.Feature, dc.Scenario, p.Request, p.Path, beforePath)})
		}
		explain(c.Payload, was, is, probed(before[key{dc.Feature, dc.Scenario}], after[key{dc.Feature, dc.Scenario}]))
		if k := explainedKind(c.Payload); c.Kind == SilentWire && k != "" {
			c.Kind = k // every payload change of the scenario is a declaration's: not silent
		}
		out = append(out, c)
	}
	out = failedBoth(out, before, after, prev, cur, ref, o)
	out = append(out, capabilities(prev.Results, cur.Results, o.SDK)...)
	sort.SliceStable(out, func(i, j int) bool { return rank(out[i].Kind) < rank(out[j].Kind) })
	return out
}

// failedBoth finds the scenarios that failed on both versions, but differently (the failure
// lines differ): a check that passed and now fails is a regression, one that no longer fails
// a fix, though the status did not change. A scenario already among the changes (its payload
// changed too) is reclassified rather than listed twice.
func failedBoth[K comparable](out []Change, before, after map[K]report.Result, prev, cur *Run, ref *Reference, o Options) []Change {
	var keys []K
	for k, a := range after {
		if b, ok := before[k]; ok && did(a.Status) == report.Failed && did(b.Status) == report.Failed {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		x, y := after[keys[i]], after[keys[j]]
		return x.Feature+"\x00"+x.Scenario < y.Feature+"\x00"+y.Scenario
	})
	for _, k := range keys {
		b, a := before[k], after[k]
		was, is := failureLines(b.Message), failureLines(a.Message)
		now, gone := minus(is, was), minus(was, is)
		if len(now) == 0 && len(gone) == 0 {
			continue
		}
		kind := Regression
		if len(now) == 0 {
			kind = Fix
		}
		var parts []string
		if len(now) > 0 {
			parts = append(parts, "now also fails: "+specific(now))
		}
		if len(gone) > 0 {
			parts = append(parts, "no longer fails: "+specific(gone))
		}
		msg := strings.Join(parts, "; ")
		i := slices.IndexFunc(out, func(c Change) bool { return c.Feature == a.Feature && c.Scenario == a.Scenario })
		if i < 0 {
			c := Change{Feature: a.Feature, Scenario: a.Scenario, From: b.Status, To: a.Status}
			if b.Transcript != "" {
				c.Before = rel(o.Root, filepath.Join(prev.Dir, b.Transcript))
			}
			if a.Transcript != "" {
				c.After = rel(o.Root, filepath.Join(cur.Dir, a.Transcript))
			}
			if o.Rerun != nil {
				c.Rerun = o.Rerun(o.SDK, prev.Version, cur.Version, a.Feature, a.Scenario)
			}
			c.Others = ref.statuses(o.SDK, a.Feature, a.Scenario)
			out = append(out, c)
			i = len(out) - 1
		}
		out[i].Kind, out[i].Message, out[i].NowFails, out[i].NoLongerFails = kind, msg, now, gone
	}
	return out
}

// requestNumber is a request's place in a transcript ("request #363"), which moves whenever an
// earlier request is added: left out when failure lines are compared.
var requestNumber = regexp.MustCompile(`#[0-9]+`)

// number is any number in a heading line.
var number = regexp.MustCompile(`[0-9]+`)

// heading says whether a failure line heads others: a step's (`step "…": 9 generated calls did
// not …`, which only counts) or a group's (`session.factory:`).
func heading(l string) bool {
	return stepHeading.MatchString(l) || strings.HasSuffix(l, ":")
}

// stepHeading starts a step's failure: `step "…"`, `failed step "…"`, or numbered when a
// scenario has several (`1. step "…"`).
var stepHeading = regexp.MustCompile(`^(failed |[0-9]+\. )?step "`)

// stepPlace is a step's number among several failed ones (`2. step "…"`).
var stepPlace = regexp.MustCompile(`^[0-9]+\. (step ")`)

// failureLines are a result message's lines as failedBoth compares them: trimmed, request
// numbers left out (and every number of a heading), without the manifest's reasons.
func failureLines(msg string) []string {
	var out []string
	seen := map[string]bool{}
	for _, l := range strings.Split(msg, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "known divergence (") || strings.HasPrefix(l, "not the known divergence") ||
			strings.HasPrefix(l, "the known divergence at ") {
			continue
		}
		// A step's lines are the same whether it failed alone or beside others: the count of
		// failed steps and a step's place among them are the harness's layout, not a check
		// (v1.0.11 → v1.0.14 fixing one of two failed steps read as a regression).
		if stepsFailed.MatchString(l) {
			continue
		}
		l = stepPlace.ReplaceAllString(l, "$1")
		l = requestNumber.ReplaceAllString(l, "#N")
		if heading(l) { // "step "…": 7 of 130 field values did not …": the counts move with the SDK's surface
			l = number.ReplaceAllString(l, "N")
		}
		if !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	return out
}

func minus(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

func containsAll(have, want []string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}

// specific is the line that names what changed, with how many more there are: the first that
// is not a heading (a step's, `step "…": 9 generated calls did not …`, which only counts; a
// group's, `session.factory:`).
func specific(lines []string) string {
	pick := lines[0]
	for _, l := range lines {
		if !heading(l) {
			pick = l
			break
		}
	}
	if len(lines) > 1 {
		return fmt.Sprintf("%s (and %d more line%s)", pick, len(lines)-1, map[bool]string{true: "", false: "s"}[len(lines) == 2])
	}
	return pick
}

func rank(k string) int {
	for i, x := range Kinds {
		if x == k {
			return i
		}
	}
	return len(Kinds)
}

// capabilities compares the capabilities each version's driver advertised in its hello.
func capabilities(prev, cur *report.Results, name string) []Change {
	a, _ := sdkEntry(prev, name)
	b, _ := sdkEntry(cur, name)
	keys := map[string]bool{}
	for k := range a.Capabilities {
		keys[k] = true
	}
	for k := range b.Capabilities {
		keys[k] = true
	}
	var out []Change
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		switch was, is := a.Capabilities[k], b.Capabilities[k]; {
		case !was && is:
			out = append(out, Change{Kind: CapabilityGained, Capability: k, Message: "the driver now advertises " + k})
		case was && !is:
			out = append(out, Change{Kind: CapabilityLost, Capability: k, Message: "the driver no longer advertises " + k})
		}
	}
	return out
}

// wire aggregates the payload changes of every scenario by method, path and values. A wire
// change is of an explained kind when every scenario's payload change is explained so; else it
// is silent when some scenario's status did not change.
func wire(changes []Change) []Wire {
	type key struct{ method, path, before, after string }
	idx := map[key]int{}
	var out []Wire
	var explained []string // per wire: the explained kind of all its payloads so far, or ""
	for _, c := range changes {
		for _, p := range c.Payload {
			method, _, _ := strings.Cut(p.Request, "#")
			k := key{method, p.Path, p.Before, p.After}
			i, ok := idx[k]
			if !ok {
				i = len(out)
				idx[k] = i
				out = append(out, Wire{Headline: Headline(method, p.Path, p.Before, p.After), Method: method, Path: p.Path,
					Before: p.Before, After: p.After, Because: p.Because})
				explained = append(explained, p.Explained)
			}
			if explained[i] != p.Explained {
				explained[i] = ""
			}
			w := &out[i]
			w.Silent = w.Silent || c.Kind == SilentWire || slices.Contains(Explained, c.Kind)
			if w.Kind == "" {
				w.Kind = c.Kind
			}
			w.Scenarios = append(w.Scenarios, Ref{Feature: c.Feature, Scenario: c.Scenario, Request: p.Request,
				Before: c.Before, After: c.After, Rerun: c.Rerun})
			agrees, differs := side(p)
			if len(w.Scenarios) == 1 {
				w.Agrees, w.Differs = agrees, differs
			} else { // an SDK counts only when it does so in every scenario
				w.Agrees, w.Differs = intersect(w.Agrees, agrees), intersect(w.Differs, differs)
			}
		}
	}
	for i := range out {
		w := &out[i]
		switch {
		case explained[i] != "":
			w.Kind, w.Silent = explained[i], false
		case w.Silent:
			w.Kind, w.Because = SilentWire, ""
		default: // only with status changes: their kind (an explained change is a same-status one)
			w.Because = ""
		}
	}
	for i := range out {
		out[i].Cross = cross(out[i].Agrees, out[i].Differs)
	}
	// Silent changes first (nothing else tells the reviewer), and among them a field gained,
	// lost or changed before a request now (no longer) sent; then those that came with a status
	// change; the explained ones last, grouped per kind (the generated layer sends each new
	// method of the schema, dozens per version).
	order := func(w Wire) int {
		n := 0
		if !w.Silent {
			n += 2
		}
		if slices.Contains(Explained, w.Kind) {
			n += 2 + 2*slices.Index(Explained, w.Kind) // grouped per kind, after the rest
		}
		if w.Path == "" {
			n++
		}
		return n
	}
	sort.SliceStable(out, func(i, j int) bool { return order(out[i]) < order(out[j]) })
	return out
}

// side says which other SDKs hold the new value (this version now agrees with them) and which
// the old one (it now differs from them).
func side(p Payload) (agrees, differs []string) {
	for _, sdk := range slices.Sorted(maps.Keys(p.Others)) {
		switch p.Others[sdk] {
		case p.After:
			agrees = append(agrees, sdk)
		case p.Before:
			differs = append(differs, sdk)
		}
	}
	return agrees, differs
}

func cross(agrees, differs []string) string {
	var parts []string
	if len(agrees) > 0 {
		parts = append(parts, "now agrees with "+strings.Join(agrees, ", "))
	}
	if len(differs) > 0 {
		parts = append(parts, "now differs from "+strings.Join(differs, ", "))
	}
	return strings.Join(parts, "; ")
}

func intersect(a, b []string) []string {
	var out []string
	for _, x := range a {
		for _, y := range b {
			if x == y {
				out = append(out, x)
				break
			}
		}
	}
	return out
}

// Headline says a payload change in words: a key gained or lost, a value changed, a request
// sent or no longer sent.
func Headline(method, path, before, after string) string {
	switch {
	case path == "" && after == "sent":
		return fmt.Sprintf("now sends %s", method)
	case path == "" && before == "sent":
		return fmt.Sprintf("no longer sends %s", method)
	case before == canon.Absent:
		return fmt.Sprintf("%s gained %s (%s)", method, path, clip(after))
	case after == canon.Absent:
		return fmt.Sprintf("%s lost %s (was %s)", method, path, clip(before))
	}
	return fmt.Sprintf("%s %s: %s → %s", method, path, clip(before), clip(after))
}

func clip(s string) string {
	if r := []rune(s); len(r) > 80 {
		return string(r[:79]) + "…"
	}
	return s
}

// statuses are the other SDKs' statuses of a scenario in the reference run.
func (ref *Reference) statuses(self, feature, scenario string) map[string]string {
	if ref == nil || ref.Results == nil {
		return nil
	}
	out := map[string]string{}
	label := report.Labels(ref.Results)
	for _, r := range ref.Results.Results {
		if r.SDK != self && r.Feature == feature && r.Scenario == scenario {
			out[label(r.SDK, r.Version)] = r.Status
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// values are the other SDKs' normalized values at one request and path of a scenario, shown as
// rundiff shows them (canon.Show; "sent" or "not sent" for the request itself). The request is
// named as diff keys it (compare.Aligned, against the earlier version's requests, the transcript
// before): each other SDK's requests are keyed the same way against that
// transcript, so the value shown is that of the request paired with it, whatever order each SDK
// sent its requests in. Without it (no transcript before) they are numbered per method.
func (ref *Reference) values(self, feature, scenario, request, path, before string) map[string]string {
	if ref == nil || ref.Results == nil {
		return nil
	}
	if ref.loaded == nil {
		ref.loaded = map[string]map[string]any{}
	}
	var base []compare.Request
	if before != "" {
		if entries, err := transcript.Read(before); err == nil {
			base = compare.RequestList(entries)
		}
	}
	out := map[string]string{}
	label := report.Labels(ref.Results)
	for _, r := range ref.Results.Results {
		if r.SDK == self || r.Feature != feature || r.Scenario != scenario || r.Transcript == "" {
			continue
		}
		if s := did(r.Status); s != report.Passed && s != report.Failed {
			continue
		}
		k := r.SDK + "\x00" + r.Version + "\x00" + feature + "\x00" + scenario + "\x00" + before
		reqs, ok := ref.loaded[k]
		if !ok {
			if entries, err := transcript.Read(filepath.Join(ref.Dir, r.Transcript)); err == nil {
				if base != nil {
					_, reqs = compare.Aligned(base, compare.RequestList(entries))
				} else {
					reqs = compare.Requests(entries)
				}
			}
			ref.loaded[k] = reqs
		}
		if reqs == nil {
			continue
		}
		v, sent := reqs[request]
		name := label(r.SDK, r.Version)
		switch {
		case path == "" && sent:
			out[name] = "sent"
		case path == "":
			out[name] = "not sent"
		case !sent:
			out[name] = canon.Absent
		default:
			x, ok := At(v, path)
			out[name] = canon.Show(x, ok)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// At finds the value at a path as canon.Diff writes it ("a.b[0].c"). Keys may themselves hold
// dots or brackets, so at each object the key is matched against the rest of the path rather
// than split from it.
func At(v any, path string) (any, bool) {
	if path == "" {
		return v, true
	}
	switch x := v.(type) {
	case map[string]any:
		var best string
		found := false
		for k := range x {
			if path == k || strings.HasPrefix(path, k+".") || strings.HasPrefix(path, k+"[") {
				if !found || len(k) > len(best) {
					best, found = k, true
				}
			}
		}
		if !found {
			return nil, false
		}
		rest := strings.TrimPrefix(path[len(best):], ".")
		return At(x[best], rest)
	case []any:
		if !strings.HasPrefix(path, "[") {
			return nil, false
		}
		end := strings.IndexByte(path, ']')
		if end < 0 {
			return nil, false
		}
		var i int
		if _, err := fmt.Sscanf(path[1:end], "%d", &i); err != nil || i < 0 || i >= len(x) {
			return nil, false
		}
		return At(x[i], strings.TrimPrefix(path[end+1:], "."))
	}
	return nil, false
}

func rel(root, path string) string {
	if root == "" || path == "" {
		return filepath.ToSlash(path)
	}
	if r, err := filepath.Rel(root, path); err == nil {
		return filepath.ToSlash(r)
	}
	return filepath.ToSlash(path)
}
