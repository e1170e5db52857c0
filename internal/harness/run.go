// Package harness plans and runs the feature suite: it plans which SDKs run (plan.go), prepares
// each SDK's driver and starts it once (target.go), runs every scenario through godog with the
// steps it is given (Config.Steps), classifies each outcome with the known-divergence manifest
// and streams the results into the report sink; the formats are rendered from those records
// (internal/render). It never imports steps/: cmd/conformance hands it steps.Initializer.
package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	goruntime "runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/compare"
	"github.com/copilot-sdk-conformance/conformance/internal/container"
	"github.com/copilot-sdk-conformance/conformance/internal/coverage"
	"github.com/copilot-sdk-conformance/conformance/internal/driver"
	"github.com/copilot-sdk-conformance/conformance/internal/expect"
	"github.com/copilot-sdk-conformance/conformance/internal/progress"
	"github.com/copilot-sdk-conformance/conformance/internal/render"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/runtime"
	"github.com/copilot-sdk-conformance/conformance/internal/schema"
	"github.com/copilot-sdk-conformance/conformance/internal/sdks"
	"github.com/copilot-sdk-conformance/conformance/internal/suite"
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
	Tags           string              // godog tag expression
	Scenario       string              // run only the scenario with this exact name
	ReportDir      string
	CacheRoot      string
	Manifest       string // known divergences (default fixtures/expected-failures.yaml)
	CommandTimeout time.Duration
	Self           []string // argv that runs this program (for the stdio runtime and rerun commands)
	Command        string   // the command line, for the report
	Log            io.Writer
	RuntimeCheck   func(method string, params json.RawMessage) []schema.Violation
	// ValidateProtocol checks every driver line against drivers/protocol.schema.json; a
	// violation fails the command (and the scenario) with the offending line named.
	ValidateProtocol bool
	// Jobs is how many scenarios of one SDK run at once, each on a driver of its own
	// (DefaultJobs when 0). Results and transcripts do not depend on it.
	Jobs int
	// Progress shows the run (a live view or the compact log); when nil, Run writes the compact
	// log to Log and closes it at the end. Run never closes a view it was given.
	Progress *progress.View
	// Runner is RunnerLocal (default) or RunnerDocker; LocalBases builds the driver images on
	// the local base images (`conformance images --local-bases`), for machines without a registry.
	Runner     string
	LocalBases bool
	Shard      Shard // --shard I/N; zero: the whole plan

	containers *containers     // set by Run for RunnerDocker
	selection  *shardSelection // set by Run for a shard
}

// ErrSetup is a usage or setup problem (exit code 2).
var ErrSetup = errors.New("setup error")

// ErrInterrupted is a run ended by its context (SIGINT, SIGTERM): the reports hold what finished
// before (exit code 130).
var ErrInterrupted = errors.New("interrupted")

func (c *Config) defaults() {
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
}

// DefaultJobs is how many scenarios of one SDK run at once by default: eight per core, at most
// sixteen. A scenario mostly waits (on loopback round trips and on the SDK's own timers, such
// as Python's client stop, which joins a thread with a one-second timeout), so many more
// scenarios than cores keep the machine busy; each one costs a driver process, started only
// when the pool judges it pays (pool.go). Measured on 2 cores with the 138-scenario suite: 8 at
// once 29.5 s for the whole run, 16 at once 21.9 s, 24 at once 35.5 s (the drivers' start-ups
// and the harness then fight for the cores).
func DefaultJobs() int { return min(16, 8*goruntime.NumCPU()) }

