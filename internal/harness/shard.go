package harness

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/report"
)

// Shard is one part of a sharded run, `--shard I/N` (1 <= I <= N); the zero value is the whole run.
type Shard struct{ Index, Count int }

// ParseShard reads "I/N".
func ParseShard(s string) (Shard, error) {
	i, n, ok := strings.Cut(s, "/")
	a, err1 := strconv.Atoi(strings.TrimSpace(i))
	b, err2 := strconv.Atoi(strings.TrimSpace(n))
	if !ok || err1 != nil || err2 != nil || b < 1 || a < 1 || a > b {
		return Shard{}, fmt.Errorf("--shard %q: want I/N with 1 <= I <= N, e.g. 2/4", s)
	}
	return Shard{a, b}, nil
}

func (s Shard) enabled() bool { return s.Count > 0 }

// selection is a shard's share of the plan: per SDK, the scenarios it runs.
type shardSelection struct {
	info  *report.Shard
	bySDK map[string]map[string]bool // unit label (SDK or SDK@version) -> feature\tscenario
}

// shardKey names one cell of the matrix; its version part makes a run of another version a
// different plan.
func shardKey(feature, scenario, sdk, version string) string {
	return feature + "\t" + scenario + "\t" + sdk + "@" + version
}

// selectShard splits the plan's (scenario × SDK × version) matrix: the keys are sorted and dealt
// round-robin, key k to shard k mod N. So the split is deterministic (the same plan gives the same
// shards on every machine) and even (shard sizes differ by at most one), and the scenarios of one
// feature spread over the shards instead of one shard getting all slow ones. Tag and --scenario
// filters apply after the split, so a filtered run's shards may be uneven.
func selectShard(cfg Config, p *plan) *shardSelection {
	if !cfg.Shard.enabled() {
		return nil
	}
	type cell struct{ key, sdk, scenario string }
	var cells []cell
	for _, u := range units(cfg, p, p.sdks) {
		for _, sc := range p.scenarios {
			cells = append(cells, cell{shardKey(sc.Feature, sc.Name, u.sdk, u.shardVersion(cfg)), u.label, sc.Feature + "\t" + sc.Name})
		}
	}
	sort.Slice(cells, func(i, j int) bool { return cells[i].key < cells[j].key })
	h := sha256.New()
	sel := &shardSelection{bySDK: map[string]map[string]bool{}}
	n := 0
	for k, c := range cells {
		if k > 0 && c.key == cells[k-1].key {
			continue // an outline whose examples share a name: one cell
		}
		fmt.Fprintln(h, c.key)
		if n%cfg.Shard.Count == cfg.Shard.Index-1 {
			if sel.bySDK[c.sdk] == nil {
				sel.bySDK[c.sdk] = map[string]bool{}
			}
			sel.bySDK[c.sdk][c.scenario] = true
		}
		n++
	}
	selected := 0
	for _, m := range sel.bySDK {
		selected += len(m)
	}
	sel.info = &report.Shard{Index: cfg.Shard.Index, Count: cfg.Shard.Count, Plan: hex.EncodeToString(h.Sum(nil))[:16],
		Keys: n, Selected: selected}
	return sel
}

// units keeps the units that have a scenario in the shard (nil selection: all).
func (s *shardSelection) units(us []unit) []unit {
	if s == nil {
		return us
	}
	var out []unit
	for _, u := range us {
		if len(s.bySDK[u.label]) > 0 {
			out = append(out, u)
		}
	}
	return out
}

// of returns one unit's share (nil: every scenario).
func (s *shardSelection) of(label string) map[string]bool {
	if s == nil {
		return nil
	}
	return s.bySDK[label]
}

// Selected says whether a scenario is this target's: in a sharded run its share, in a replay the
// scenarios the recorded run holds.
func (t *target) Selected(feature, scenario string) bool {
	if t.recordings != nil {
		if _, ok := t.recordings.Recording(feature, scenario); !ok {
			return false
		}
	}
	return t.selected == nil || t.selected[feature+"\t"+scenario]
}
