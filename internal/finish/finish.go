// Package finish is the last stage of every command that ends in a report (run, merge, replay,
// and the history to come): given the records of a run and the report folder holding their
// transcripts, it sorts the results, compares the SDKs, computes the schema coverage, renders
// every format (render.All), ends results.ndjson with its footer and scrubs the folder of any
// secret. Each transcript is read once (transcript.Store) for all of it, so the same records
// give the same files whichever command produced them.
package finish

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"sync"

	"github.com/copilot-sdk-conformance/conformance/internal/compare"
	"github.com/copilot-sdk-conformance/conformance/internal/coverage"
	"github.com/copilot-sdk-conformance/conformance/internal/render"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/sdks"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
)

// Options are what a finish needs beyond the records.
type Options struct {
	// Transcripts reads the folder's transcripts; a run passes the store its timing already
	// filled. Nil: a new store over the folder.
	Transcripts *transcript.Store
	// SchemaMethods is the runtime schema's method list, for the coverage (empty: no schema).
	SchemaMethods []string
	// Catalog is every method and event type of the runtime's schemas, for the coverage's
	// per-SDK account (nil: not loaded; a merge or replay passes the one its records carry).
	Catalog []report.SchemaItem
	// Sink is the run's results.ndjson, which streamed the results as they came: Finish ends it
	// with the footer. Nil: Finish writes results.ndjson whole (a merge, a replay of records).
	Sink *report.Sink
	Log  io.Writer // problems that do not stop the report (a comparison that failed)
}

// Finish completes res and writes every report file into dir.
func Finish(dir string, res *report.Results, opt Options) error {
	ts := opt.Transcripts
	if ts == nil {
		ts = transcript.NewStore(dir)
	}
	if opt.Log == nil {
		opt.Log = io.Discard
	}
	SortResults(res.Results)
	var err error
	// Each SDK@version is a column of its own in the cross-SDK comparison; an SDK the run left
	// out is compared by its pinned observations (the reference), on the surface scenarios.
	compared, reference := compare.WithReference(report.ByTarget(res).Results, res.Reference)
	if res.Comparisons, err = compare.Scenarios(ts, compared); err != nil {
		fmt.Fprintf(opt.Log, "comparison: %v\n", err)
	}
	for i, c := range res.Comparisons {
		res.Comparisons[i].Reference = reference[[2]string{c.Feature, c.Scenario}]
	}
	res.CrossSDK = compare.CrossSDK(res.Comparisons, res.KnownDifferences)
	res.Coverage = coverage.Compute(ts, res, opt.SchemaMethods, res.Harness.Schema, opt.Catalog)
	if err := render.WriteFrom(ts, res); err != nil {
		return err
	}
	sink := opt.Sink
	if sink == nil {
		if sink, err = stream(dir, res); err != nil {
			return err
		}
	}
	if err := sink.End(); err != nil {
		return fmt.Errorf("%s: %w", report.StreamFile, err)
	}
	scrubDir(dir, opt.Log)
	return nil
}

// SchemaMethods is the runtime schema's method list as a finished report's coverage gives it
// (the exercised methods in the schema and the unexercised ones), for a finish of records whose
// schema is not loaded again (merge, replay).
func SchemaMethods(c *report.Coverage) []string {
	if c == nil {
		return nil
	}
	var out []string
	for _, u := range c.Exercised {
		if u.InSchema {
			out = append(out, u.Method)
		}
	}
	out = append(out, c.Unexercised...)
	sort.Strings(out)
	return slices.Compact(out)
}

// Catalog is the schema catalog a finished report's coverage carries (merge, replay).
func Catalog(c *report.Coverage) []report.SchemaItem {
	if c == nil {
		return nil
	}
	return c.Catalog
}

// stream writes results.ndjson for records that were not streamed as they came.
func stream(dir string, res *report.Results) (*report.Sink, error) {
	rs := res.Results
	all := &report.Results{Schema: res.Schema, Harness: res.Harness}
	s, err := report.NewSink(dir, all)
	if err != nil {
		return nil, err
	}
	for _, r := range rs {
		if err := s.Add(r); err != nil {
			s.Close()
			return nil, err
		}
	}
	all.SDKs, all.Totals = res.SDKs, res.Totals
	return s, nil
}

// SortResults puts results in report order: feature, scenario, then the SDKs' order, then
// versions oldest first.
func SortResults(rs []report.Result) {
	order := map[string]int{}
	for i, n := range sdks.Names() {
		order[n] = i
	}
	sort.SliceStable(rs, func(i, j int) bool {
		a, b := rs[i], rs[j]
		if a.Feature != b.Feature {
			return a.Feature < b.Feature
		}
		if a.Scenario != b.Scenario {
			return a.Scenario < b.Scenario
		}
		if a.SDK != b.SDK {
			return order[a.SDK] < order[b.SDK]
		}
		return report.VersionLess(a.Version, b.Version)
	})
}

// scrubDir passes every file of the report folder through transcript.Scrub once the report is
// written. Each writer scrubs as it writes, but a secret is known only from the moment some
// frame carried it, and SDKs run concurrently: a file written earlier (godog's record, which
// quotes the features' step text; another SDK's driver log) may still hold it.
//
// The files are scrubbed a core each at a time (the folder is the run's largest read: 130 MB of
// transcripts and their HTML copies), and all again while a pass registered a secret (a
// credential's shape found in one file), so every file is scrubbed of every secret any held.
//
// A file's name is scrubbed too (a scenario name may quote a secret, and transcripts are named
// after scenarios), so the names recorded in results.json, which are scrubbed as text, still
// find their files.
func scrubDir(dir string, log io.Writer) {
	var files, renames []string
	_ = filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			files = append(files, path)
		}
		return nil
	})
	for {
		known := transcript.Secrets()
		parallel(len(files), func(i int) {
			b, err := os.ReadFile(files[i])
			if err != nil {
				return
			}
			if s := transcript.Scrub(string(b)); s != string(b) {
				if err := os.WriteFile(files[i], []byte(s), 0o644); err != nil {
					fmt.Fprintf(log, "scrubbing %s: %v\n", files[i], err)
				}
			}
		})
		renames = renames[:0]
		for _, path := range files {
			if name := transcript.Scrub(filepath.Base(path)); name != filepath.Base(path) {
				renames = append(renames, path, filepath.Join(filepath.Dir(path), name))
			}
		}
		if transcript.Secrets() == known {
			break
		}
	}
	for i := 0; i < len(renames); i += 2 {
		if err := os.Rename(renames[i], renames[i+1]); err != nil {
			fmt.Fprintf(log, "scrubbing the name of %s: %v\n", renames[i], err)
		}
	}
}

// parallel calls do(i) for every i below n, a call per core at a time.
func parallel(n int, do func(int)) {
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Go(func() {
			for i := range next {
				do(i)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}
