// Package harness plans and runs the feature suite: it plans which SDKs run (plan.go), prepares
// each SDK's driver and starts it once (target.go), runs every scenario through godog with the
// steps it is given (Config.Steps), classifies each outcome with the known-divergence manifest
// and streams the results into the report sink; the formats are rendered from those records
// (internal/render). It never imports steps/: cmd/conformance hands it steps.Initializer.
package harness

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/copilot-sdk-conformance/conformance/internal/cases"
	"github.com/copilot-sdk-conformance/conformance/internal/text"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/driver"
	"github.com/copilot-sdk-conformance/conformance/internal/expect"
	"github.com/copilot-sdk-conformance/conformance/internal/finish"
	"github.com/copilot-sdk-conformance/conformance/internal/progress"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/runner"
	"github.com/copilot-sdk-conformance/conformance/internal/runschema"
	"github.com/copilot-sdk-conformance/conformance/internal/schema"
	"github.com/copilot-sdk-conformance/conformance/internal/schemagen"
	"github.com/copilot-sdk-conformance/conformance/internal/sdks"
	"github.com/copilot-sdk-conformance/conformance/internal/standin"
	"github.com/copilot-sdk-conformance/conformance/internal/suite"
	"github.com/copilot-sdk-conformance/conformance/internal/surface"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/cucumber/godog"
)

// Config is one run.
type Config struct {
	// Steps binds the features' phrases (steps.Initializer); the harness runs them on each SDK.
	Steps suite.Initializer
	// Vocabulary is the steps' phrases (steps.Vocabulary): the plan checks every feature against
	// it before any SDK starts.
	Vocabulary     []suite.Step
	RepoRoot       string
	Paths          []string            // feature files or folders (default: RepoRoot/features)
	SDKs           []string            // SDKs to run; empty means every SDK whose toolchain is present
	Versions       map[string][]string // --sdk-version: the versions to run per SDK (each its own target)
	Sources        map[string]string   // --sdk-source folders
	SourcesAs      map[string]string   // the version a source is matched as when it gives none (selftest's copies of the pins)
	Tags           string              // godog tag expression
	Scenario       string              // run only the scenario with this exact name
	ReportDir      string
	CacheRoot      string
	Manifest       string // known divergences (default fixtures/expected-failures.yaml)
	CommandTimeout time.Duration
	Self           []string // argv that runs this program (for the stdio runtime and rerun commands)
	Command        string   // the command line, for the report
	Log            io.Writer
	// ValidateProtocol checks every driver line against drivers/protocol.schema.json; a
	// violation fails the command (and the scenario) with the offending line named.
	ValidateProtocol bool
	// Jobs is how many scenarios of one SDK run at once, each on a driver of its own or side
	// by side on a driver.concurrent one (DefaultJobs when 0). Results and transcripts do not depend on it.
	Jobs int
	// Progress shows the run (a live view or the compact log); when nil, Run writes the compact
	// log to Log and closes it at the end. Run never closes a view it was given.
	Progress *progress.View
	// Runner is RunnerLocal (default) or RunnerDocker; LocalBases builds the driver images on
	// the local base images (`conformance images --local-bases`), for machines without a registry.
	Runner     string
	LocalBases bool
	Shard      Shard // --shard I/N; zero: the whole plan
	// Runtime is RuntimeStandIn (default) or RuntimeReal; RuntimeVersion picks the real
	// runtime's version (npm @github/copilot), "" for the one the pinned SDK ships.
	Runtime        string
	RuntimeVersion string
	// Schema is the runtime's schemas loaded once for many runs on the same pins (history: one
	// run per version, and its rechecks): loading them costs seconds of CPU (compiling the
	// schemas, generating and validating a result per method, then the sweep's cases). nil: Run
	// loads them (runschema.Load) from where its SDKs run.
	Schema *runschema.Loaded
}

// state is what a run computes from its Config and the machine (the schemas, the runtimes, the
// shard, the jobs that fit): Run fills it as it goes and hands it on beside the Config, which it
// never writes to.
type state struct {
	jobs     int      // Config.Jobs, or fewer when that many would run out of room (fitJobs)
	runtimes Runtimes // what each scenario's SDK talks to (from Config.Runtime)

	generated *schemagen.Doc   // the runtime's schemas for the generated sweep
	answers   *standin.Answers // the runtime's generated answers
	// runtimeCheck and runtimeCheckResult validate the SDK's requests and its answers to the
	// runtime's calls by the run's schema; nil: frames are not judged.
	runtimeCheck       func(method string, params json.RawMessage) []schema.Violation
	runtimeCheckResult func(method string, result json.RawMessage) []schema.Violation
	schemaDesc         string               // which schema judged the run, for the violations' failures
	schemaDir          string               // where the run's schemas were read from
	schemaRuntime      string               // the runtime version they belong to, "" when unknown
	clientSide         []surface.ClientSide // fixtures/client-side-fields.yaml (from the plan)
	features           fs.FS                // the feature files, read once before any SDK runs (readFeatures); nil: the disk
	paths              []string             // the feature paths godog runs, longest first (orderPaths); nil: Config.Paths
	catalog            []report.SchemaItem  // every method and event type of the schemas, for the coverage
	selection          *shardSelection      // the shard's part of the plan; nil: the whole plan
	// replayMissing are the keys a replay cannot give a result for (set by ReplayRun): the
	// recorded run's missing keys, and its results the features no longer hold.
	replayMissing []report.Missing
}

