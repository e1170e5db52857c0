package campaign

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/harness"
	"github.com/copilot-sdk-conformance/conformance/internal/progress"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
)

// BenchRun is one run of the suite, measured: its results (with their timing), its wall time,
// the harness's own CPU time and the run's parts one after the other.
type BenchRun struct {
	Results *report.Results
	Took    time.Duration
	// HarnessCPU is the harness's CPU time over the run (its recording runtimes, steps and
	// reports); negative: unknown (CPUKnown false).
	HarnessCPU time.Duration
	CPUKnown   bool
	Phases     []Phase
}

// Phase is where one part of the run ended: its wall time and the harness's CPU time since the
// start.
type Phase struct {
	Name    string
	At, CPU time.Duration
}

// Bench runs the suite once with cfg (its progress read for where the parts end) and measures it.
func Bench(ctx context.Context, cfg harness.Config, run RunFunc) (*BenchRun, error) {
	began := time.Now()
	cpu0, known := selfCPU()
	parts := &partsLog{began: began, cpu0: cpu0}
	cfg.Progress = progress.New(parts, progress.Options{})
	res, err := orRun(run)(ctx, cfg)
	took := time.Since(began)
	if err != nil {
		return nil, err
	}
	b := &BenchRun{Results: res, Took: took, HarnessCPU: -1, CPUKnown: known}
	if cpu1, ok := selfCPU(); ok && known {
		b.HarnessCPU = cpu1 - cpu0
	}
	parts.mark("reports")
	b.Phases = parts.phases()
	return b, nil
}

// ColdWarm runs the suite twice into cfg.ReportDir/cold and /warm: first from an empty harness
// cache of its own (every driver installed and built as on a fresh machine; removed after),
// then on what the first run cached. It says which run starts on out, and hands each measured
// run to done as it ends.
func ColdWarm(ctx context.Context, cfg harness.Config, run RunFunc, out io.Writer, done func(*BenchRun)) (cold, warm *BenchRun, err error) {
	if out == nil {
		out = io.Discard
	}
	cache, err := os.MkdirTemp("", "conformance-bench-cache-")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(cache)
	var runs [2]*BenchRun
	for i, name := range []string{"cold", "warm"} {
		c := cfg
		c.CacheRoot, c.ReportDir = cache, filepath.Join(cfg.ReportDir, name)
		fmt.Fprintf(out, "== %s: cache %s ==\n", name, cache)
		if runs[i], err = Bench(ctx, c, run); err != nil {
			return nil, nil, err
		}
		if done != nil {
			done(runs[i])
		}
	}
	return runs[0], runs[1], nil
}

// partsLog reads the run's console log (progress's compact log) for where its parts end: the
// schema is loaded when the run names it, the scenarios end with the last SDK's "done".
type partsLog struct {
	mu           sync.Mutex
	began        time.Time
	cpu0         time.Duration
	schema, done *Phase
	reports      *Phase
}

func (p *partsLog) Write(b []byte) (int, error) {
	switch line := string(b); {
	case strings.HasPrefix(line, "runtime schema:"):
		p.mark("schema")
	case strings.Contains(line, "] done in "):
		p.mark("scenarios")
	}
	return len(b), nil
}

func (p *partsLog) mark(name string) {
	cpu, _ := selfCPU()
	ph := &Phase{Name: name, At: time.Since(p.began), CPU: cpu - p.cpu0}
	p.mu.Lock()
	defer p.mu.Unlock()
	switch name {
	case "schema":
		p.schema = ph
	case "scenarios":
		p.done = ph
	default:
		ph.Name = "drivers stopped and reports"
		p.reports = ph
	}
}

func (p *partsLog) phases() []Phase {
	var out []Phase
	for _, ph := range []*Phase{p.schema, p.done, p.reports} {
		if ph != nil {
			out = append(out, *ph)
		}
	}
	return out
}
