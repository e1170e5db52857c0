// Package scenario is the core every step of package steps and every sweep (steps/sweeps/...)
// builds on: the state of one scenario on one SDK that every step needs (the target, the
// transcript, the runtime, the SDK's clients and sessions, the checks, failures and
// observations, the case marks) and the helpers over it (a driver command, a check, an
// observation, the driver's lines held between commands, the case keys). What only one sweep
// uses stays in that sweep.
package scenario

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/driver"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/standin"
	"github.com/copilot-sdk-conformance/conformance/internal/suite"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/cucumber/godog"
)

// ErrUnsupported marks a step the SDK version cannot perform (suite.ErrUnsupported): godog
// skips the rest of the scenario and the harness reports it as unsupported, never as passed.
type ErrUnsupported = suite.ErrUnsupported

// ErrUnavailable marks a step whose input this run does not have (suite.ErrUnavailable): a
// setup problem reported unavailable with its reason, never unsupported and never passed.
type ErrUnavailable = suite.ErrUnavailable

// Scenario is the state of one scenario on one SDK that every step needs.
type Scenario struct {
	T       suite.Target
	Ctx     context.Context
	Feature string
	Name    string

	Suite        *suite.Scenario // the running scenario, as the harness opened it
	Rec          *transcript.Recorder
	RT           suite.Runtime // the stand-in, or a proxy in front of the real runtime
	Addr         string
	StdioLog     string   // transcript written by a runtime the SDK spawned itself
	TempDirs     []string // removed when the scenario ends (the stdio wrapper scripts)
	Clients      []string
	Stopped      int // clients a sweep stopped before the scenario's end: no handle is used twice
	Tools        []map[string]any
	Sessions     []Session
	Reply        json.RawMessage
	Turn         standin.Turn // what the scripted model does on the next send
	Observations map[string]string
	Checked      []report.Check
	// Handlers is what the application registers on every client and session it opens (the
	// handler sweep's runtime-to-SDK handlers, as the driver's "handlers" argument); nil for none.
	Handlers func() map[string]any
	// Opened are told each connect, createSession and resumeSession answer (what the SDK
	// registered, the hook inputs it declares).
	Opened []func(cmd string, res json.RawMessage)

	failures   []suite.Failure // the failed checks so far (see checking)
	step       *godog.Step     // the step running now
	stepChecks int             // len(Checked) when it began
	caseMarks  []caseMark      // where each case of a runtime-to-SDK sweep began (cases.go)
	// held is the sink a sweep keeps on the driver between its commands (the lines the driver
	// writes while no command is in flight), restored after each command; nil otherwise.
	held func(driver.Line)
	// lost is why the scenario can no longer reach its SDK, once it cannot (gone): every later
	// command fails with it at once.
	lost error
}

// Session is a session the scenario opened: the driver's handle, the id the SDK reported and
// the client it was opened on.
type Session struct{ Handle, ID, Client string }

// New is the core of a scenario on target t; Bind hooks it into godog's scenario.
func New(t suite.Target) *Scenario { return &Scenario{T: t} }

// Bind begins and ends the scenario with godog's and returns the binder its phrases are bound
// through (checking).
func (s *Scenario) Bind(sc *godog.ScenarioContext) Binder {
	sc.Before(func(ctx context.Context, _ *godog.Scenario) (context.Context, error) {
		s.Begin(ctx)
		return ctx, nil
	})
	sc.After(func(ctx context.Context, _ *godog.Scenario, _ error) (context.Context, error) {
		s.End()
		return ctx, nil
	})
	s.trackSteps(sc)
	return checking{sc, s}
}

// Begin takes the scenario the harness opened, when it reaches the SDK.
func (s *Scenario) Begin(ctx context.Context) {
	sc := s.T.Scenario()
	if sc == nil {
		return
	}
	s.Ctx, s.Suite = ctx, sc
	s.Feature, s.Name = sc.Feature, sc.Name
	s.Rec, s.RT, s.Addr = sc.Rec, sc.Runtime, sc.Addr
}

