package harness

import (
	"context"
	"errors"
	"fmt"
	"github.com/copilot-sdk-conformance/conformance/internal/schemagen"
	"github.com/copilot-sdk-conformance/conformance/internal/surface"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/driver"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/runner"
	"github.com/copilot-sdk-conformance/conformance/internal/standin"
	"github.com/copilot-sdk-conformance/conformance/internal/suite"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
)

// target is one SDK's side of a run: what every scenario on it shares (the SDK's hello, its
// launcher, the options) and the pool of its running drivers. Each scenario sees it through a
// lease (a suite.Target of its own) that holds one driver for the scenario's duration.
type target struct {
	name        string // the SDK (the steps adapt to it)
	label       string // SDK, or SDK@version in a run of several versions (report paths)
	unavailable string
	hello       *driver.Hello
	launcher    driver.Launcher
	prepared    time.Duration      // the runner's Prepare of this SDK (bench's cold/warm times)
	stderr      *runner.ScrubLines // the driver log, flushed when the SDK's run ends
	// recordings, for a replayed target, answer each scenario from its recording instead of a
	// driver from the pool.
	recordings runner.Recordings
	validator  *driver.Validator // -V: every driver line checked against the protocol schema
	timeout    time.Duration
	floor      time.Duration // a scenario's deadline before its cases (0: suite.Floor of timeout)
	reportDir  string
	rtOpts     standin.Options
	runtimes   Runtimes             // each scenario's runtime (realruntime.go); nil: the stand-in
	generated  *schemagen.Doc       // the runtime's schemas for the generated sweep; nil: not loaded
	clientSide []surface.ClientSide // fixtures/client-side-fields.yaml
	self       []string
	progress   io.Writer // lines about the SDK that are not results
	startSlots chan struct{}
	finished   func(suite.Outcome)
	// ctx is the run's: when it ends (SIGINT, SIGTERM) the drivers are killed, no new one
	// starts, and the scenarios left are not run (interrupt).
	ctx      context.Context
	selected map[string]bool // a shard's scenarios (feature\tscenario); nil: all
	// timed, when set, also gets each finished scenario's start (for the timing report).
	timed func(start time.Time, waited time.Duration, o suite.Outcome)

	// accounted records, per planned key (feature, scenario), whether its result reached the
	// sink or why not (completeness.go).
	accounted accounting

	poolOnce sync.Once
	pool     *pool
	total    int          // scenarios planned on this SDK (0: unknown)
	ended    atomic.Int64 // scenarios finished
}

// recorded is a replayed scenario's recording.
func (t *target) recorded(o suite.Outcome) (*runner.Recording, bool) {
	if t.recordings == nil {
		return nil, false
	}
	return t.recordings.Recording(o.Feature, o.Scenario)
}

// left is how many planned scenarios have not finished.
func (t *target) left() int { return t.total - int(t.ended.Load()) }

// drivers is the SDK's pool; one driver at a time unless setUp made a larger one.
func (t *target) drivers() *pool {
	t.poolOnce.Do(func() {
		if t.pool == nil {
			t.pool = newPool(1, 1, 0, t.startDriver, nil)
		}
	})
	return t.pool
}

