// Package rundiff compares two runs (two results.json, with their transcripts when present) and
// lists only what changed: new failures, fixed cases, new and removed scenarios, other status
// changes, and changed payloads on the same scenario. It is the release gate: a candidate
// against the last release.
package rundiff

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/compare"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
)

// Change is one line of the diff.
type Change struct {
	Kind     string // new failure, fixed, new scenario, removed scenario, status changed, payload changed
	SDK      string
	Feature  string
	Scenario string
	Detail   string
}

// Kinds of change.
const (
	NewFailure     = "new failure"
	Fixed          = "fixed"
	NewScenario    = "new scenario"
	Removed        = "removed scenario"
	StatusChanged  = "status changed"
	PayloadChanged = "payload changed"
)

// Report is the diff of two runs.
type Report struct {
	Changes []Change
}

// NewFailures counts the changes that fail the gate.
func (r *Report) NewFailures() int {
	n := 0
	for _, c := range r.Changes {
		if c.Kind == NewFailure {
			n++
		}
	}
	return n
}

type key struct{ sdk, feature, scenario string }

// Runs compares the results.json files at base and candidate.
func Runs(basePath, candPath string) (*Report, error) {
	base, err := report.ReadResults(basePath)
	if err != nil {
		return nil, err
	}
	cand, err := report.ReadResults(candPath)
	if err != nil {
		return nil, err
	}
	return Compare(base, cand, filepath.Dir(basePath), filepath.Dir(candPath)), nil
}

// Compare diffs two runs; baseDir and candDir hold their transcripts (payloads are compared
// only where both transcripts exist).
func Compare(base, cand *report.Results, baseDir, candDir string) *Report {
	index := func(r *report.Results) map[key]report.Result {
		m := map[key]report.Result{}
		for _, x := range r.Results {
			m[key{x.SDK, x.Feature, x.Scenario}] = x
		}
		return m
	}
	b, c := index(base), index(cand)
	var out []Change
	for k, cr := range c {
		br, ok := b[k]
		ch := Change{SDK: k.sdk, Feature: k.feature, Scenario: k.scenario}
		switch {
		case !ok:
			ch.Kind, ch.Detail = NewScenario, cr.Status
			if report.Failing(cr.Status) {
				ch.Kind, ch.Detail = NewFailure, "new scenario "+cr.Status+": "+firstLine(cr.Message)
			}
		case report.Failing(cr.Status) && !report.Failing(br.Status):
			ch.Kind, ch.Detail = NewFailure, fmt.Sprintf("%s -> %s: %s", br.Status, cr.Status, firstLine(cr.Message))
		case !report.Failing(cr.Status) && report.Failing(br.Status):
			ch.Kind, ch.Detail = Fixed, fmt.Sprintf("%s -> %s", br.Status, cr.Status)
		case cr.Status != br.Status:
			ch.Kind, ch.Detail = StatusChanged, fmt.Sprintf("%s -> %s", br.Status, cr.Status)
		}
		if ch.Kind != "" {
			if cr.Rerun != "" && ch.Kind == NewFailure {
				ch.Detail += "\n    rerun: " + cr.Rerun
			}
			out = append(out, ch)
		}
		if ok && br.Transcript != "" && cr.Transcript != "" {
			out = append(out, payloadChanges(k, filepath.Join(baseDir, br.Transcript), filepath.Join(candDir, cr.Transcript))...)
		}
	}
	for k, br := range b {
		if _, ok := c[k]; !ok {
			out = append(out, Change{Kind: Removed, SDK: k.sdk, Feature: k.feature, Scenario: k.scenario, Detail: "was " + br.Status})
		}
	}
	order := map[string]int{NewFailure: 0, Fixed: 1, PayloadChanged: 2, StatusChanged: 3, NewScenario: 4, Removed: 5}
	sort.Slice(out, func(i, j int) bool {
		a, z := out[i], out[j]
		if order[a.Kind] != order[z.Kind] {
			return order[a.Kind] < order[z.Kind]
		}
		return a.SDK+a.Feature+a.Scenario+a.Detail < z.SDK+z.Feature+z.Scenario+z.Detail
	})
	return &Report{Changes: out}
}

// payloadChanges compares the normalized requests of one scenario in two runs.
func payloadChanges(k key, basePath, candPath string) []Change {
	load := func(p string) map[string]any {
		if _, err := os.Stat(p); err != nil {
			return nil
		}
		entries, err := transcript.Read(p)
		if err != nil {
			return nil
		}
		return compare.Requests(entries)
	}
	bp, cp := load(basePath), load(candPath)
	if bp == nil || cp == nil {
		return nil
	}
	var out []Change
	for _, d := range compare.Payloads(map[string]map[string]any{"base": bp, "candidate": cp}, nil) {
		where := d.Request
		if d.Path != "" {
			where += " " + d.Path
		}
		out = append(out, Change{Kind: PayloadChanged, SDK: k.sdk, Feature: k.feature, Scenario: k.scenario,
			Detail: fmt.Sprintf("%s: base=%s, candidate=%s", where, d.Values["base"], d.Values["candidate"])})
	}
	return out
}

// Text renders the diff for a terminal or a CI log.
func (r *Report) Text() string {
	if len(r.Changes) == 0 {
		return "no changes\n"
	}
	var b strings.Builder
	counts := map[string]int{}
	for _, c := range r.Changes {
		counts[c.Kind]++
		fmt.Fprintf(&b, "%-16s %s  %s: %s\n    %s\n", c.Kind, c.SDK, c.Feature, c.Scenario, c.Detail)
	}
	var parts []string
	for _, k := range []string{NewFailure, Fixed, PayloadChanged, StatusChanged, NewScenario, Removed} {
		if counts[k] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[k], k))
		}
	}
	fmt.Fprintf(&b, "\n%s\n", strings.Join(parts, ", "))
	return b.String()
}

func firstLine(s string) string { return strings.SplitN(s, "\n", 2)[0] }