// Runners: where the drivers run (package runner).
const (
	RunnerLocal  = runner.LocalName
	RunnerDocker = runner.DockerName
)

// ErrSetup is a usage or setup problem (exit code 2).
var ErrSetup = errors.New("setup error")

// ErrInterrupted is a run ended by its context (SIGINT, SIGTERM): the reports hold what finished
// before (exit code 130).
var ErrInterrupted = errors.New("interrupted")

// withDefaults is the configuration with every field left empty set to its default.
func (c Config) withDefaults() Config {
	if len(c.Paths) == 0 {
		c.Paths = []string{filepath.Join(c.RepoRoot, "features")}
	}
	if c.Manifest == "" {
		c.Manifest = filepath.Join(c.RepoRoot, "fixtures", "expected-failures.yaml")
	}
	if c.CacheRoot == "" {
		c.CacheRoot = sdks.DefaultCacheRoot()
	}
	if c.CommandTimeout == 0 {
		c.CommandTimeout = 60 * time.Second
	}
	if c.Log == nil {
		c.Log = io.Discard
	}
	if c.Jobs <= 0 {
		c.Jobs = DefaultJobs()
	}
	return c
}

// DefaultJobs is how many scenarios of one SDK run at once by default: sixteen per core, at
// most thirty-two. A scenario mostly waits (on loopback round trips and on the SDK's own timers,
// such as Python's client stop, which joins a thread with a one-second timeout), so many more
// scenarios than cores keep the machine busy. On a driver.concurrent driver they run side by
// side in one process (measured on 2 cores under load 67, Python's 138 scenarios: 16 at once
// 17.2 s, 32 at once 9.8 s); a driver without it runs at most processCap of them at once.
func DefaultJobs() int { return min(32, 16*goruntime.NumCPU()) }

// processCap bounds the processes of a driver that runs one command at a time, one per running
// scenario, started only when the pool judges it pays (pool.go): eight per core, at most sixteen.
// Measured on 2 cores with the 138-scenario suite: 8 at once 29.5 s for the whole run, 16 at
// once 21.9 s, 24 at once 35.5 s (the drivers' start-ups and the harness then fight for the
// cores).
func processCap(jobs int) int { return min(jobs, 16, 8*goruntime.NumCPU()) }

// shareDrivers is how many drivers of an SDK may run (size) and how many scenarios each one
// serves at once (per), for jobs scenarios at once. A driver that runs commands concurrently
// (driver.concurrent) serves all of them, so that their waits overlap in one process instead of
// one process (an interpreter, a JVM) per scenario: measured on 2 cores, such a driver is busy
// 3-15% of its life (CPU÷wall), so a second process would only pay a second start. With 8 per
// driver and up to 2 drivers, Python kept one driver (its 20 s start under load never paid) and
// so ran 8 scenarios at once, not 16: its run took as long as before.
func shareDrivers(jobs int, concurrent bool) (size, per int) {
	if !concurrent {
		return processCap(jobs), 1
	}
	return 1, jobs
}