// Run runs the suite and writes the reports. The returned results are also in ReportDir.
func Run(ctx context.Context, cfg Config) (*report.Results, error) {
	cfg.defaults()
	if cfg.Steps == nil || cfg.Vocabulary == nil {
		return nil, fmt.Errorf("%w: no step definitions (Config.Steps and Config.Vocabulary)", ErrSetup)
	}
	p, err := makePlan(cfg)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSetup, err)
	}
	cfg.selection = selectShard(cfg, p)
	manifest, targets, explicit, featuresRoot := p.manifest, cfg.selection.units(units(cfg, p, p.sdks)), len(cfg.SDKs) > 0, p.featuresRoot
	if cfg.Runner == RunnerDocker {
		if cfg.containers, err = startContainers(ctx, cfg); err != nil {
			return nil, err
		}
		defer cfg.containers.Close(cfg.Log) // success, failure, a crashed driver, SIGINT (ctx)
	}
	if err := os.MkdirAll(cfg.ReportDir, 0o755); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrSetup, err)
	}
	// Transcripts of an earlier run in the same folder would be mistaken for this run's.
	_ = os.RemoveAll(filepath.Join(cfg.ReportDir, "transcripts"))

	res := &report.Results{Schema: 1, Harness: report.Harness{Version: runtime.Version,
		StartedAt: time.Now().UTC().Format(time.RFC3339), Command: cfg.Command, Tags: cfg.Tags, Runner: cfg.Runner}}
	if cfg.selection != nil {
		res.Harness.Shard = cfg.selection.info
	}
	var schemaMethods []string // for the coverage of the schema's methods
	if cfg.RuntimeCheck == nil {
		var v *schema.Validator
		if v, res.Harness.Schema = loadSchema(ctx, cfg, p.pins); v != nil {
			cfg.RuntimeCheck, schemaMethods = v.Check, v.Names()
		}
	}
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
	defer sink.Close()
	sdkInfo := make([]report.SDK, len(targets))
	timings := make([]*clock, len(targets))
	total := countScenarios(cfg)
	var wg sync.WaitGroup
	// The plan becomes runs here: one goroutine per SDK@version (unit) prepares and starts its
	// driver (setUp; the one place a prepared driver becomes a driver.Launcher is launcher) and
	// runs every scenario on it, cfg.Jobs at a time. Preparing is CPU and network heavy (npm,
	// cargo, mvn); two at a time on the 2-core machines.
	prepSlots, startSlots := make(chan struct{}, 2), make(chan struct{}, goruntime.NumCPU())
	for i, u := range targets {
		name := u.label
		wg.Add(1)
		go func() {
			defer wg.Done()
			view.Preparing(name)
			clk := &clock{sdk: name, dir: cfg.ReportDir, begun: time.Now()}
			timings[i] = clk
			info, t := setUp(ctx, cfg, view, u, p.pins[u.sdk], prepSlots, startSlots)
			if t.total = total; t.selected != nil { // a shard runs only its part of the plan
				t.total = len(t.selected)
			}
			if t.pool != nil && t.total > 0 {
				t.pool.left = t.left
			}
			sdkInfo[i] = info
			if info.Status == report.Available {
				view.Ready(name, fmt.Sprintf("SDK %s (%s), up to %d at once", info.Version, info.Source, cfg.Jobs), t.total)
			}
			clk.ready = time.Now()
			if info.Status == report.Available {
				t.timed = func(start time.Time, waited time.Duration, o suite.Outcome) {
					clk.scenario(start, waited, o.Transcript)
				}
			}
			t.finished = func(o suite.Outcome) {
				r := classify(cfg, manifest, u, info, o)
				if err := sink.Add(r); err != nil {
					view.Logf(name, "results.ndjson: %v", err)
				}
				view.Result(name, progress.Result{Feature: r.Feature, Scenario: r.Scenario, Status: r.Status, Message: r.Message, Rerun: r.Rerun})
			}
			runSuite(cfg, featuresRoot, t)
			clk.done = time.Now()
			view.Done(name)
			t.close()
			clk.drivers = t.drivers().Started()
		}()
	}
	wg.Wait()
	res.SDKs = sdkInfo
	for i, clk := range timings {
		if sdkInfo[i].Status == report.Available {
			res.Timing = append(res.Timing, clk.summary(cfg.Jobs))
		}
	}
	sortResults(res.Results)
	// Each SDK@version is a column of its own in the cross-SDK comparison.
	if res.Comparisons, err = compare.Scenarios(cfg.ReportDir, report.ByTarget(res).Results); err != nil {
		fmt.Fprintf(view.Writer(), "comparison: %v\n", err)
	}
	res.Coverage = coverage.Compute(cfg.ReportDir, res, schemaMethods, res.Harness.Schema)
	if err := render.Write(cfg.ReportDir, res); err != nil {
		return res, err
	}
	scrubReportDir(cfg.ReportDir, cfg.Log)
	if ctx.Err() != nil {
		return res, fmt.Errorf("%w: the reports hold the %d results that finished before", ErrInterrupted, len(res.Results))
	}
	var none []string
	for _, s := range res.SDKs {
		if s.Status != report.Available && explicit {
			return res, fmt.Errorf("%w: SDK %s is unavailable: %s", ErrSetup, report.Target(s.Name, s.Version), s.Reason)
		}
		if s.Status != report.Available {
			none = append(none, report.Target(s.Name, s.Version)+": "+firstLine(s.Reason))
		}
	}
	if len(none) == len(res.SDKs) {
		return res, fmt.Errorf("%w: no SDK is available, nothing ran:\n  %s", ErrSetup, strings.Join(none, "\n  "))
	}
	return res, nil
}

