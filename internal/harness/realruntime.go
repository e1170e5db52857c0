package harness

import (
	"context"
	"fmt"
	"io"
	goruntime "runtime"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/driver"
	"github.com/copilot-sdk-conformance/conformance/internal/realruntime"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/sdks"
	"github.com/copilot-sdk-conformance/conformance/internal/standin"
	"github.com/copilot-sdk-conformance/conformance/internal/suite"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
)

// Runtimes a run's scenarios talk to (Config.Runtime).
const (
	RuntimeStandIn = "stand-in" // the recording runtime of internal/runtime (the default)
	RuntimeReal    = "real"     // the real Copilot runtime behind a recording proxy (internal/realruntime)
)

// realSlots bounds how many real runtimes run at once across the run, each serving one scenario
// at a time (realruntime.Pool reuses them): eight per core, each a process of ~100 MB. A slot
// is held for the scenario's whole time, most of which the runtime waits on the SDK (its stop,
// its handlers), so the slots, not the CPU, bounded a run of several SDKs. Measured, five SDKs'
// suite at once (bench --runtime real, 2 cores, load 7-15): 8 slots 68.5 s (the slots full
// from start to end, 16 processes started, 37.9 s of their CPU), 16 slots 58.8 s (24
// processes, 38.0 s), 32 slots 67.7 s (40 processes, 45.8 s: each new process pays the
// runtime's first-turn warm-up); the stand-in's run between them 57.0 and 48.7 s. Before the
// pool and the quick ACKs fewer were better (Node alone, 32 at once 35.7 s, 8 20.3 s).
var realSlots = make(chan struct{}, 8*goruntime.NumCPU())

// Runtimes is the one seam between the harness and what the SDKs talk to: it gives each scenario
// its runtime (suite.Runtime), chosen once per run. The stand-in and the real runtime are its
// two kinds; another (a recorded runtime version, a replay of recorded answers) is one more
// implementation, and nothing else in the harness asks which kind it has.
type Runtimes interface {
	// New is a scenario's runtime, recording into rec; opts are the target's (its schema check,
	// its generated answers).
	New(ctx context.Context, rec *transcript.Recorder, opts standin.Options) (suite.Runtime, error)
	// Warm readies, in the background, what up to n scenarios running at once will need.
	Warm(ctx context.Context, n int)
	// Close ends what the run's runtimes share, with a line about it on log.
	Close(log io.Writer)
	// Fit is the options an SDK's scenarios run with, given its first driver: the stand-in
	// answers an SDK that cannot talk to the current runtime as an older runtime did, and says
	// so (note, for the report's headline); the real runtime is what it is.
	Fit(ctx context.Context, c *driver.Client, opts standin.Options, timeout time.Duration) (standin.Options, string)
}

// chooseRuntimes is the run's Runtimes, of the kind cfg.Runtime names, and how the report names
// it ("" for the stand-in): the one place the kind is decided.
func chooseRuntimes(ctx context.Context, cfg Config, pins map[string]sdks.Pin) (Runtimes, string, error) {
	if cfg.Runtime != RuntimeReal {
		return standIns{}, "", nil
	}
	rb, err := sdks.PrepareRealRuntime(ctx, cfg.RepoRoot, cfg.CacheRoot, cfg.RuntimeVersion, pins, cfg.Log)
	if err != nil {
		return nil, "", fmt.Errorf("%w: the real runtime: %v", ErrSetup, err)
	}
	return newRealRuntimes(rb.Path, rb.Env), "real: " + rb.Origin, nil
}

// standIns are the recording runtime of internal/runtime, one per scenario.
type standIns struct{}

func (standIns) New(_ context.Context, rec *transcript.Recorder, opts standin.Options) (suite.Runtime, error) {
	return standin.New(rec, opts), nil
}
func (standIns) Close(io.Writer)           {}
func (standIns) Warm(context.Context, int) {}

func (standIns) Fit(ctx context.Context, c *driver.Client, opts standin.Options, timeout time.Duration) (standin.Options, string) {
	pre, note := driver.FitRuntime(ctx, c, opts, timeout)
	opts.PreConnect = pre
	return opts, note
}

// realRuntimes are real runtime processes of one binary, each serving one scenario at a time
// behind the recording proxy, reused between scenarios (realruntime.Pool).
type realRuntimes struct {
	binary string
	env    []string
	pool   *realruntime.Pool
}

func newRealRuntimes(binary string, env []string) *realRuntimes {
	return &realRuntimes{binary: binary, env: env, pool: realruntime.NewPool()}
}

func (r *realRuntimes) New(ctx context.Context, rec *transcript.Recorder, opts standin.Options) (suite.Runtime, error) {
	p, err := realruntime.Start(ctx, rec, realruntime.Config{Binary: r.binary, Env: r.env, Check: opts.Check, Slots: realSlots, Pool: r.pool})
	if err != nil {
		return nil, err // not a typed nil *Proxy inside the interface
	}
	return p, nil
}

// Warm starts as many runtime processes as min(n, the slots) into the pool while the drivers
// start, so that the first scenarios do not each wait for a start of their own, a few at a time.
func (r *realRuntimes) Warm(ctx context.Context, n int) {
	r.pool.Prestart(ctx, realruntime.Config{Binary: r.binary, Env: r.env}, min(n, cap(realSlots)))
}

// Fit connects a client of the SDK's first driver to a real runtime: one that cannot is said so
// (note, for the report's headline and the compatibility matrix), with its words and the frame
// it refused; its scenarios run all the same (the real runtime is what it is).
func (r *realRuntimes) Fit(ctx context.Context, c *driver.Client, opts standin.Options, timeout time.Duration) (standin.Options, string) {
	rec := transcript.Memory()
	// Without a slot: an SDK's scenarios wait for this connect, and the slots are held by the
	// scenarios of the SDKs whose first driver was quicker (measured, five SDKs at once: Python's
	// and Java's scenarios started 40 s after the others', their Fit queued behind those). It
	// takes a process from the pool or puts one there, for a scenario to take with a slot.
	p, err := realruntime.Start(ctx, rec, realruntime.Config{Binary: r.binary, Env: r.env, Pool: r.pool})
	if err != nil {
		return opts, ""
	}
	defer p.Close()
	if refused, why := driver.TryConnect(ctx, c, p, rec, timeout); refused {
		return opts, report.CannotConnectReal + ": " + why
	}
	return opts, ""
}

// Close ends the run's idle real runtimes and says how many scenarios reused one.
func (r *realRuntimes) Close(log io.Writer) {
	started, reused, cpu := r.pool.Close()
	fmt.Fprintf(log, "real runtime: %d process(es) started, %d scenario(s) served by one an earlier scenario left clean; the processes still running at the end used %.1f s of CPU\n", started, reused, cpu.Seconds())
}

// NewRuntime gives the scenario its runtime, of the run's kind (the stand-in when none is set).
func (l *lease) NewRuntime(ctx context.Context, rec *transcript.Recorder) (suite.Runtime, error) {
	opts := l.rtOpts
	if l.replayed != nil {
		opts.Recording = l.replayed // what the steps have it send is played from the recording
	}
	if l.runtimes == nil {
		return standIns{}.New(ctx, rec, opts)
	}
	return l.runtimes.New(ctx, rec, opts)
}
