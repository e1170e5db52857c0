package harness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sync"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/container"
	"github.com/copilot-sdk-conformance/conformance/internal/driver"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/runtime"
	"github.com/copilot-sdk-conformance/conformance/internal/suite"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
)

// target is one SDK's side of a run: the steps reach the driver and report outcomes through it.
type target struct {
	name        string
	unavailable string
	hello       *driver.Hello
	launcher    driver.Launcher
	validator   *driver.Validator // -V: every driver line checked against the protocol schema
	timeout     time.Duration
	reportDir   string
	rtOpts      runtime.Options
	self        []string
	progress    io.Writer
	finished    func(suite.Outcome)
	// ctx is the run's: when it ends (SIGINT, SIGTERM) the driver is killed, no new one starts,
	// and the scenarios left are not run (interrupt).
	ctx      context.Context
	selected map[string]bool // a shard's scenarios (feature\tscenario); nil: all

	mu     sync.Mutex
	client *driver.Client
}

func (t *target) SDK() string         { return t.name }
func (t *target) Unavailable() string { return t.unavailable }
func (t *target) Capability(name string) (bool, string) {
	if t.hello == nil {
		return false, ""
	}
	return t.hello.Capabilities[name], t.hello.Notes[name]
}
func (t *target) CommandTimeout() time.Duration   { return t.timeout }
func (t *target) RuntimeOptions() runtime.Options { return t.rtOpts }
func (t *target) SchemaLoaded() bool              { return t.rtOpts.Check != nil }
func (t *target) StdioRuntime() []string          { return t.self }

// Finished passes on a scenario's outcome, except one cut short by an interrupt: it is not a
// result (what ran before is kept in the reports).
func (t *target) Finished(o suite.Outcome) {
	if t.interrupted() {
		return
	}
	t.finished(o)
}

func (t *target) interrupted() bool { return t.ctx != nil && t.ctx.Err() != nil }

// errInterrupted ends every scenario that would start after an interrupt.
var errInterrupted = errors.New("the run was interrupted")

// interrupt ends the driver (its whole process group) at once, for a run that was interrupted.
func (t *target) interrupt() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.client != nil {
		t.client.Kill()
	}
}

// Transcript is written into the report folder as it happens.
func (t *target) Transcript(feature, scenario string) (*transcript.Recorder, string, error) {
	if t.interrupted() {
		return nil, "", errInterrupted
	}
	path := filepath.Join(t.reportDir, report.TranscriptRel(t.name, feature, scenario))
	rec, err := transcript.New(path)
	return rec, path, err
}

// Driver returns the running driver, starting a new one after a crash or a kill.
func (t *target) Driver(ctx context.Context) (*driver.Client, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.interrupted() {
		return nil, errInterrupted
	}
	if t.client != nil && t.client.Alive() {
		return t.client, nil
	}
	if t.client != nil {
		fmt.Fprintf(t.progress, "[%s] driver exited; starting a new one\n", t.name)
	}
	c, _, err := driver.Handshake(ctx, t.launcher, t.name, t.timeout, t.validator)
	if err != nil {
		return nil, err
	}
	t.client = c
	return c, nil
}

func (t *target) KillDriver() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.client != nil {
		t.client.Kill()
	}
}

func (t *target) close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.client != nil {
		t.client.Close(5 * time.Second)
		t.client = nil
	}
	var stderrLog io.Writer
	switch l := t.launcher.(type) {
	case driver.Local:
		stderrLog = l.StderrLog
	case *container.Launcher:
		stderrLog = l.StderrLog
	}
	if f, ok := stderrLog.(interface{ Flush() }); ok {
		f.Flush()
	}
}
