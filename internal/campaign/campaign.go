// Package campaign runs the suite several times and learns from comparing the runs: the history
// of an SDK's published versions, the bisection of a change, the stand-in against the real
// runtime (fidelity), the SDK × runtime matrix and the benchmark. Each run goes through a
// RunFunc (harness.Run in the command, recorded runs in the tests), so the orchestration is
// tested without an SDK toolchain; cmd/conformance only binds the flags and prints.
package campaign

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/copilot-sdk-conformance/conformance/internal/harness"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
)

// RunFunc runs the suite once with cfg and writes its reports into cfg.ReportDir.
type RunFunc func(ctx context.Context, cfg harness.Config) (*report.Results, error)

// orRun is run, or harness.Run when nil.
func orRun(run RunFunc) RunFunc {
	if run == nil {
		return harness.Run
	}
	return run
}

// RunInto runs one run into dir, its log into dir/run.log. A target that cannot be prepared is
// a result too (unavailable): only a run that wrote no results.json is an error.
func RunInto(ctx context.Context, run RunFunc, cfg harness.Config, dir string) (*report.Results, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	logf, err := os.Create(filepath.Join(dir, "run.log"))
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	cfg.ReportDir, cfg.Log = dir, logf
	_, err = orRun(run)(ctx, cfg)
	if errors.Is(err, harness.ErrInterrupted) {
		return nil, err
	}
	res, readErr := report.ReadResults(filepath.Join(dir, "results.json"))
	if readErr != nil {
		if err == nil {
			err = readErr
		}
		return nil, err
	}
	return res, nil
}

// Lines writes whole lines only: several runs share the console (each line names its run).
type Lines struct {
	mu  sync.Mutex
	W   io.Writer
	buf []byte
}

func (p *Lines) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.buf = append(p.buf, b...)
	for {
		i := strings.IndexByte(string(p.buf), '\n')
		if i < 0 {
			return len(b), nil
		}
		if _, err := fmt.Fprintf(p.W, "%s\n", p.buf[:i]); err != nil {
			return 0, err
		}
		p.buf = p.buf[i+1:]
	}
}