// Run runs the suite and writes the reports. The returned results are also in ReportDir.
func Run(ctx context.Context, cfg Config) (*report.Results, error) {
	cfg = cfg.withDefaults()
	if cfg.Steps == nil || cfg.Vocabulary == nil {
		return nil, fmt.Errorf("%w: no step definitions (Config.Steps and Config.Vocabulary)", ErrSetup)
	}
	p, err := makePlan(cfg)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSetup, err)
	}
	if err := checkRoom(cfg); err != nil {
		return nil, err
	}
	st := &state{}
	if st.features, err = readFeatures(cfg.Paths); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSetup, err)
	}
	st.selection = selectShard(cfg, p)
	st.paths = orderPaths(st.features, p.featuresRoot, cfg.Paths, loadFeatureTimes(cfg.CacheRoot))
	local := runner.Local{RepoRoot: cfg.RepoRoot, CacheRoot: cfg.CacheRoot}
	var r runner.Runner = local
	var schemas runner.Schemas = local // the schema comes from where the SDKs run
	if cfg.Runner == RunnerDocker {
		d, err := runner.NewDocker(ctx, runner.DockerConfig{RepoRoot: cfg.RepoRoot, CacheRoot: cfg.CacheRoot,
			LocalBases: cfg.LocalBases, Self: cfg.Self, Log: cfg.Log})
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrSetup, err)
		}
		r, schemas = d, d
	}
	defer r.Close(cfg.Log) // success, failure, a crashed driver, SIGINT (ctx)
	res := &report.Results{Schema: report.SchemaVersion, Harness: report.Harness{Version: standin.Version,
		StartedAt: time.Now().UTC().Format(time.RFC3339), Command: cfg.Command, Tags: cfg.Tags, Runner: r.Name()}}
	if st.selection != nil {
		res.Harness.Shard = st.selection.info
	}
	res.KnownDifferences, res.Reference = p.differences, p.reference
	var schemaMethods []string // for the coverage of the schema's methods
	var l runschema.Loaded
	if cfg.Schema != nil {
		l = *cfg.Schema
	} else {
		l = runschema.Load(ctx, schemas, p.pins, cfg.Log)
	}
	res.Harness.Schema, st.generated, st.answers = l.Desc, l.Gen, l.Answers
	st.schemaDesc, st.schemaDir, st.schemaRuntime = l.Desc, l.Dir, l.Runtime
	if l.Validator != nil {
		st.catalog = runschema.Catalog(st.generated)
		res.Harness.SchemaLoaded = true
		st.runtimeCheck, schemaMethods = l.Validator.Check, l.Validator.Names()
		st.runtimeCheckResult = l.Validator.CheckResult
	}
	if st.runtimes, res.Harness.Runtime, err = chooseRuntimes(ctx, cfg, p.pins); err != nil {
		return nil, err
	}
	defer st.runtimes.Close(cfg.Log)
	targets := st.selection.units(units(cfg, p, p.sdks))
	markLead(targets)
	st.jobs = fitJobs(cfg.Jobs, len(targets), cfg.Log)
	st.runtimes.Warm(ctx, len(targets)*min(max(st.jobs, 1), cases.Count(cfg.Paths, cfg.Tags, cfg.Scenario)))
	return execute(ctx, cfg, st, p, r, targets, res, schemaMethods)
}

