package harness

import (
	"context"
	"fmt"
	goruntime "runtime"

	"github.com/copilot-sdk-conformance/conformance/internal/realruntime"
	"github.com/copilot-sdk-conformance/conformance/internal/runtime"
	"github.com/copilot-sdk-conformance/conformance/internal/suite"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
)

// Runtimes a run's scenarios talk to (Config.Runtime).
const (
	RuntimeStandIn = "stand-in" // the recording runtime of internal/runtime (the default)
	RuntimeReal    = "real"     // the real Copilot runtime behind a recording proxy (internal/realruntime)
)

// realSlots bounds how many real runtimes run at once across the run, each serving one scenario
// at a time (realruntime.Pool reuses them): four per core. Measured on Node 1.0.14's 149
// scenarios (2 cores, load 11-19): 32 at once 35.7 s and 24.2 s of CPU (33 processes, each
// paying the runtime's ~0.3 s first-turn warm-up), 16 26.4 s, 8 20.3 s and 17.0 s of CPU.
var realSlots = make(chan struct{}, 4*goruntime.NumCPU())

// NewRuntime gives each scenario its runtime: the stand-in, or with --runtime real a real runtime
// (a process of the run's pool, serving this scenario alone) behind the recording proxy.
func (l *lease) NewRuntime(ctx context.Context, rec *transcript.Recorder) (suite.Runtime, error) {
	if l.realBinary == "" {
		return runtime.New(rec, l.rtOpts), nil
	}
	p, err := realruntime.Start(ctx, rec, realruntime.Config{Binary: l.realBinary, Env: l.realEnv, Check: l.rtOpts.Check, Slots: realSlots, Pool: l.realPool})
	if err != nil {
		return nil, err // not a typed nil *Proxy inside the interface
	}
	return p, nil
}

// closeRealPool ends the run's idle real runtimes and says how many scenarios reused one.
func closeRealPool(cfg Config) {
	started, reused, cpu := cfg.realPool.Close()
	fmt.Fprintf(cfg.Log, "real runtime: %d process(es) started, %d scenario(s) served by one an earlier scenario left clean; the processes still running at the end used %.1f s of CPU\n", started, reused, cpu.Seconds())
}
