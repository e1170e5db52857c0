package report

import (
	"fmt"
	"sort"
)

// SchemaVersion is the results.json format this harness writes and the only one diff, merge and
// replay read (Load). Version 2 added Completeness: a file without it cannot say whether its
// run reported every planned result.
const SchemaVersion = 2

// Completeness is what a run planned (scenario × SDK × version keys: its scenarios after tags,
// --scenario and its shard, on every SDK@version) against what it reported. A run with a
// planned key that has no result is INCOMPLETE: no report calls it PASS, its exit status is
// ExitIncomplete (130 when interrupted) and merge and diff refuse it.
type Completeness struct {
	Complete bool `json:"complete"`
	Planned  int  `json:"planned"`
	Reported int  `json:"reported"`
	// Missing are the planned keys without a result, each with why.
	Missing []Missing `json:"missing,omitempty"`
	// Allowed is set on a merge told --allow-incomplete: the shards it joined that were
	// incomplete (their results.json), named in every report's headline.
	Allowed []string `json:"allowedIncomplete,omitempty"`
}

// Missing is one planned key without a result.
type Missing struct {
	Feature  string `json:"feature"`
	Scenario string `json:"scenario"`
	SDK      string `json:"sdk"`
	Version  string `json:"version,omitempty"`
	Reason   string `json:"reason"`
}

// Reasons a planned key has no result.
const (
	// MissingInterrupted: the run was ended (SIGINT, SIGTERM) before the scenario finished.
	MissingInterrupted = "interrupted"
	// MissingUnrecorded prefixes the error that kept a finished scenario's result out of the
	// results stream ("could not record: ...").
	MissingUnrecorded = "could not record"
	// MissingNotRun: the SDK's suite ended without running the scenario (its driver or godog
	// gave up on the SDK: no scenario outcome ever reached the harness).
	MissingNotRun = "not run: the SDK's suite ended without an outcome for it (driver lost)"
)

// Incomplete says whether the records are of a run that left planned keys without a result; a
// record without a Completeness (an older harness's, before its finish) counts as complete only
// in memory: Load refuses such a file.
func (r *Results) Incomplete() bool { return r.Completeness != nil && !r.Completeness.Complete }

// Headline is the one-line INCOMPLETE verdict every report opens with ("" when complete).
func (c *Completeness) Headline() string {
	if c == nil || c.Complete {
		return ""
	}
	s := fmt.Sprintf("INCOMPLETE: %d of %d planned results missing", c.Planned-c.Reported, c.Planned)
	why := map[string]int{}
	for _, m := range c.Missing {
		why[reasonKind(m.Reason)]++
	}
	var kinds []string
	for k := range why {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for i, k := range kinds {
		if i == 0 {
			s += " ("
		} else {
			s += ", "
		}
		s += fmt.Sprintf("%d %s", why[k], k)
		if i == len(kinds)-1 {
			s += ")"
		}
	}
	if len(c.Allowed) > 0 {
		s += fmt.Sprintf("; merged with --allow-incomplete from %d incomplete %s", len(c.Allowed), map[bool]string{true: "shard", false: "shards"}[len(c.Allowed) == 1])
	}
	return s
}

// reasonKind is a reason's kind without its detail ("could not record: disk full" -> "could not
// record").
func reasonKind(reason string) string {
	for _, k := range []string{MissingInterrupted, MissingUnrecorded} {
		if len(reason) >= len(k) && reason[:len(k)] == k {
			return k
		}
	}
	if reason == MissingNotRun {
		return "not run"
	}
	return reason
}

// SortMissing puts missing keys in report order (feature, scenario, SDK, version).
func SortMissing(ms []Missing) {
	sort.SliceStable(ms, func(i, j int) bool {
		a, b := ms[i], ms[j]
		if a.Feature != b.Feature {
			return a.Feature < b.Feature
		}
		if a.Scenario != b.Scenario {
			return a.Scenario < b.Scenario
		}
		if a.SDK != b.SDK {
			return a.SDK < b.SDK
		}
		return a.Version < b.Version
	})
}