// execute runs the plan's units on a runner, streams each result into the sink and finishes the
// report: the one path of run and replay.
func execute(ctx context.Context, cfg Config, st *state, p *plan, r runner.Runner, targets []unit, res *report.Results, schemaMethods []string) (*report.Results, error) {
	st.clientSide = p.clientSide
	if err := os.MkdirAll(cfg.ReportDir, 0o755); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSetup, err)
	}
	// Transcripts of an earlier run in the same folder would be mistaken for this run's.
	_ = os.RemoveAll(filepath.Join(cfg.ReportDir, "transcripts"))
	view := cfg.Progress
	if view == nil {
		view = progress.New(cfg.Log, progress.Options{})
		defer view.Close()
	}
	fmt.Fprintf(view.Writer(), "runtime schema: %s\n", res.Harness.Schema)
	// Each result goes into the sink the moment it is known (results.ndjson keeps what an
	// interrupted run learned); the formats are rendered from the same records at the end.
	sink, err := report.NewSink(cfg.ReportDir, res)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSetup, err)
	}
	defer sink.Close()                          // an interrupted or failed run's stream has no footer
	store := transcript.NewStore(cfg.ReportDir) // each transcript read once: timing, then the finish
	sdkInfo := make([]report.SDK, len(targets))
	timings := make([]*clock, len(targets))
	total := cases.Count(cfg.Paths, cfg.Tags, cfg.Scenario)
	// What the run plans, so that a scenario that ends without a result is named (completeness.go).
	selected, err := cases.Select(cfg.Paths, cfg.Tags, cfg.Scenario)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSetup, err)
	}
	planned := make([]*target, len(targets))
	var featureClk featureClock
	var wg sync.WaitGroup
	// The plan becomes runs here: one goroutine per SDK@version (unit) has the runner prepare it
	// (setUp), starts its driver and runs every scenario on it, st.jobs at a time.
	startSlots := make(chan struct{}, goruntime.NumCPU())
	// Every SDK is prepared (its first driver started) or known unavailable before any scenario
	// runs: a build that fails is said at the start, with its cause, not after the others' runs,
	// and no driver starts while other SDKs' scenarios take the cores (runner.StartGate).
	gate := runner.NewStartGate(len(targets), 0)
	prepBegan := time.Now()
	var preparedOnce sync.Once
	for i, u := range targets {
		name := u.label
		wg.Add(1)
		go func() {
			defer wg.Done()
			view.Preparing(name)
			clk := &clock{sdk: name, dir: cfg.ReportDir, store: store, begun: time.Now()}
			timings[i] = clk
			info, t := setUp(ctx, cfg, st, view, r, u, p.pins[u.sdk], startSlots)
			planned[i] = t
			sdkInfo[i] = info
			gate.Arrive(ctx)
			if ctx.Err() == nil { // the gate opened: every unit's info is written
				preparedOnce.Do(func() { fmt.Fprintln(view.Writer(), preparedLine(targets, sdkInfo, time.Since(prepBegan))) })
			}
			switch t.total = total; {
			case t.recordings != nil: // a replay runs what was recorded
				t.total = t.recordings.Len()
			case t.selected != nil: // a shard runs only its part of the plan
				t.total = len(t.selected)
			}
			if t.pool != nil && t.total > 0 {
				t.pool.left = t.left
			}
			if info.Status == report.Available {
				view.Ready(name, fmt.Sprintf("SDK %s (%s), up to %d at once", info.Version, info.Source, st.jobs), t.total)
			}
			clk.ready, clk.prepared = time.Now(), t.prepared
			if info.Status == report.Available {
				t.timed = func(start time.Time, waited time.Duration, o suite.Outcome) {
					featureClk.scenario(o.Feature, time.Since(start))
					clk.scenario(start, waited, o.Transcript)
				}
			}
			t.finished = func(o suite.Outcome) {
				r := classify(cfg, st, p.manifest, u, info, o)
				r.ID = p.ids[[2]string{o.Feature, o.Scenario}]
				if rec, ok := t.recorded(o); ok && r.Rerun != "" && rec.Result.Rerun != "" {
					r.Rerun = rec.Result.Rerun // a replay reruns what the recorded run ran
				}
				if err := sink.Add(r); err != nil {
					view.Logf(name, "results.ndjson: %v", err)
					t.accounted.lost(r.Feature, r.Scenario, report.MissingUnrecorded+": "+err.Error())
				} else {
					t.accounted.recorded(r.Feature, r.Scenario)
				}
				view.Result(name, progress.Result{Feature: r.Feature, Scenario: r.Scenario, Status: r.Status, Message: r.Message, Rerun: r.Rerun})
			}
			if err := runSuite(cfg, st, p.featuresRoot, t); err != nil {
				view.Logf(name, "%v", err)
			}
			clk.done = time.Now()
			view.Done(name)
			t.close()
			clk.drivers = t.drivers().Started()
			clk.usage = t.drivers().usage()
		}()
	}
	wg.Wait()
	res.SDKs = sdkInfo
	res.Completeness = completeness(ctx, p.featuresRoot, selected, planned, sdkInfo, st.replayMissing)
	if r.Name() != runner.ReplayName && st.selection == nil && cfg.Runtime != RuntimeReal &&
		total == cases.Count([]string{p.featuresRoot}, "", "") {
		res.StaleViolations = staleViolations(p.manifest.Violations, res, func(sdk, version string) bool {
			return strings.TrimPrefix(p.pins[sdk].Version, "v") == strings.TrimPrefix(version, "v")
		})
	}
	if r.Name() != runner.ReplayName && ctx.Err() == nil {
		if err := featureClk.times.save(cfg.CacheRoot); err != nil {
			fmt.Fprintf(view.Writer(), "feature times not kept for the next run's order: %v\n", err)
		}
	}
	if r.Name() != runner.ReplayName { // a replay keeps the recorded run's timing
		for i, clk := range timings {
			if sdkInfo[i].Status == report.Available {
				res.Timing = append(res.Timing, clk.summary(st.jobs))
			}
		}
	}
	if err := finish.Finish(cfg.ReportDir, res, finish.Options{Transcripts: store, SchemaMethods: schemaMethods, Catalog: st.catalog, Sink: sink, Log: view.Writer()}); err != nil {
		return res, err
	}
	if ctx.Err() != nil {
		return res, fmt.Errorf("%w: the reports hold the %d results that finished before", ErrInterrupted, len(res.Results))
	}
	var none []string
	for _, s := range res.SDKs {
		if s.Status != report.Available && len(cfg.SDKs) > 0 {
			// Said at the start already (preparedLine); the others' results are in the reports.
			others := ""
			if n := countOthers(res.Results, s.Name); n > 0 {
				others = fmt.Sprintf("; the other SDKs ran: their %d results are in the reports", n)
			}
			return res, fmt.Errorf("%w: SDK %s is unavailable%s: %s", ErrSetup, report.Target(s.Name, s.Version), others, s.Reason)
		}
		if s.Status != report.Available {
			none = append(none, report.Target(s.Name, s.Version)+": "+text.FirstLine(s.Reason))
		}
	}
	if len(none) == len(res.SDKs) && r.Name() != runner.ReplayName {
		return res, fmt.Errorf("%w: no SDK is available, nothing ran:\n  %s", ErrSetup, strings.Join(none, "\n  "))
	}
	return res, nil
}