// setUp checks the toolchain, prepares the driver and says hello.
func setUp(ctx context.Context, cfg Config, view *progress.View, u unit, pin sdks.Pin, slots, startSlots chan struct{}) (report.SDK, *target) {
	name := u.sdk
	// The report names the version asked for, also when it cannot be prepared.
	info := report.SDK{Name: name, Version: u.version, Source: pin.Registry + " " + pin.Package}
	t := &target{name: name, label: u.label, timeout: cfg.CommandTimeout, reportDir: cfg.ReportDir, self: cfg.Self,
		progress: view.Writer(), startSlots: startSlots, rtOpts: runtime.Options{}, ctx: ctx, selected: cfg.selection.of(u.label)}
	context.AfterFunc(ctx, t.interrupt)
	if cfg.RuntimeCheck != nil {
		t.rtOpts.Check = cfg.RuntimeCheck
	}
	fail := func(why string) (report.SDK, *target) {
		why = transcript.Scrub(why)
		info.Status, info.Reason, t.unavailable = report.Unavailable, why, why
		view.Unavailable(u.label, why)
		return info, t
	}
	d, ok := sdks.Lookup(name)
	if !ok {
		return fail("this build of the harness has no driver recipe for " + name)
	}
	version, source := u.version, cfg.Sources[name]
	var prep *sdks.Prepared
	if cfg.containers == nil { // a container brings its own toolchain and preparation
		tc, err := sdks.CheckToolchain(d)
		info.Toolchain = tc
		if err != nil {
			return fail(err.Error())
		}
		slots <- struct{}{}
		prep, err = (&sdks.Preparer{RepoRoot: cfg.RepoRoot, CacheRoot: cfg.CacheRoot, Log: view.Writer()}).Prepare(ctx, name, version, source)
		<-slots
		if err != nil {
			return fail(err.Error())
		}
	}
	var err error
	slots <- struct{}{} // an image build is as heavy as a preparation
	t.launcher, err = launcher(ctx, cfg, u, prep)
	<-slots
	if err != nil {
		return fail(err.Error())
	}
	if l, ok := t.launcher.(*container.Launcher); ok {
		info.Toolchain = []string{"image " + l.Image}
		fmt.Fprintf(view.Writer(), "[%s] driver image %s\n", u.label, l.Image)
	}
	if cfg.ValidateProtocol {
		if t.validator, err = driver.LoadValidator(filepath.Join(cfg.RepoRoot, "drivers", "protocol.schema.json")); err != nil {
			return fail(err.Error())
		}
	}
	// The first driver of each SDK starts at once (every SDK's run waits on it); further drivers
	// take turns on startSlots.
	began := time.Now()
	c, hello, err := driver.Handshake(ctx, t.launcher, name, cfg.CommandTimeout, t.validator)
	startCost := time.Since(began)
	if err != nil {
		return fail("driver did not start: " + err.Error())
	}
	t.hello = hello
	// More drivers start only when waiting for a busy one has taken as long as this start did.
	t.poolOnce.Do(func() { t.pool = newPool(cfg.Jobs, startCost, t.startDriver, c) })
	info.Status, info.Version, info.Capabilities, info.Notes = report.Available, hello.Version, hello.Capabilities, hello.Notes
	for k, v := range info.Notes {
		info.Notes[k] = transcript.Scrub(v)
	}
	if hello.Source != "" {
		info.Source = hello.Source
	}
	if source != "" {
		info.Source = "local " + source
	}
	return info, t
}

