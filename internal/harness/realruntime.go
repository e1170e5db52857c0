package harness

import (
	"context"

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

// realSlots bounds the real runtimes running at once across the run: each is a process of about
// 100 MB (50 MB of it its own) that mostly waits, so as many as one SDK's scenarios at once
// (DefaultJobs). Half that left every other scenario waiting for a runtime: 275 of the 608
// scenario-seconds of a Node run (measured).
var realSlots = make(chan struct{}, DefaultJobs())

// NewRuntime gives each scenario its runtime: the stand-in, or with --runtime real a private
// real runtime behind the recording proxy.
func (l *lease) NewRuntime(ctx context.Context, rec *transcript.Recorder) (suite.Runtime, error) {
	if l.realBinary == "" {
		return runtime.New(rec, l.rtOpts), nil
	}
	p, err := realruntime.Start(ctx, rec, realruntime.Config{Binary: l.realBinary, Env: l.realEnv, Check: l.rtOpts.Check, Slots: realSlots})
	if err != nil {
		return nil, err // not a typed nil *Proxy inside the interface
	}
	return p, nil
}