// preparedLine says, once every unit is set up and before any scenario runs, which SDKs run and
// which cannot, each with its cause.
func preparedLine(targets []unit, infos []report.SDK, took time.Duration) string {
	var ready, unavailable []string
	for i, u := range targets {
		if infos[i].Status == report.Available {
			ready = append(ready, u.label)
		} else {
			unavailable = append(unavailable, u.label+" ("+text.FirstLine(infos[i].Reason)+")")
		}
	}
	line := fmt.Sprintf("prepared in %s, before any scenario: %d of %d SDKs run", took.Round(time.Second), len(ready), len(targets))
	if len(ready) > 0 {
		line += " (" + strings.Join(ready, ", ") + ")"
	}
	if len(unavailable) > 0 {
		line += "; unavailable: " + strings.Join(unavailable, "; ")
	}
	return line
}

// setUp has the runner prepare the unit, then starts its first driver and reads its hello (or
// takes the recorded one).
func setUp(ctx context.Context, cfg Config, st *state, view *progress.View, r runner.Runner, u unit, pin sdks.Pin, startSlots chan struct{}) (report.SDK, *target) {
	name := u.sdk
	// The report names the version asked for, also when it cannot be prepared.
	info := report.SDK{Name: name, Version: u.version, Source: pin.Registry + " " + pin.Package}
	t := &target{name: name, label: u.label, timeout: cfg.CommandTimeout, reportDir: cfg.ReportDir, self: cfg.Self,
		progress: view.Writer(), startSlots: startSlots, rtOpts: standin.Options{}, ctx: ctx, selected: st.selection.of(u.label)}
	context.AfterFunc(ctx, t.interrupt)
	if st.runtimeCheck != nil {
		t.rtOpts.Check, t.rtOpts.CheckResult = st.runtimeCheck, st.runtimeCheckResult
	}
	t.runtimes = st.runtimes
	t.rtOpts.Answers, t.generated, t.clientSide = st.answers, st.generated, st.clientSide
	fail := func(why string) (report.SDK, *target) {
		why = transcript.Scrub(why)
		info.Status, info.Reason, t.unavailable = report.Unavailable, why, why
		view.Unavailable(u.label, why)
		return info, t
	}
	var err error
	var stderr io.Writer = io.Discard // a replay of one transcript writes no report
	if cfg.ReportDir != "" {
		if t.stderr, err = runner.DriverLog(cfg.ReportDir, u.label); err != nil {
			return fail(err.Error())
		}
		stderr = t.stderr
	}
	source := cfg.Sources[name]
	// A local source is named as such even when it cannot be prepared (not as the pin's
	// registry package), and a source in a git checkout is labelled with its commit, whatever
	// the SDK reports: every SDK alike, no driver has to.
	// A source build is matched against the manifest's ranges as the version it would be
	// released as (sdks.MatchVersion), which every report shows beside its commit.
	label, matched := "", sdks.Matched{}
	if source != "" {
		info.Source = "local " + source
		folder := checkoutFolder(name, source)
		if l, ok := sdks.CheckoutLabel(ctx, name, folder); ok {
			label = l
		}
		if m, ok := sdks.MatchVersion(ctx, name, folder); ok {
			matched, info.Matched = m, m.Version+" ("+m.From+")"
		} else if v := cfg.SourcesAs[name]; v != "" {
			matched = sdks.Matched{Version: strings.TrimPrefix(v, "v"), From: "a copy of the published " + v}
			info.Matched = matched.Version + " (" + matched.From + ")"
		}
		switch {
		case label != "":
			info.Version = sdks.SourceVersion("", label, matched.Version)
		case matched.Version != "":
			info.Version = matched.Version
		}
	}
	prepBegan := time.Now()
	prep, err := r.Prepare(ctx, runner.Target{SDK: name, Version: u.version, Label: u.label, Source: source, Log: view.Writer(), Stderr: stderr, Lead: u.lead, Yield: u.yield})
	t.prepared = time.Since(prepBegan)
	if prep != nil {
		info.Toolchain, t.recordings = prep.Toolchain, prep.Recordings
	}
	if err != nil {
		return fail(err.Error())
	}
	t.launcher = prep.Launcher
	judgeBy(st, prep, t, &info)
	if cfg.ValidateProtocol {
		if t.validator, err = driver.LoadValidator(filepath.Join(cfg.RepoRoot, "drivers", "protocol.schema.json")); err != nil {
			return fail(err.Error())
		}
	}
	hello := prep.Hello
	if hello == nil {
		// The first driver of each SDK starts at once (every SDK's run waits on it); further
		// drivers take turns on startSlots.
		began := time.Now()
		c, h, err := driver.Handshake(ctx, t.launcher, name, cfg.CommandTimeout, t.validator)
		startCost := time.Since(began)
		if err != nil {
			return fail("driver did not start: " + err.Error())
		}
		hello = h
		if t.runtimes != nil && h.Capabilities["transport.tcp"] {
			var note string
			if t.rtOpts, note = t.runtimes.Fit(ctx, c, t.rtOpts, cfg.CommandTimeout); note != "" {
				info.Runtime = transcript.Scrub(note)
				view.Logf(u.label, "%s", info.Runtime)
			}
		}
		// More drivers start only when waiting for a busy one has taken as long as this start did.
		size, per := shareDrivers(st.jobs, h.Capabilities[driver.Concurrent])
		t.poolOnce.Do(func() { t.pool = newPool(size, per, startCost, t.startDriver, c) })
	}
	t.hello = hello
	info.Status, info.Version, info.Capabilities, info.Notes = report.Available, hello.Version, hello.Capabilities, hello.Notes
	for k, v := range info.Notes {
		info.Notes[k] = transcript.Scrub(v)
	}
	// The capability audit (internal/audit) fails such a driver; a run says it where the
	// unsupported results are read (a file's presence is not proof that an application can
	// reach the layer, so the results stay as the driver answered).
	if prep.Generated != "" && !hello.Capabilities[generatedCapability] {
		if info.Notes == nil {
			info.Notes = map[string]string{}
		}
		info.Notes[generatedCapability] = strings.TrimPrefix(info.Notes[generatedCapability]+
			"; but the SDK ships its generated layer ("+prep.Generated+"): likely a false unsupported", "; ")
		view.Logf(name, "the driver declares %s false, but the SDK ships its generated layer (%s)", generatedCapability, prep.Generated)
	}
	if hello.Source != "" {
		info.Source = hello.Source
	}
	if source != "" {
		info.Source = "local " + source
		info.Version = sdks.SourceVersion(info.Version, label, matched.Version)
		if prep.Built != "" { // the source's own build steps could not be followed here
			info.Source += "; built by the fallback " + prep.Built
			view.Logf(u.label, "built by the fallback %s", prep.Built)
		}
	}
	return info, t
}