// launcher is the one place a prepared driver becomes something that starts it: a local process,
// or with --runner docker a container of the SDK's image at version (built unless it exists);
// either way its stderr goes to the report folder.
func launcher(ctx context.Context, cfg Config, u unit, prep *sdks.Prepared) (driver.Launcher, error) {
	stderrLog, err := os.Create(report.DriverLogPath(cfg.ReportDir, u.label))
	if err != nil {
		return nil, err
	}
	if cfg.containers != nil {
		return cfg.containers.launcher(ctx, u.sdk, u.version, &scrubLines{w: stderrLog})
	}
	return driver.Local{Argv: prep.Launch.Argv, Dir: prep.Launch.Dir, Env: prep.Launch.Env, StderrLog: &scrubLines{w: stderrLog}}, nil
}

// scrubLines writes whole lines through transcript.Scrub, so that a token a driver or its SDK
// logs never reaches the driver log in the report folder. A line is held until its newline (a
// token split across two writes is still found), up to 64 KiB.
type scrubLines struct {
	mu  sync.Mutex
	w   io.Writer
	buf []byte
}

// Flush writes a last line that has no newline (at the end of the run).
func (s *scrubLines) Flush() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.buf) > 0 {
		_, _ = io.WriteString(s.w, transcript.Scrub(string(s.buf)))
		s.buf = s.buf[:0]
	}
}

func (s *scrubLines) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.buf = append(s.buf, b...)
	i := bytes.LastIndexByte(s.buf, '\n')
	if i < 0 && len(s.buf) < 64<<10 {
		return len(b), nil
	}
	if i < 0 {
		i = len(s.buf) - 1
	}
	if _, err := io.WriteString(s.w, transcript.Scrub(string(s.buf[:i+1]))); err != nil {
		return 0, err
	}
	s.buf = append(s.buf[:0], s.buf[i+1:]...)
	return len(b), nil
}

// runSuite runs every feature on one SDK through godog. godog's cucumber JSON is kept as the
// step-level record; statuses come from the outcomes the steps report.
func runSuite(cfg Config, featuresRoot string, t *target) {
	cucumber := report.CucumberPath(cfg.ReportDir, t.label)
	_ = os.MkdirAll(filepath.Dir(cucumber), 0o755)
	// godog calls the initializer once per scenario: each gets a lease of its own.
	init := func(sc *godog.ScenarioContext) {
		l := t.lease()
		cfg.Steps(l, featuresRoot, cfg.Scenario)(sc)
		sc.After(func(ctx context.Context, _ *godog.Scenario, err error) (context.Context, error) {
			l.release() // a scenario that ended without reporting still gives its driver back
			return ctx, err
		})
	}
	suite := godog.TestSuite{
		Name:                t.label,
		ScenarioInitializer: init,
		Options: &godog.Options{
			Concurrency: cfg.Jobs,
			Format:      "cucumber:" + cucumber,
			Output:      io.Discard,
			Paths:       cfg.Paths,
			Tags:        cfg.Tags,
			Strict:      true,
			NoColors:    true,
		},
	}
	suite.Run()
}

// scrubReportDir passes every file of the report folder through transcript.Scrub once the run
// is over. Each writer scrubs as it writes, but a secret is known only from the moment some
// frame carried it, and SDKs run concurrently: a file written earlier (godog's record, which
// quotes the features' step text; another SDK's driver log) may still hold it.
func scrubReportDir(dir string, log io.Writer) {
	_ = filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		if s := transcript.Scrub(string(b)); s != string(b) {
			if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
				fmt.Fprintf(log, "scrubbing %s: %v\n", path, err)
			}
		}
		return nil
	})
}