// End lets a turn still being played finish, releases the SDK's clients and leaves the steps'
// findings for the outcome; the harness then closes the runtime and the transcript.
func (s *Scenario) End() {
	sc := s.Suite
	if sc == nil {
		*s = Scenario{T: s.T, Handlers: s.Handlers, Opened: s.Opened}
		return
	}
	wctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	_ = s.RT.Wait(wctx)
	cancel()
	if err := s.StopClients(); err != nil && sc.Err == nil {
		sc.Err = fmt.Errorf("stopping the SDK client: %w", err)
	}
	s.noteCases() // the sweeps' requests are all in once the clients are stopped
	s.importStdio()
	if sc.Err == nil {
		sc.Err = sdkFrameFault(s.Entries())
	}
	sc.Checked, sc.Observations, sc.Failures = s.Checked, s.Observations, s.failures
	for _, d := range s.TempDirs {
		_ = os.RemoveAll(d)
	}
	*s = Scenario{T: s.T, Handlers: s.Handlers, Opened: s.Opened}
}

// Call sends one driver command, recording both lines in the transcript. A driver that hung or
// broke the protocol is killed, so the next scenario gets a fresh one.
func (s *Scenario) Call(cmd string, args any) (*driver.Response, error) {
	rs, err := s.CallAll(cmd, []any{args})
	if rs == nil {
		return nil, err
	}
	return rs[0], err
}

// CallAll sends one command per args at once, recording every line in the transcript, and
// returns their responses and their errors (joined when there are several). A line that is not
// protocol JSON is a driver fault, not noise: stdout carries only protocol JSON.
func (s *Scenario) CallAll(cmd string, args []any) ([]*driver.Response, error) {
	return s.CallAllWithin(cmd, args, s.T.CommandTimeout())
}

// CallAllWithin is callAll with a timeout of its own for each command.
func (s *Scenario) CallAllWithin(cmd string, args []any, timeout time.Duration) ([]*driver.Response, error) {
	if s.lost != nil {
		return nil, s.lost
	}
	d, err := s.T.Driver(s.Ctx)
	if err != nil {
		return nil, s.lose(err)
	}
	var mu sync.Mutex
	var bad error
	d.SetSink(func(l driver.Line) {
		if err := s.record(l); err != nil {
			mu.Lock()
			if bad == nil {
				bad = err
			}
			mu.Unlock()
		}
	})
	defer d.SetSink(s.held)
	rs := make([]*driver.Response, len(args))
	errs := make([]error, len(args))
	var wg sync.WaitGroup
	for i, a := range args {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rs[i], errs[i] = d.Call(s.Ctx, cmd, a, timeout)
		}()
	}
	wg.Wait()
	err = errors.Join(errs...)
	if len(errs) == 1 {
		err = errs[0]
	}
	if err == nil && bad != nil {
		err = d.Fault("protocol", cmd, bad.Error())
	}
	s.failed(err)
	return rs, err
}

// failed notes a driver failure in the transcript; a driver that hung or broke the protocol is
// killed, so the next scenario gets a fresh one.
func (s *Scenario) failed(err error) {
	var f *driver.Failure
	if errors.As(err, &f) {
		s.Rec.Notef("driver", "%s", f.Error())
		if f.Kind != "crashed" {
			s.T.KillDriver()
		}
		if s.lost == nil {
			s.lost = f
		}
	}
}

// Gone is why the scenario can no longer reach its SDK, nil while it can: its driver crashed or
// was killed (a hang, a protocol break, the scenario's deadline), or the run was interrupted. A
// step that loops over generated cases asks before each, so that a lost driver ends it at once
// instead of each case waiting out its timeout.
func (s *Scenario) Gone() error {
	if s.lost != nil {
		return s.lost
	}
	d, err := s.T.Driver(s.Ctx)
	if err == nil && !d.Alive() {
		_, err = s.T.Driver(s.Ctx) // the lease records the loss and returns it
	}
	if err == nil && s.Ctx.Err() != nil {
		err = &driver.Failure{Kind: "timed out", Detail: context.Cause(s.Ctx).Error(), Stderr: d.StderrTail()}
	}
	if err != nil {
		return s.lose(err)
	}
	return nil
}

// lose records that the scenario lost its driver: the first loss is kept, and noted in the
// transcript, whichever path found it (a command, gone, a lease that saw the exit first).
func (s *Scenario) lose(err error) error {
	if s.lost == nil {
		s.lost = err
		s.Rec.Notef("driver", "%v", err)
	}
	return s.lost
}

// Responsive checks, after the SDK left a call of the runtime unanswered (asked: the call's
// error), that its driver still answers a command (roundTrip). Any other error of the call (a
// closed connection, a call the replayed recording does not hold) asks nothing of the driver.
func (s *Scenario) Responsive(asked error) error {
	if !errors.Is(asked, standin.ErrUnanswered) {
		return nil
	}
	if err := s.RoundTrip(); err != nil {
		return fmt.Errorf("the SDK left a call of the runtime unanswered, and: %w", err)
	}
	return nil
}