// checkoutFolder is the folder of a local source whose commit labels it: the SDK's folder that
// its recipe finds there (the language folder of a checkout's root), else the source as given.
func checkoutFolder(name, source string) string {
	if d, ok := sdks.Lookup(name); ok && d.SourceDir != nil {
		if dir, err := d.SourceDir(source); err == nil {
			if info, err := os.Stat(dir); err == nil && info.IsDir() {
				return dir
			}
		}
	}
	return source
}

// runSuite runs every feature on one SDK through godog. godog's cucumber JSON is kept as the
// step-level record; statuses come from the outcomes the steps report.
//
// It returns an error when godog ran nothing: it could not read or parse the features (it says
// why on stderr), so none of the SDK's scenarios has a result.
func runSuite(cfg Config, st *state, featuresRoot string, t *target) error {
	format, out := "progress", io.Writer(io.Discard) // no record without a report folder
	if cfg.ReportDir != "" {
		cucumber := report.CucumberPath(cfg.ReportDir, t.label)
		_ = os.MkdirAll(filepath.Dir(cucumber), 0o755)
		// Buffered: godog writes its JSON in pieces of a few bytes, a system call each when it
		// opens the file itself (measured: 16% of the harness's CPU time in a run of two SDKs).
		if f, err := os.Create(cucumber); err == nil {
			w := bufio.NewWriterSize(f, 1<<20)
			defer func() { _ = w.Flush(); _ = f.Close() }()
			format, out = "cucumber", w
		}
	}
	// godog calls the initializer once per scenario: each gets a lease of its own.
	init := func(sc *godog.ScenarioContext) {
		l := t.lease()
		(&lifecycle{lease: l, root: featuresRoot, nameFilter: cfg.Scenario}).bind(sc, cfg.Steps(l))
		sc.After(func(ctx context.Context, _ *godog.Scenario, err error) (context.Context, error) {
			l.release() // a scenario that ended without reporting still gives its driver back
			return ctx, err
		})
	}
	paths := st.paths
	if paths == nil {
		paths = cfg.Paths
	}
	suite := godog.TestSuite{
		Name:                t.label,
		ScenarioInitializer: init,
		Options: &godog.Options{
			Concurrency: st.jobs,
			Format:      format,
			Output:      out,
			Paths:       paths,
			FS:          st.features, // nil: the disk
			Tags:        cfg.Tags,
			Strict:      true,
			NoColors:    true,
		},
	}
	if suite.Run() == godogOptionError {
		return fmt.Errorf("godog could not read the features %s for %s (its reason is above): none of its scenarios ran", strings.Join(cfg.Paths, ", "), t.label)
	}
	return nil
}