// classify turns a scenario outcome into a result status, applying the manifest.
func classify(cfg Config, m *expect.Manifest, u unit, sdk report.SDK, o suite.Outcome) report.Result {
	r := report.Result{Feature: o.Feature, Scenario: o.Scenario, SDK: sdk.Name, Version: sdk.Version, Checked: o.Checked,
		Observations: o.Observations}
	for _, v := range o.SchemaViolations {
		r.SchemaViolations = append(r.SchemaViolations, v.String())
	}
	if o.Transcript != "" {
		if rel, err := filepath.Rel(cfg.ReportDir, o.Transcript); err == nil {
			r.Transcript = filepath.ToSlash(rel)
		}
	}
	entry := m.Match(sdk.Name, sdk.Version, o.Feature, o.Scenario)
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
		// The entry names its failure: a different failure of the same scenario is a new
		// regression, shown with both what was expected and what was observed.
		if ok, why := entry.Explains(expect.Failure{Message: o.Err.Error(), Checked: o.Checked}); !ok {
			r.Status, r.Message = report.Failed, fmt.Sprintf("%s\nnot the known divergence: %s", o.Err, why)
			break
		}
		r.Status, r.Message = report.XFail, fmt.Sprintf("%s\nknown divergence (%s): %s", o.Err, entry.Where(), entry.Reason)
	case o.Err != nil:
		r.Status, r.Message = report.Failed, o.Err.Error()
	case entry != nil:
		r.Status = report.XPass
		r.Message = fmt.Sprintf("expected to fail (%s: %s) but passed: the divergence is fixed, remove the entry at %s", entry.SDK, entry.Reason, entry.Where())
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

// rerun is one command that reruns exactly this scenario on this SDK, version or source.
func rerun(cfg Config, u unit, o suite.Outcome) string {
	sdk := u.sdk
	parts := []string{"go run ./cmd/conformance run --sdk " + sdk}
	if u.explicit {
		parts = append(parts, "--sdk-version "+sdk+"="+u.version)
	}
	if s := cfg.Sources[sdk]; s != "" {
		parts = append(parts, "--sdk-source "+shellQuote(sdk+"="+s))
	}
	parts = append(parts, "--scenario "+shellQuote(o.Scenario), shellQuote(filepath.ToSlash(filepath.Join("features", o.Feature))))
	return strings.Join(parts, " ")
}

func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r == '=' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func firstLine(s string) string { return strings.SplitN(s, "\n", 2)[0] }

func sortResults(rs []report.Result) {
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

// loadSchema takes the runtime's published api.schema.json from the preparation of the SDK whose
// recipe ships it (the pinned Node SDK's platform package; preparing it, which is cached, if
// needed). Without it the run goes on and the schema scenarios report unsupported.
func loadSchema(ctx context.Context, cfg Config, pins map[string]sdks.Pin) (*schema.Validator, string) {
	d, ok := sdks.SchemaSource()
	if !ok {
		return nil, "unavailable: no SDK recipe ships the runtime schema"
	}
	pin := pins[d.Name]
	prep, err := (&sdks.Preparer{RepoRoot: cfg.RepoRoot, CacheRoot: cfg.CacheRoot, Log: cfg.Log}).Prepare(ctx, d.Name, pin.Version, "")
	if err != nil {
		return nil, "unavailable: " + firstLine(err.Error())
	}
	dir, err := d.Schema(prep.CacheDir)
	if err != nil {
		return nil, "unavailable: " + err.Error()
	}
	v, err := schema.Load(filepath.Join(dir, "api.schema.json"))
	if err != nil {
		return nil, "unavailable: " + firstLine(err.Error())
	}
	return v, fmt.Sprintf("api.schema.json of %s %s's platform package (%d methods)", pin.Package, pin.Version, v.Methods())
}

// relTo shortens path to be relative to root when it lies inside it, so that reports hold no
// machine-specific paths (they are merged and compared across machines).
func relTo(root, path string) string {
	if rel, err := filepath.Rel(root, path); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return path
}