// RoundTrip sends the driver a hello and waits for its answer, for at most the command timeout:
// the lines the driver wrote before it are read by then (a sweep's reports), and a driver that
// does not answer is hung: it is killed and the error ends the sweep. Not a shorter wait: a
// driver answers hello from its own command loop in milliseconds when the machine is idle, but
// on a loaded one (CI's concurrent test packages, 2 cores) a shared driver busy with another
// scenario's batch took over 10 s, and killing it failed every scenario it served.
func (s *Scenario) RoundTrip() error {
	wait := s.T.CommandTimeout()
	r, err := s.CallAllWithin("hello", []any{map[string]any{}}, wait)
	if err != nil {
		var f *driver.Failure
		if errors.As(err, &f) && f.Kind == "timed out" {
			return fmt.Errorf("its driver did not answer hello within %s (hung): %w", wait, err)
		}
		return err
	}
	if r[0].Outcome != driver.OK {
		return fmt.Errorf("hello: the driver answered %s", r[0].Outcome)
	}
	return nil
}

// CutShort is the error of a sweep that ended early on err: how far it got, then err.
func CutShort(err error, done, total int, last string) error {
	if last != "" {
		last = "; the last: " + last
	}
	return fmt.Errorf("the sweep ended after %d of %d cases%s: %w", done, total, last, err)
}

// ConnectionLost is the error of a sweep whose runtime call found the SDK's connection closed:
// the driver's crash when it has exited by then (a crash closes the connection first), else the
// closed connection itself, with the driver still running.
func (s *Scenario) ConnectionLost(err error) error {
	d, derr := s.T.Driver(s.Ctx)
	if derr == nil {
		select {
		case <-d.Done():
		case <-time.After(2 * time.Second):
		}
	}
	if lost := s.Gone(); lost != nil {
		return lost
	}
	return fmt.Errorf("the SDK closed its connection to the runtime while the runtime's requests were pending; its driver still runs: %w", err)
}

// Expect announces n generated cases to the scenario's deadline (suite.Budget).
func (s *Scenario) Expect(n int) { s.Suite.Budget.Expect(n) }