func (t *target) startDriver(ctx context.Context) (*driver.Client, error) {
	if t.startSlots != nil { // starting a driver is CPU work: a few at a time machine-wide
		select {
		case t.startSlots <- struct{}{}:
			defer func() { <-t.startSlots }()
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	c, _, err := driver.Handshake(ctx, t.launcher, t.name, t.timeout, t.validator)
	return c, err
}

// lease is one scenario's view of its SDK: the suite.Target the steps of that scenario get.
// Its driver comes from the SDK's pool on first use and goes back when the scenario finishes,
// so no two scenarios ever send commands to the same driver at once (the protocol has one
// command in flight per driver).
type lease struct {
	*target
	started time.Time
	waited  time.Duration // getting a driver from the pool (waiting for one or starting one)

	mu     sync.Mutex
	client *driver.Client
	lost   error           // why the scenario's driver is gone, once it is (Driver)
	hung   *driver.Failure // set when the scenario's deadline killed its driver

	spawns    int               // a replayed scenario's recorded spawns read so far (Spawner)
	scenario  *suite.Scenario   // the running scenario, while it reaches the SDK (lifecycle)
	recording *runner.Recording // a replayed scenario's, bound by Transcript
	replayed  *driver.Recorded  // its recorded driver (one per scenario, kept across restarts)
}

func (t *target) lease() *lease { return &lease{target: t, started: time.Now()} }

func (l *lease) SDK() string { return l.name }

// Scenario is the running scenario the lifecycle opened, nil when it does not reach the SDK.
func (l *lease) Scenario() *suite.Scenario {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.scenario
}

func (l *lease) setScenario(s *suite.Scenario) {
	l.mu.Lock()
	l.scenario = s
	l.mu.Unlock()
}
func (l *lease) Unavailable() string {
	if l.unavailable == "" && l.recording != nil {
		return l.recording.Unavailable
	}
	return l.unavailable
}

// Capability is the hello's. A replayed scenario lacks what its recording says it lacked, and
// otherwise has what the recorded hello declared; replaying a lone transcript, with no hello,
// it has every capability its recorded run did not find missing.
func (l *lease) Capability(name string) (bool, string) {
	if l.recording != nil {
		if note, lacked := l.recording.Lacks[name]; lacked {
			return false, note
		}
		if l.hello == nil || len(l.hello.Capabilities) == 0 {
			return true, ""
		}
	}
	if l.hello == nil {
		return false, ""
	}
	has, note := l.hello.Capabilities[name], l.hello.Notes[name]
	if !has && note == "" {
		note = missingNote(l.hello.Missing[name])
	}
	return has, note
}

// missingNote says a capability declared false without a note by what hello's missing names: a
// driver gap as the driver words it, else the SDK symbol whose absence makes it so (an older
// SDK's unsupported scenario then names what it lacks, not only the capability).
func missingNote(missing string) string {
	switch {
	case missing == "":
		return ""
	case strings.HasPrefix(missing, "driver:"):
		return missing
	}
	return "the SDK has no " + missing
}
func (l *lease) CommandTimeout() time.Duration   { return l.timeout }
func (l *lease) RuntimeOptions() standin.Options { return l.rtOpts }
func (l *lease) SchemaLoaded() bool {
	if l.recording != nil {
		return l.recording.Schema
	}
	return l.rtOpts.Check != nil
}
func (l *lease) StdioRuntime() []string {
	if l.rtOpts.PreConnect && len(l.self) > 0 { // the SDK's spawned runtime answers as its scenarios' does
		return append(append([]string(nil), l.self...), "--pre-connect")
	}
	return l.self
}

// Schemas is the runtime's schemas, loaded for the generated sweep (suite.Schemas).
func (l *lease) Schemas() *schemagen.Doc { return l.generated }

// ClientSideFields are the committed client-side fields (suite.ClientSideFields).
func (l *lease) ClientSideFields() []surface.ClientSide { return l.clientSide }

// Finished returns the driver to the pool, then hands the outcome on, except one cut short by
// an interrupt: it is not a result (what ran before is kept in the reports).
func (l *lease) Finished(o suite.Outcome) {
	l.release()
	l.ended.Add(1)
	if l.interrupted() {
		l.accounted.lost(o.Feature, o.Scenario, report.MissingInterrupted)
		return
	}
	if l.timed != nil {
		l.timed(l.started, l.waited, o)
	}
	l.finished(o)
}

// release returns the scenario's driver to the pool, if it holds one.
func (l *lease) release() {
	l.mu.Lock()
	c := l.client
	l.client = nil
	l.mu.Unlock()
	switch {
	case c != nil && l.recording != nil:
		c.Kill() // a recorded driver serves one scenario
	case c != nil:
		l.drivers().put(c)
	}
}

func (t *target) interrupted() bool { return t.ctx != nil && t.ctx.Err() != nil }

// errInterrupted ends every scenario that would start after an interrupt.
var errInterrupted = errors.New("the run was interrupted")

// interrupt ends every driver of the SDK (each one's whole process group) at once, for a run
// that was interrupted.
func (t *target) interrupt() { t.drivers().kill() }

// Transcript is written into the report folder as it happens (kept in memory when the target
// has no report folder). A replayed scenario's grows as the recorded one did: what was recorded
// before the first driver command at once, then each command's stretch of the recorded wire
// and notes as the recorded driver answers it (the driver lines are recorded again by the
// steps).
func (l *lease) Transcript(feature, scenario string) (*transcript.Recorder, string, error) {
	if l.interrupted() {
		return nil, "", errInterrupted
	}
	if l.recordings != nil {
		l.recording, _ = l.recordings.Recording(feature, scenario)
	}
	rec, path := transcript.Memory(), ""
	if l.reportDir != "" {
		var err error
		path = filepath.Join(l.reportDir, report.TranscriptRel(l.label, feature, scenario))
		if rec, err = transcript.New(path); err != nil {
			return nil, "", err
		}
	}
	if l.recording != nil {
		var before []transcript.Entry
		l.replayed, before = l.recording.Launcher(rec)
		for _, e := range before {
			rec.Add(e)
		}
	}
	return rec, path, nil
}

// Driver returns the scenario's driver: one from the pool on first use. A driver that died
// during the scenario (a crash, or killed as hung) is not replaced within it: the scenario can no
// longer reach the SDK it opened clients and sessions on, so every later call gets the failure
// at once (a sweep then ends instead of sending each case to a fresh driver that knows none of
// its handles), and the next scenario gets a fresh driver from the pool.
func (l *lease) Driver(ctx context.Context) (*driver.Client, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.interrupted() {
		return nil, errInterrupted
	}
	if l.lost != nil && l.replayed == nil {
		return nil, l.lost
	}
	if l.client != nil && l.client.Alive() {
		return l.client, nil
	}
	if l.client != nil && l.replayed == nil {
		if l.hung != nil {
			l.lost = l.hung
		} else {
			l.lost = l.client.Exited()
		}
		fmt.Fprintf(l.progress, "[%s] driver exited during a scenario; the next scenario gets a new one\n", l.label)
		l.drivers().discard(l.client)
		l.client = nil
		return nil, l.lost
	}
	if l.replayed != nil {
		c, err := driver.Start(ctx, l.replayed)
		l.client = c
		return c, err
	}
	begin := time.Now()
	c, err := l.drivers().get(ctx)
	l.waited += time.Since(begin)
	if err != nil {
		return nil, err
	}
	l.client = c
	return c, nil
}

// hangUp ends the scenario's driver as hung (the scenario passed its deadline): every later call
// of the scenario gets why.
func (l *lease) hangUp(why string) {
	l.mu.Lock()
	c := l.client
	if l.hung == nil {
		l.hung = &driver.Failure{Kind: "timed out", Detail: why}
		if c != nil {
			l.hung.Stderr = c.StderrTail()
		}
	}
	l.mu.Unlock()
	if c != nil {
		c.Kill()
	}
}

func (l *lease) KillDriver() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.client != nil {
		l.client.Kill()
	}
}

func (t *target) close() {
	t.drivers().close()
	if t.stderr != nil {
		t.stderr.Flush()
	}
}

// Spawner is where a probe's self-started runtime comes from (suite.Spawns): the SDK starts one
// now (a surface.Spawner), or a replayed scenario reads its recording's next spawn, in order,
// since no process is started in a replay.
func (l *lease) Spawner(runtimeArgv []string) (surface.ProcessSource, error) {
	if l.recording == nil {
		return surface.NewSpawner(runtimeArgv)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, e := range l.recording.Entries {
		if e.Kind != transcript.KindSpawn || e.Spawn == nil {
			continue
		}
		if n == l.spawns {
			l.spawns++
			return recordedSpawn{*e.Spawn}, nil
		}
		n++
	}
	l.spawns++
	return nil, fmt.Errorf("the recording holds %d spawned runtimes' facts and the scenario asks for spawn %d (a run before this harness recorded them, or steps that differ): rerun the scenario", n, l.spawns)
}

// recordedSpawn is a recorded spawn's facts (suite.Spawns in a replay).
type recordedSpawn struct{ s transcript.Spawn }

// Path names no program: a replay's driver starts nothing.
func (recordedSpawn) Path() string { return "/nonexistent/conformance-replay/copilot" }
func (r recordedSpawn) Read() (surface.Process, error) {
	if r.s.Error != "" {
		return surface.ProcessOf(r.s), errors.New(r.s.Error)
	}
	return surface.ProcessOf(r.s), nil
}
