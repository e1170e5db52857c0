// Package bisect finds the first published version of an SDK at which a scenario's status
// changes. Listing the published versions is each language recipe's job (sdks.Recipe.Versions);
// running one version is the caller's (Run); this package only searches and explains.
package bisect

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/rundiff"
)

// Run runs the selected scenarios on one version and returns the folder holding its
// results.json and transcripts. A version that cannot run returns its results all unavailable
// (still a status), or an error that stops the search.
type Run func(ctx context.Context, version string) (dir string, err error)

// Step is one version the search ran.
type Step struct {
	Version string
	Dir     string
	// Status is each scenario's status ("feature: scenario" -> status), as the SDK behaved:
	// xfail counts as failed and xpass as passed, since the manifest's version ranges are not
	// what is being searched.
	Status map[string]string
}

// Outcome is what the search found.
type Outcome struct {
	// Versions are the published versions from good to bad, both included, in that order.
	Versions []string
	Steps    []Step // in the order they ran
	// LastGood is the last version that behaves like good, FirstChanged the next one (""
	// when good and bad behave alike).
	LastGood, FirstChanged string
	// Diff compares LastGood's run with FirstChanged's: status changes and differing payload
	// paths per scenario.
	Diff *rundiff.Report
}

// Search runs good and bad, then halves the versions between them until it finds two adjacent
// versions that differ (in any selected scenario's status). It assumes one change between good
// and bad; with several, it finds one of them (like git bisect).
func Search(ctx context.Context, versions []string, run Run) (*Outcome, error) {
	if len(versions) < 2 {
		return nil, fmt.Errorf("bisect needs at least two versions, got %v", versions)
	}
	out := &Outcome{Versions: versions}
	ran := map[int]Step{}
	step := func(i int) (Step, error) {
		if s, ok := ran[i]; ok {
			return s, nil
		}
		dir, err := run(ctx, versions[i])
		if err != nil {
			return Step{}, fmt.Errorf("%s: %w", versions[i], err)
		}
		res, err := report.ReadResults(filepath.Join(dir, "results.json"))
		if err != nil {
			return Step{}, fmt.Errorf("%s: %w", versions[i], err)
		}
		s := Step{Version: versions[i], Dir: dir, Status: statuses(res)}
		ran[i] = s
		out.Steps = append(out.Steps, s)
		return s, nil
	}
	good, err := step(0)
	if err != nil {
		return nil, err
	}
	if len(good.Status) == 0 {
		return nil, fmt.Errorf("%s: no scenario ran (check --scenario and the feature paths)", versions[0])
	}
	bad, err := step(len(versions) - 1)
	if err != nil {
		return nil, err
	}
	if same(good.Status, bad.Status) {
		return out, nil
	}
	lo, hi := 0, len(versions)-1
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		s, err := step(mid)
		if err != nil {
			return nil, err
		}
		if same(good.Status, s.Status) {
			lo = mid
		} else {
			hi = mid
		}
	}
	out.LastGood, out.FirstChanged = versions[lo], versions[hi]
	if out.Diff, err = rundiff.Runs(filepath.Join(ran[lo].Dir, "results.json"), filepath.Join(ran[hi].Dir, "results.json"), nil); err != nil {
		return nil, err
	}
	return out, nil
}

func statuses(res *report.Results) map[string]string {
	m := map[string]string{}
	for _, r := range res.Results {
		s := r.Status
		switch s {
		case report.XFail:
			s = report.Failed
		case report.XPass:
			s = report.Passed
		}
		m[r.Feature+": "+r.Scenario] = s
	}
	return m
}

func same(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// Text renders the search for a terminal.
func (o *Outcome) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "versions from good to bad: %s\n", strings.Join(o.Versions, " "))
	for _, s := range o.Steps {
		keys := slices.Sorted(maps.Keys(s.Status))
		var parts []string
		counts := map[string]int{}
		for _, k := range keys {
			counts[s.Status[k]]++
		}
		for _, st := range []string{report.Passed, report.Failed, report.Unsupported, report.Unavailable, report.Skipped} {
			if counts[st] > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", counts[st], st))
			}
		}
		if len(keys) == 1 {
			parts = []string{s.Status[keys[0]]}
		}
		fmt.Fprintf(&b, "  ran %-14s %s  (%s)\n", s.Version, strings.Join(parts, ", "), s.Dir)
	}
	if o.FirstChanged == "" {
		fmt.Fprintf(&b, "\n%s and %s behave alike: no status changes between them\n", o.Versions[0], o.Versions[len(o.Versions)-1])
		return b.String()
	}
	fmt.Fprintf(&b, "\nfirst version whose status differs from %s: %s (last like it: %s)\n\n", o.Versions[0], o.FirstChanged, o.LastGood)
	fmt.Fprintf(&b, "%s → %s (base=%s, candidate=%s):\n", o.LastGood, o.FirstChanged, o.LastGood, o.FirstChanged)
	b.WriteString(o.Diff.Text())
	return b.String()
}