// StopClients stops every client the scenario opened: all at once on a driver that serves
// commands concurrently (a Python client's stop waits a second for its reader thread, and the
// surface scenario's 23 clients took 23 s one after the other), else one after the other. It
// returns the first error (all of them, joined, when stopped at once).
func (s *Scenario) StopClients() error {
	if len(s.Clients) == 0 || s.lost != nil {
		return nil // a lost driver took its clients with it
	}
	args := make([]any, len(s.Clients))
	for i, c := range s.Clients {
		args[i] = map[string]any{"client": c}
	}
	if concurrent, _ := s.T.Capability("driver.concurrent"); concurrent {
		_, err := s.CallAll("stopClient", args)
		return err
	}
	var first error
	for _, a := range args {
		if _, err := s.Call("stopClient", a); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// DriverLine records a line the driver sends between commands (a sweep's events).
func (s *Scenario) DriverLine(l driver.Line) { _ = s.record(l) }

// HoldDriverLines keeps the lines the driver writes while no command is in flight (a sweep's
// handler reports) going to the transcript, across commands and their flushes, until release:
// a report read between two commands would otherwise be dropped, and its call read as never
// handled. The one place the sweeps set s.held.
func (s *Scenario) HoldDriverLines() (release func(), err error) {
	d, err := s.T.Driver(s.Ctx)
	if err != nil {
		return nil, err
	}
	s.held = s.DriverLine
	d.SetSink(s.held)
	return func() { s.held = nil; d.SetSink(nil) }, nil
}

// record writes one driver line to the transcript; a line that is not protocol JSON is recorded
// as such and returned as an error.
func (s *Scenario) record(l driver.Line) error {
	if s.Rec == nil {
		return nil
	}
	dir := transcript.DriverToHarness
	if l.ToDriver {
		dir = transcript.HarnessToDriver
	}
	if l.Err != nil {
		s.Rec.Bad("driver", dir, l.Body, l.Err)
		return fmt.Errorf("line %.200q: %w", l.Body, l.Err)
	}
	s.Rec.Frame("driver", dir, l.Body)
	return nil
}

// Do sends a command that must succeed: an SDK error or an unsupported outcome is the step's error.
func (s *Scenario) Do(cmd string, args any) (json.RawMessage, error) {
	if err := s.Lacking(cmd, args); err != nil {
		return nil, err
	}
	since := s.Mark()
	r, err := s.Call(cmd, args)
	if err != nil {
		return nil, s.Because(err, since)
	}
	switch r.Outcome {
	case driver.Unsupported:
		return nil, s.Unsupported(cmd, args, r)
	case driver.Error:
		return nil, s.Because(fmt.Errorf("%s: the SDK raised %s", cmd, r.ErrorText()), since)
	}
	return r.Result, nil
}

// Entries is the scenario's transcript so far, with what a self-spawned runtime recorded.
func (s *Scenario) Entries() []transcript.Entry {
	out := s.Rec.Entries()
	if s.StdioLog != "" {
		if more, err := transcript.Read(s.StdioLog); err == nil {
			out = append(out, more...)
		}
	}
	return out
}

// importStdio copies what a self-spawned runtime recorded into the scenario's transcript, so
// one file holds every frame.
func (s *Scenario) importStdio() {
	if s.StdioLog == "" {
		return
	}
	more, err := transcript.Read(s.StdioLog)
	if err != nil {
		s.Rec.Notef("", "reading the spawned runtime's transcript %s: %v", s.StdioLog, err)
		return
	}
	for _, e := range more {
		e.Conn = strings.TrimSuffix(transcript.SpawnedConn+"-"+e.Conn, "-")
		s.Rec.Add(e)
	}
	_ = os.Remove(s.StdioLog)
}

// StandIn is the scenario's stand-in runtime, for a step that scripts what only the stand-in
// can be made to do; on a runtime that lacks capability (suite.Lacker) the step is unsupported,
// with that runtime's reason.
func (s *Scenario) StandIn(capability string) (*standin.Server, error) {
	if l, ok := s.RT.(suite.Lacker); ok {
		if why, lacking := l.Lacks(capability); lacking {
			return nil, &ErrUnsupported{Reason: why, Capability: capability}
		}
	}
	rt, ok := s.RT.(*standin.Server)
	if !ok {
		return nil, &ErrUnsupported{Reason: fmt.Sprintf("this runtime cannot be scripted (%s)", capability), Capability: capability}
	}
	return rt, nil
}

// RuntimeCan is standIn for a step that only needs to know the runtime can do it.
func (s *Scenario) RuntimeCan(capability string) error { _, err := s.StandIn(capability); return err }

// Lacks says whether the driver Lacks capability c, with the sentence that reports it and the
// driver's note.
func (s *Scenario) Lacks(c string) (reason, note string, lacking bool) { return suite.Lacks(s.T, c) }

// Unsupported is the error for a driver's Unsupported answer to cmd. An Unsupported answer
// must name a capability the driver declared false: one the command needs (CommandNeeds) and
// the driver lacks. A driver that declared every capability the command needs and still answers
// Unsupported has a fault: the scenario fails, it is not excused as Unsupported.
func (s *Scenario) Unsupported(cmd string, args any, r *driver.Response) error {
	needed := CommandNeeds(cmd, args)
	for _, c := range needed {
		if has, _ := s.T.Capability(c); !has {
			return &ErrUnsupported{Reason: r.Reason, Capability: c}
		}
	}
	declared := "none beyond the baseline every driver has"
	if len(needed) > 0 {
		declared = strings.Join(needed, ", ")
	}
	return fmt.Errorf("driver fault: the %s driver answered unsupported to %s, which needs only capabilities it declared in hello (%s): %s", s.T.SDK(), cmd, declared, r.Reason)
}

// Lacking is the unsupported error for the first capability cmd needs that the driver lacks,
// checked before the command is sent: the harness never sends what the driver did not declare.
func (s *Scenario) Lacking(cmd string, args any) error {
	return s.Needs(CommandNeeds(cmd, args)...)
}

// sdkFrameFault is the first thing the SDK sent the runtime that was not a well-formed frame:
// the runtime records it and answers a parse error, and the scenario fails on it, whatever its
// assertions said, so that a malformed stream never passes.
func sdkFrameFault(entries []transcript.Entry) error {
	for _, e := range entries {
		if e.Dir == transcript.SDKToRuntime && e.Error != "" {
			return fmt.Errorf("the SDK sent the runtime bytes that are not a well-formed frame on %s (transcript seq %d): %s", e.Conn, e.Seq, e.Error)
		}
	}
	return nil
}
