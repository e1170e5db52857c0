package harness

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/cases"
	"github.com/copilot-sdk-conformance/conformance/internal/expect"
	"github.com/copilot-sdk-conformance/conformance/internal/finish"
	"github.com/copilot-sdk-conformance/conformance/internal/progress"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/runner"
	"github.com/copilot-sdk-conformance/conformance/internal/runschema"
	"github.com/copilot-sdk-conformance/conformance/internal/sdks"
	"github.com/copilot-sdk-conformance/conformance/internal/suite"
	"github.com/copilot-sdk-conformance/conformance/internal/surface"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
)

// Replay re-checks one scenario's assertions against its recorded transcript, running no SDK:
// the replay runner (runner.Replay) answers the steps' commands from the recording, through
// the same target, lease and suite as a live run.
func Replay(repoRoot, path string, steps suite.Initializer) (suite.Outcome, string, error) {
	return replayOne(repoRoot, path, steps, nil)
}

// replayOne replays one transcript; recorded, when known, is the run that recorded it: its SDK
// record (version, the hello's capabilities and notes) and its schemas stand as they did in the
// run, so the steps take the same course.
func replayOne(repoRoot, path string, steps suite.Initializer, recorded *recordedRun) (suite.Outcome, string, error) {
	r, _, h, err := runner.ReplayTranscript(path)
	if err != nil {
		return suite.Outcome{}, "", err
	}
	cfg := Config{Steps: steps, RepoRoot: repoRoot, Scenario: h.Name, Jobs: 1, CommandTimeout: 10 * time.Second,
		Paths: []string{filepath.Join(repoRoot, "features", h.Feature)}}.withDefaults()
	st := &state{jobs: cfg.Jobs}
	if st.clientSide, err = surface.LoadClientSide(filepath.Join(filepath.Dir(cfg.Manifest), surface.ClientSideFile), sdks.Names()); err != nil {
		return suite.Outcome{}, "", err
	}
	u := unit{sdk: h.SDK, label: h.SDK}
	pin := sdks.Pin{}
	if recorded != nil && recorded.sdk.Name == h.SDK {
		sdk := recorded.sdk
		sdk.Status = report.Available
		r.Records.SDKs = []report.SDK{sdk}
		r.Records.Results[0].Version = sdk.Version
		u.version = sdk.Version
		if recorded.schemaLoaded {
			p, err := makePlan(cfg)
			if err != nil {
				return suite.Outcome{}, "", err
			}
			l := runschema.Load(context.Background(), runner.Local{RepoRoot: cfg.RepoRoot, CacheRoot: cfg.CacheRoot}, p.pins, io.Discard)
			st.generated, st.answers = l.Gen, l.Answers
		}
	}
	view := progress.New(io.Discard, progress.Options{})
	defer view.Close()
	_, t := setUp(context.Background(), cfg, st, view, r, u, pin, nil)
	var outcome *suite.Outcome
	t.finished = func(o suite.Outcome) { outcome = &o }
	runSuite(cfg, st, filepath.Join(repoRoot, "features"), t)
	t.close()
	if outcome == nil {
		return suite.Outcome{}, h.SDK, fmt.Errorf("scenario %q is no longer in features/%s", h.Name, h.Feature)
	}
	return *outcome, h.SDK, nil
}

// ReplayRun re-checks every scenario of a recorded run (its results.json) against the features
// as they are now, running no SDK, and writes a report into cfg.ReportDir through the same path
// as Run: the same suite, classification, sink and finish. The SDKs, the runtime schema's source
// and the timing are the recorded run's, so the same records give the same report files.
func ReplayRun(ctx context.Context, cfg Config, resultsJSON string) (*report.Results, error) {
	cfg = cfg.withDefaults()
	if cfg.Steps == nil || cfg.Vocabulary == nil {
		return nil, fmt.Errorf("%w: no step definitions (Config.Steps and Config.Vocabulary)", ErrSetup)
	}
	r, err := runner.NewReplay(resultsJSON)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSetup, err)
	}
	if a, b := absPath(r.Dir), absPath(cfg.ReportDir); a == b {
		return nil, fmt.Errorf("%w: --report-dir %s holds the recorded run; write the replay elsewhere", ErrSetup, cfg.ReportDir)
	}
	rec := r.Records
	cfg.Tags = rec.Harness.Tags // the recorded run's selection, not a flag of the replay
	st := &state{jobs: cfg.Jobs}
	p, err := makePlan(cfg)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSetup, err)
	}
	label := report.Labels(rec)
	var us []unit
	for _, s := range rec.SDKs {
		us = append(us, unit{sdk: s.Name, version: s.Version, label: label(s.Name, s.Version)})
	}
	if rec.Harness.SchemaLoaded {
		// The schema sweep's cases and the runtime's answers are generated from the schemas as
		// in the recorded run (their recordings hold the frames; the check stays the recorded).
		l := runschema.Load(ctx, runner.Local{RepoRoot: cfg.RepoRoot, CacheRoot: cfg.CacheRoot}, p.pins, cfg.Log)
		st.generated, st.answers = l.Gen, l.Answers
	}
	if st.replayMissing, err = unreplayable(cfg, p, rec); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSetup, err)
	}
	res := &report.Results{Schema: report.SchemaVersion, Harness: rec.Harness, Timing: rec.Timing, KnownDifferences: p.differences, Reference: p.reference}
	res.Harness.Command = cfg.Command
	st.catalog = finish.Catalog(rec.Coverage)
	return execute(ctx, cfg, st, p, r, us, res, finish.SchemaMethods(rec.Coverage))
}

