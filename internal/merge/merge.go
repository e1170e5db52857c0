// Package merge joins the report folders of a sharded run (`run --shard I/N`) into the report the
// unsharded run writes: the results of every shard, the SDKs as they ran, the transcripts, and the
// cross-SDK comparisons recomputed over all shards; then every format of render.All.
package merge

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/finish"
	"github.com/copilot-sdk-conformance/conformance/internal/render"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/report/html"
	"github.com/copilot-sdk-conformance/conformance/internal/sdks"
)

// ErrInput is a shard set that cannot be merged (missing, overlapping, mismatched).
var ErrInput = errors.New("cannot merge")

type shard struct {
	path string // its results.json
	dir  string
	res  *report.Results
}

// Options change what a merge accepts.
type Options struct {
	// AllowIncomplete merges shards that left planned results without one (interrupted, say);
	// the merge is then INCOMPLETE, and its headline names those shards. Without it such a
	// shard is refused.
	AllowIncomplete bool
}

// Merge reads the shards' results.json files and writes the merged report into out.
func Merge(out string, inputs []string, command string, opt Options) (*report.Results, error) {
	shards, err := read(inputs)
	if err != nil {
		return nil, err
	}
	if err := check(shards); err != nil {
		return nil, err
	}
	completeness := &report.Completeness{}
	for _, s := range shards {
		c := s.res.Completeness
		if c.Complete {
			completeness.Planned, completeness.Reported = completeness.Planned+c.Planned, completeness.Reported+c.Reported
			continue
		}
		if !opt.AllowIncomplete {
			return nil, fmt.Errorf("%w: %s is an incomplete shard (%s; the first: %s / %s on %s, %s): rerun that shard, or merge with --allow-incomplete for a report marked INCOMPLETE",
				ErrInput, s.path, c.Headline(), c.Missing[0].Feature, c.Missing[0].Scenario, report.Target(c.Missing[0].SDK, c.Missing[0].Version), c.Missing[0].Reason)
		}
		completeness.Planned, completeness.Reported = completeness.Planned+c.Planned, completeness.Reported+c.Reported
		completeness.Missing = append(completeness.Missing, c.Missing...)
		completeness.Allowed = append(completeness.Allowed, s.path)
	}
	report.SortMissing(completeness.Missing)
	completeness.Complete = len(completeness.Missing) == 0
	absOut, _ := filepath.Abs(out)
	for _, s := range shards {
		if d, _ := filepath.Abs(s.dir); d == absOut {
			return nil, fmt.Errorf("%w: --report-dir %s is the folder of shard %s; write the merge elsewhere", ErrInput, out, s.path)
		}
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	_ = os.RemoveAll(filepath.Join(out, report.TranscriptsDir)) // an earlier report's would mix in
	first := shards[0].res
	res := &report.Results{Schema: first.Schema, Harness: first.Harness, KnownDifferences: first.KnownDifferences, Reference: first.Reference,
		Completeness: completeness}
	res.Harness.Shard, res.Harness.Command = nil, command
	for _, s := range shards {
		if s.res.Harness.StartedAt < res.Harness.StartedAt {
			res.Harness.StartedAt = s.res.Harness.StartedAt
		}
		res.Results = append(res.Results, s.res.Results...)
		if err := copyFiles(s, out); err != nil {
			return nil, err
		}
	}
	if res.SDKs, err = sdkInfo(shards); err != nil {
		return nil, err
	}
	return res, finish.Finish(out, res, finish.Options{SchemaMethods: schemaMethods(shards), Catalog: catalog(shards)})
}

// schemaMethods is the schema's method list as the shards' coverage gives it (every shard ran
// with the same schema).
func schemaMethods(shards []shard) []string {
	var all []string
	for _, s := range shards {
		all = append(all, finish.SchemaMethods(s.res.Coverage)...)
	}
	slices.Sort(all)
	return slices.Compact(all)
}

// catalog is the schema catalog the shards carry (the same in each shard of one run).
func catalog(shards []shard) []report.SchemaItem {
	for _, s := range shards {
		if c := finish.Catalog(s.res.Coverage); len(c) > 0 {
			return c
		}
	}
	return nil
}

func read(inputs []string) ([]shard, error) {
	if len(inputs) == 0 {
		return nil, fmt.Errorf("%w: no results.json given", ErrInput)
	}
	var out []shard
	for _, p := range inputs {
		r, err := report.Load(p)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrInput, err)
		}
		if r.Harness.Shard == nil {
			return nil, fmt.Errorf("%w: %s is not a shard (no harness.shard; run with --shard I/N)", ErrInput, p)
		}
		out = append(out, shard{path: p, dir: filepath.Dir(p), res: r})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].res.Harness.Shard.Index < out[j].res.Harness.Shard.Index })
	return out, nil
}