// godogOptionError is godog's status when it ran nothing because of its options or the features
// it could not read (its exitOptionError, not exported).
const godogOptionError = 2

// generatedCapability is the capability of the SDK's generated RPC layer, which the recipes
// find in the SDK's own files (sdks.Recipe.Generated).
const generatedCapability = "rpc.generated"

// classify turns a scenario outcome into a result status, applying the manifest.
func classify(cfg Config, st *state, m *expect.Manifest, u unit, sdk report.SDK, o suite.Outcome) report.Result {
	r := report.Result{Feature: o.Feature, Scenario: o.Scenario, SDK: sdk.Name, Version: sdk.Version, Checked: o.Checked,
		Observations: o.Observations}
	// Every frame is judged by the runtime's schema: a violation no known entry explains fails
	// the scenario, each one an item of its own (so an expected failure can name one).
	// A source build's label is not the version a range is checked against: the version it is
	// matched as is (sdks.SourceVersion).
	matching := sdks.MatchingVersion(sdk.Version)
	var unknown []string
	for _, v := range o.SchemaViolations {
		r.SchemaViolations = append(r.SchemaViolations, v.String())
		if e := m.KnownViolation(sdk.Name, matching, v); e != nil {
			if !slices.Contains(r.KnownViolations, e.Where()) {
				r.KnownViolations = append(r.KnownViolations, e.Where())
			}
			continue
		}
		item := v.String()
		if v.Keyword != "" {
			item = fmt.Sprintf("%s (keyword %s)", item, v.Keyword)
		}
		unknown = append(unknown, item)
	}
	if len(unknown) > 0 && o.Unavailable == "" {
		of := "the runtime's schema"
		switch {
		case sdk.Schema != "": // the SDK version's own (judgeBy)
			of += " (" + sdk.Schema + ")"
		case st.schemaDesc != "":
			of += " (" + st.schemaDesc + ")"
		}
		f := suite.Failure{Message: fmt.Sprintf("%d of the frames the SDK sent break %s, and no entry of fixtures/%s knows them:\n  %s", len(unknown), of, expect.ViolationsFile, strings.Join(unknown, "\n  "))}
		for _, u := range unknown {
			f.Items = append(f.Items, "schema: "+u)
		}
		o.Failures = append(o.Failures, f)
		o.Err = joinFailures(o.Failures)
		o.Unsupported, o.Capability = "", ""
	}
	if o.Transcript != "" {
		if rel, err := filepath.Rel(cfg.ReportDir, o.Transcript); err == nil {
			r.Transcript = filepath.ToSlash(rel)
		}
	}
	rt := cfg.Runtime
	if rt == "" {
		rt = RuntimeStandIn
	}
	entries := m.MatchAll(sdk.Name, matching, rt, o.Feature, o.Scenario)
	var entry *expect.Entry
	if len(entries) > 0 {
		entry = entries[0]
	}
	var failures []expect.Failure
	for _, f := range o.Failures {
		failures = append(failures, expect.Failure{Message: f.Message, Checked: f.Checked, Items: f.Items})
	}
	if len(failures) == 0 && o.Err != nil {
		failures = []expect.Failure{{Message: o.Err.Error(), Checked: o.Checked}}
	}
	switch {
	case o.Unavailable != "":
		r.Status, r.Message = report.Unavailable, o.Unavailable
	case o.Unsupported != "" && o.Capability == "":
		// Unsupported means the driver declared a capability false: one without a capability
		// is a fault of the driver or the steps, never an excuse.
		r.Status, r.Message = report.Failed, "unsupported without a capability the driver declared false: "+o.Unsupported
	case o.Unsupported != "":
		r.Status, r.Message, r.Capability = report.Unsupported, o.Unsupported, o.Capability
	case o.Err != nil && entry != nil:
		r.Expected, r.Link = entry.Where(), entry.Link
		// Each entry names its failure: any other failure of the same scenario (every check runs,
		// see steps' checking) is a new regression, shown with what was expected and observed.
		if ok, why := expect.Judge(entries, failures); !ok {
			r.Status, r.Message = report.Failed, fmt.Sprintf("%s\nnot the known divergence: %s", o.Err, strings.Join(why, "\n"))
			break
		}
		var reasons []string
		for _, e := range entries {
			reasons = append(reasons, fmt.Sprintf("known divergence (%s): %s", e.Where(), e.Reason))
		}
		r.Status, r.Message = report.XFail, fmt.Sprintf("%s\n%s", o.Err, strings.Join(reasons, "\n"))
	case o.Err != nil:
		r.Status, r.Message = report.Failed, o.Err.Error()
	case entry != nil:
		r.Status = report.XPass
		r.Message = fmt.Sprintf("expected to fail (%s: %s) but passed: the divergence is fixed, remove the entry at %s", entry.SDK, entry.Reason, entry.Where())
		if matching != sdk.Version { // a source build: which version the entry's range took it for
			r.Message += fmt.Sprintf(" or narrow its versions (%s) to exclude %s", entryRange(entry), matchedAs(matching, sdk.Matched))
		}
		r.Expected, r.Link = entry.Where(), entry.Link
	default:
		r.Status = report.Passed
	}
	if report.Failing(r.Status) || r.Status == report.XFail {
		r.Rerun = rerun(cfg, u, o)
	}
	// A message quotes what the SDK sent or raised: a token must not reach the reports through it.
	r.Message, r.Rerun = transcript.Scrub(r.Message), transcript.Scrub(r.Rerun)
	for i, v := range r.SchemaViolations {
		r.SchemaViolations[i] = transcript.Scrub(v)
	}
	for k, v := range r.Observations {
		r.Observations[k] = transcript.Scrub(v)
	}
	return r
}