func absPath(p string) string {
	a, _ := filepath.Abs(p)
	return a
}

// unreplayable are the keys a replay of rec cannot give a result for, each with why: those the
// recorded run itself left without one, and its results whose scenario the features no longer
// hold or whose transcript it did not keep. The replay's report names them (it is INCOMPLETE as
// the recorded run was), instead of dropping them.
func unreplayable(cfg Config, p *plan, rec *report.Results) ([]report.Missing, error) {
	var out []report.Missing
	if rec.Completeness != nil {
		for _, m := range rec.Completeness.Missing {
			m.Reason = "in the recorded run: " + m.Reason
			out = append(out, m)
		}
	}
	selected, err := cases.Select(cfg.Paths, cfg.Tags, cfg.Scenario)
	if err != nil {
		return nil, err
	}
	now := map[[2]string]bool{}
	names := map[string][]string{} // feature -> its scenarios
	for _, s := range selected {
		f := relFeature(p.featuresRoot, s.URI)
		now[[2]string{f, s.Name}] = true
		names[f] = append(names[f], s.Name)
	}
	held := func(r report.Result) bool {
		return now[[2]string{r.Feature, r.Scenario}] || slices.ContainsFunc(names[r.Feature], func(n string) bool {
			return transcript.Unredacts(r.Scenario, n) // recorded with the secret its name quotes redacted
		})
	}
	seen := map[[4]string]bool{}
	for _, r := range rec.Results {
		m := report.Missing{Feature: r.Feature, Scenario: r.Scenario, SDK: r.SDK, Version: r.Version}
		k := [4]string{r.Feature, r.Scenario, r.SDK, r.Version}
		switch {
		case seen[k]:
			continue // an outline's examples sharing a name: one key
		case !held(r):
			m.Reason = "not replayed: the features no longer hold this scenario"
		case r.Transcript == "":
			m.Reason = "not replayed: the recorded run kept no transcript of it"
		default:
			continue
		}
		seen[k] = true
		out = append(out, m)
	}
	return out, nil
}

// ReplayResult replays one scenario's transcript (Replay) and classifies its outcome as the run
// did: with the manifest of expected failures, for the SDK version that the run's results.json
// (found in a folder above the transcript, holding a result that names it) recorded. Without
// such a results.json the version is unknown, so no entry is applied, and note says so.
func ReplayResult(repoRoot, path string, steps suite.Initializer) (r report.Result, note string, err error) {
	recorded, why := recordedResult(path)
	o, sdk, err := replayOne(repoRoot, path, steps, recorded)
	if err != nil {
		return report.Result{}, "", err
	}
	cfg := Config{RepoRoot: repoRoot}.withDefaults()
	info := report.SDK{Name: sdk, Status: report.Available}
	if recorded == nil {
		note = "the manifest of expected failures is not applied: " + why
		cfg.Manifest = "" // classify with no entries below
	} else {
		info.Version = recorded.res.Version
		cfg.ReportDir = recorded.dir
		if strings.HasPrefix(recorded.runtime, RuntimeReal) {
			cfg.Runtime = RuntimeReal
		}
		note = fmt.Sprintf("classified as %s's result for %s (%s)", recorded.file, report.Target(sdk, info.Version), recorded.res.Status)
	}
	m := &expect.Manifest{}
	if cfg.Manifest != "" {
		p, err := makePlan(cfg)
		if err != nil {
			return report.Result{}, "", err
		}
		m = p.manifest
	}
	r = classify(cfg, &state{}, m, unit{sdk: sdk, label: sdk}, info, o)
	return r, note, nil
}

type recordedRun struct {
	file, dir, runtime string
	res                report.Result
	sdk                report.SDK // the run's record of the result's SDK@version
	schemaLoaded       bool
}

// recordedResult finds the result of the run that recorded the transcript at path: the nearest
// folder above it with a results.json that names the transcript.
func recordedResult(path string) (*recordedRun, string) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err.Error()
	}
	for dir := filepath.Dir(abs); ; dir = filepath.Dir(dir) {
		file := filepath.Join(dir, "results.json")
		if _, err := os.Stat(file); err == nil {
			res, err := report.Load(file)
			if err != nil {
				return nil, err.Error()
			}
			rel, _ := filepath.Rel(dir, abs)
			for _, x := range res.Results {
				if x.Transcript != filepath.ToSlash(rel) {
					continue
				}
				rr := &recordedRun{file: file, dir: dir, runtime: res.Harness.Runtime, res: x, schemaLoaded: res.Harness.SchemaLoaded}
				for _, s := range res.SDKs {
					if s.Name == x.SDK && s.Version == x.Version {
						rr.sdk = s
					}
				}
				return rr, ""
			}
			return nil, fmt.Sprintf("%s holds no result with this transcript", file)
		}
		if filepath.Dir(dir) == dir {
			return nil, "no results.json of a run in a folder above the transcript (its SDK version is unknown)"
		}
	}
}
