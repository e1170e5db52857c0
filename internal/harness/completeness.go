package harness

import (
	"context"
	"sync"

	"github.com/copilot-sdk-conformance/conformance/internal/cases"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
)

// accounting is one target's record of its planned keys: each scenario whose result reached the
// sink, and why each other one has none (interrupted, could not record).
type accounting struct {
	mu       sync.Mutex
	reported map[[2]string]bool
	why      map[[2]string]string
}

func (a *accounting) recorded(feature, scenario string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.reported == nil {
		a.reported = map[[2]string]bool{}
	}
	a.reported[[2]string{feature, scenario}] = true
}

func (a *accounting) lost(feature, scenario, why string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.why == nil {
		a.why = map[[2]string]string{}
	}
	if _, ok := a.why[[2]string{feature, scenario}]; !ok {
		a.why[[2]string{feature, scenario}] = why
	}
}

// plannedKeys is what the run plans on one target: the scenarios the paths, tags and --scenario
// select (as godog will run them), less those of other shards, and in a replay those the
// recorded run holds (Selected). Feature names are as the lifecycle names them.
func plannedKeys(featuresRoot string, selected []cases.Selected, t *target) [][2]string {
	var out [][2]string
	for _, s := range selected {
		f := relFeature(featuresRoot, s.URI)
		if t.Selected(f, s.Name) {
			out = append(out, [2]string{f, s.Name})
		}
	}
	return out
}

// completeness compares each target's planned keys with what it reported. A key without a
// result has the reason its target recorded, else "interrupted" when the run's context ended,
// else "not run" (the SDK's suite ended without an outcome for it). extra are missing keys the
// caller knows of beyond the targets' (a replay: the recorded run's own, and its results the
// features no longer hold).
func completeness(ctx context.Context, featuresRoot string, selected []cases.Selected, targets []*target, info []report.SDK, extra []report.Missing) *report.Completeness {
	c := &report.Completeness{}
	for i, t := range targets {
		if t == nil {
			continue
		}
		t.accounted.mu.Lock()
		for _, k := range plannedKeys(featuresRoot, selected, t) {
			c.Planned++
			if t.accounted.reported[k] {
				c.Reported++
				continue
			}
			why := t.accounted.why[k]
			switch {
			case why != "":
			case ctx.Err() != nil:
				why = report.MissingInterrupted
			default:
				why = report.MissingNotRun
			}
			c.Missing = append(c.Missing, report.Missing{Feature: k[0], Scenario: k[1], SDK: t.name, Version: info[i].Version, Reason: why})
		}
		t.accounted.mu.Unlock()
	}
	c.Planned += len(extra)
	c.Missing = append(c.Missing, extra...)
	report.SortMissing(c.Missing)
	c.Complete = len(c.Missing) == 0
	return c
}