// check refuses shards of different plans or harness versions, a shard given twice or missing,
// and a result that two shards both hold.
func check(shards []shard) error {
	a := shards[0]
	want := a.res.Harness.Shard
	seen := map[int]string{}
	for _, s := range shards {
		got := s.res.Harness.Shard
		switch {
		case s.res.Harness.Version != a.res.Harness.Version:
			return fmt.Errorf("%w: harness versions differ: %s has %s, %s has %s", ErrInput, a.path, a.res.Harness.Version, s.path, s.res.Harness.Version)
		case got.Count != want.Count || got.Plan != want.Plan || got.Keys != want.Keys:
			return fmt.Errorf("%w: %s is shard %d/%d of plan %s (%d keys), %s is %d/%d of plan %s (%d keys): not one run's shards",
				ErrInput, a.path, want.Index, want.Count, want.Plan, want.Keys, s.path, got.Index, got.Count, got.Plan, got.Keys)
		case s.res.Harness.Tags != a.res.Harness.Tags:
			return fmt.Errorf("%w: tag filters differ: %s has %q, %s has %q", ErrInput, a.path, a.res.Harness.Tags, s.path, s.res.Harness.Tags)
		}
		if prev, dup := seen[got.Index]; dup {
			return fmt.Errorf("%w: overlapping shards: %s and %s are both shard %d/%d", ErrInput, prev, s.path, got.Index, got.Count)
		}
		seen[got.Index] = s.path
	}
	var missing []string
	for i := 1; i <= want.Count; i++ {
		if seen[i] == "" {
			missing = append(missing, strconv.Itoa(i))
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w: missing shard %s of %d (plan %s): give every shard's results.json", ErrInput, strings.Join(missing, ", "), want.Count, want.Plan)
	}
	owner := map[string]string{}
	for _, s := range shards {
		for _, r := range s.res.Results {
			k := r.Feature + " / " + r.Scenario + " on " + report.Target(r.SDK, r.Version)
			if prev, dup := owner[k]; dup {
				return fmt.Errorf("%w: overlapping shards: %s and %s both hold %s", ErrInput, prev, s.path, k)
			}
			owner[k] = s.path
		}
	}
	return nil
}

// sdkInfo joins the SDK records: an SDK is available when it ran in a shard (its version and
// capabilities then agree across shards), else as the first shard that names it says.
func sdkInfo(shards []shard) ([]report.SDK, error) {
	// A run of several versions of one SDK (one shard lists the SDK more than once) has an
	// entry per SDK@version; otherwise the SDK's versions must agree across shards.
	several := map[string]bool{}
	for _, s := range shards {
		seen := map[string]bool{}
		for _, info := range s.res.SDKs {
			several[info.Name] = several[info.Name] || seen[info.Name]
			seen[info.Name] = true
		}
	}
	var order []string
	by := map[string]report.SDK{}
	from := map[string]string{}
	for _, s := range shards {
		for _, info := range s.res.SDKs {
			k := info.Name
			if several[k] {
				k = report.Target(info.Name, info.Version)
			}
			prev, ok := by[k]
			switch {
			case !ok:
				order = append(order, k)
			case prev.Status == report.Available && info.Status == report.Available && (prev.Version != info.Version || prev.Source != info.Source):
				return nil, fmt.Errorf("%w: SDK %s ran as %s (%s) in %s but as %s (%s) in %s", ErrInput, info.Name,
					prev.Version, prev.Source, from[k], info.Version, info.Source, s.path)
			case prev.Status == report.Available || info.Status != report.Available:
				continue
			}
			by[k], from[k] = info, s.path
		}
	}
	out := make([]report.SDK, len(order))
	for i, n := range order {
		out[i] = by[n]
	}
	// The SDKs' report order, as one run lists them.
	rank := map[string]int{}
	for i, n := range sdks.Names() {
		rank[n] = i
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Name != out[j].Name {
			return rank[out[i].Name] < rank[out[j].Name]
		}
		return report.VersionLess(out[i].Version, out[j].Version)
	})
	return out, nil
}

// copyFiles copies a shard's transcripts into out/transcripts (disjoint across shards, checked),
// and its other files (driver logs, godog's cucumber JSON) into out/shards/<I>/, since every shard
// has its own of those. The rendered formats are written anew.
func copyFiles(s shard, out string) error {
	rendered := map[string]bool{"results.ndjson": true}
	for _, r := range render.All {
		rendered[r.File] = true
	}
	idx := strconv.Itoa(s.res.Harness.Shard.Index)
	return filepath.WalkDir(s.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(s.dir, p)
		if rel == "." {
			return nil
		}
		if d.IsDir() {
			if rel == "shards" || rel == html.TranscriptDir { // report.html's transcripts are rendered anew too
				return filepath.SkipDir
			}
			return nil
		}
		var dst string
		switch {
		case strings.HasPrefix(filepath.ToSlash(rel), report.TranscriptsDir+"/"):
			dst = filepath.Join(out, rel)
			if _, err := os.Stat(dst); err == nil {
				return fmt.Errorf("%w: overlapping shards: transcript %s is in two shards (the second is %s)", ErrInput, rel, s.path)
			}
		case rendered[rel]:
			return nil
		default:
			dst = filepath.Join(out, "shards", idx, rel)
		}
		return copyFile(p, dst)
	})
}

func copyFile(src, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	o, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(o, in); err != nil {
		o.Close()
		return err
	}
	return o.Close()
}