// entryRange is an entry's versions as written ("every version" when it names none).
func entryRange(e *expect.Entry) string {
	if e.Versions == "" {
		return "every version"
	}
	return fmt.Sprintf("%q", e.Versions)
}

// matchedAs names the version a source build was matched as, and where it was read from.
func matchedAs(matching, matched string) string {
	if matching == "" {
		return "this source build (no release version: only entries without versions apply)"
	}
	if matched != "" {
		return matched + ", the version this source build is matched as"
	}
	return matching + ", the version this source build is matched as"
}

// staleViolations are the known schema violations that a run of the whole suite did not observe
// on the pinned version of their SDK: each is fixed there, and its entry must go (or narrow its
// versions), as an expected failure that passes is xpass. Only a run of every scenario judges
// this (a narrower one may simply not send the frame), and only on a pin (pinned), where the
// entries were measured: an older version in an entry's range may not have the method at all.
func staleViolations(known []*expect.Violation, res *report.Results, pinned func(sdk, version string) bool) []string {
	seen := map[string]bool{}
	for _, r := range res.Results {
		for _, w := range r.KnownViolations {
			seen[r.SDK+"@"+r.Version+" "+w] = true
		}
	}
	var out []string
	for _, e := range known {
		for _, s := range res.SDKs {
			if s.Name != e.SDK || s.Status != report.Available || !e.Holds(s.Name, s.Version) || !pinned(s.Name, s.Version) {
				continue
			}
			if !seen[s.Name+"@"+s.Version+" "+e.Where()] {
				out = append(out, fmt.Sprintf("%s: %s %s %s %q was not observed on %s in a run of every scenario: fixed there, remove the entry or narrow its versions",
					e.Where(), e.SDK, e.Method, e.Pointer, e.Message, report.Target(s.Name, s.Version)))
			}
		}
	}
	return out
}

// rerun is one command that reruns exactly this scenario on this SDK, version or source.
func rerun(cfg Config, u unit, o suite.Outcome) string {
	sdk := u.sdk
	parts := []string{"go run ./cmd/conformance run --sdk " + sdk}
	if u.explicit {
		parts = append(parts, "--sdk-version "+sdk+"="+u.version)
	}
	if s := cfg.Sources[sdk]; s != "" {
		parts = append(parts, "--sdk-source "+text.ShellWord(sdk+"="+s))
	}
	if cfg.Runtime == RuntimeReal {
		parts = append(parts, "--runtime real")
		if cfg.RuntimeVersion != "" {
			parts = append(parts, "--runtime-version "+cfg.RuntimeVersion)
		}
	}
	parts = append(parts, "--scenario "+text.ShellWord(o.Scenario), text.ShellWord(filepath.ToSlash(filepath.Join("features", o.Feature))))
	return strings.Join(parts, " ")
}

// countOthers counts the results of SDKs other than name that ran (not unavailable).
func countOthers(results []report.Result, name string) int {
	n := 0
	for _, r := range results {
		if r.SDK != name && r.Status != report.Unavailable {
			n++
		}
	}
	return n
}

// relTo shortens path to be relative to root when it lies inside it, so that reports hold no
// machine-specific paths (they are merged and compared across machines).
func relTo(root, path string) string {
	if rel, err := filepath.Rel(root, path); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return path
}
