package steps

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/copilot-sdk-conformance/conformance/internal/jsonform"
	"os"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/driver"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/standin"
	"github.com/copilot-sdk-conformance/conformance/internal/suite"
	"github.com/copilot-sdk-conformance/conformance/internal/surface"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/cucumber/godog"
	messages "github.com/cucumber/messages/go/v34"
)

// ErrUnsupported marks a step the SDK version cannot perform (suite.ErrUnsupported): godog
// skips the rest of the scenario and the harness reports it as unsupported, never as passed.
type ErrUnsupported = suite.ErrUnsupported

// ErrUnavailable marks a step whose input this run does not have (suite.ErrUnavailable): a
// setup problem reported unavailable with its reason, never unsupported and never passed.
type ErrUnavailable = suite.ErrUnavailable

// world is the state of one scenario on one SDK.
type world struct {
	T       suite.Target
	Ctx     context.Context
	Feature string
	Name    string

	Suite        *suite.Scenario // the running scenario, as the harness opened it
	Rec             *transcript.Recorder
	RT              suite.Runtime // the stand-in, or a proxy in front of the real runtime
	Addr            string
	StdioLog        string   // transcript written by a runtime the SDK spawned itself
	TempDirs        []string // removed when the scenario ends (the stdio wrapper scripts)
	Clients         []string
	Stopped         int // clients a sweep stopped before the scenario's end: no handle is used twice
	Tools           []map[string]any
	Sessions        []Session
	Reply           json.RawMessage
	turn            standin.Turn     // what the scripted model does on the next send
	tried           *driver.Response // the outcome of the last "tries to" step
	Observations    map[string]string
	lastErr         *driver.Response // the last command that ended in an SDK error
	Checked         []report.Check
	failures        []suite.Failure          // the failed checks so far (see checking)
	step            *godog.Step              // the step running now
	stepChecks      int                      // len(checked) when it began
	replacements    int                      // replacements made at once by the last "replaced N times at once"
	sweep           []*sweepCall             // the generated calls of the schema sweep (generated.go)
	resultsOnly     bool                     // the sweep judges results only (answerEveryMethod): no request check follows
	handlers        map[string]*handlerSpec  // the application's runtime-to-SDK handlers (handlers.go)
	hookInputs      map[string]hookInputType // each hook type's input as the SDK declares it (hookinputs.go)
	exchange        *exchangeSpec            // the application's request handler and the model requests sent (exchanges.go)
	asked           []asked                  // requests the scenario had the runtime send the SDK (requests.go)
	events          []sentEvent              // the generated events sent (generated_events.go)
	encoded         *encodingTally           // what a sweep sent in another legal encoding (encodings.go)
	paramsForm      jsonform.Form            // the form runtime-to-SDK params are written in (encodings.go)
	surface         *surface.Result          // what the surface probe found (surface.go)
	surfaceHandlers *handlerResult           // what registering every declared handler found (surfacehandlers.go)
	order           *orderResult             // what setting each option and handler alone found (ordersweep.go)
	surfaceReached  *reached                 // which handlers the runtime's calls reached (surfacereached.go)
	holds           []*holdPhase             // each kind held with the others sent meanwhile (pending.go)
	resolved        *resolvedPhases          // request events sent, repeated and resolved (resolved.go)
	cancel          *cancelled               // the call the application cancelled (cancel.go)
	caseMarks       []caseMark               // where each case of a runtime-to-SDK sweep began (cases.go)
	cancelRPC       *cancelRPC               // the generated method the runtime withholds (cancel.go)
	// held is the sink a sweep keeps on the driver between its commands (the lines the driver
	// writes while no command is in flight), restored after each command; nil otherwise.
	held func(driver.Line)
	// lost is why the scenario can no longer reach its SDK, once it cannot (gone): every later
	// command fails with it at once.
	lost error
}

type Session struct{ Handle, ID, Client string }

// Initializer returns godog's scenario initializer for one SDK (a suite.Initializer): the
// phrases and the steps' side of each scenario. The harness wraps it in the scenario's
// lifecycle (which scenarios run, the transcript, the @requires gate, the recording runtime,
// the outcome); the steps see a scenario that reached the SDK through t.Scenario().
func Initializer(t suite.Target) func(*godog.ScenarioContext) {
	return func(sc *godog.ScenarioContext) {
		w := &world{T: t}
		sc.Before(func(ctx context.Context, _ *godog.Scenario) (context.Context, error) {
			w.Begin(ctx)
			return ctx, nil
		})
		sc.After(func(ctx context.Context, _ *godog.Scenario, _ error) (context.Context, error) {
			w.End()
			return ctx, nil
		})
		w.trackSteps(sc)
		w.register(checking{sc, w})
	}
}

// trackSteps records the running step and the checks made before it, for checking.
func (w *world) trackSteps(sc *godog.ScenarioContext) {
	sc.StepContext().Before(func(ctx context.Context, st *godog.Step) (context.Context, error) {
		w.step = st
		w.stepChecks = len(w.Checked)
		return ctx, nil
	})
}

// checking binds step handlers so that a failed check (a Then step) is recorded and the
// scenario goes on: godog ends a scenario at its first failing step, which would let an
// expected failure hide every later check. The handler's error is kept in the world and godog
// is told the step passed; the scenario's outcome lists every failure, and the harness matches
// each against the manifest. A Given or When step that fails still ends the scenario (what
// follows depends on it), and so does an unsupported Then step.
type checking struct {
	sc *godog.ScenarioContext
	w  *world
}

func (c checking) Step(expr, stepFunc interface{}) {
	expr = phrase(expr)
	fn := reflect.ValueOf(stepFunc)
	errType := reflect.TypeOf((*error)(nil)).Elem()
	t := fn.Type()
	if t.NumOut() != 1 || t.Out(0) != errType {
		c.sc.Step(expr, stepFunc)
		return
	}
	c.sc.Step(expr, reflect.MakeFunc(t, func(args []reflect.Value) []reflect.Value {
		out := fn.Call(args)
		err, _ := out[0].Interface().(error)
		st := c.w.step
		// A lost driver ends the scenario even in a Then step: every later check would only
		// repeat the loss.
		if err == nil || st == nil || st.Type != messages.PickleStepType_OUTCOME || errors.Is(err, godog.ErrSkip) || driver.EndsScenario(err) {
			return out
		}
		c.w.fail(st, err)
		return []reflect.Value{reflect.Zero(errType)}
	}).Interface())
}

// compiled holds each phrase's regexp, compiled once per run: godog compiles a string pattern
// at every binding, and the phrases are bound once per scenario (measured: 13% of the harness's
// CPU time in a run of two SDKs).
var compiled sync.Map // pattern -> *regexp.Regexp

func phrase(expr interface{}) interface{} {
	s, ok := expr.(string)
	if !ok {
		return expr
	}
	if re, ok := compiled.Load(s); ok {
		return re
	}
	re, _ := compiled.LoadOrStore(s, regexp.MustCompile(s))
	return re
}

// fail records a failed check with the payload checks its step made.
func (w *world) fail(st *godog.Step, err error) {
	var checked []report.Check
	if w.stepChecks <= len(w.Checked) {
		checked = append(checked, w.Checked[w.stepChecks:]...)
	}
	f := suite.Failure{Step: st.Text, Message: fmt.Sprintf("step %q: %v", st.Text, err), Checked: checked}
	var list *suite.Divergences
	if errors.As(err, &list) {
		for _, it := range list.Items {
			f.Items = append(f.Items, fmt.Sprintf("step %q: %s", st.Text, it))
		}
	}
	w.failures = append(w.failures, f)
}

// Begin takes the scenario the harness opened, when it reaches the SDK.
func (w *world) Begin(ctx context.Context) {
	s := w.T.Scenario()
	if s == nil {
		return
	}
	w.Ctx, w.Suite = ctx, s
	w.Feature, w.Name = s.Feature, s.Name
	w.Rec, w.RT, w.Addr = s.Rec, s.Runtime, s.Addr
}

// End lets a turn still being played finish, releases the SDK's clients and leaves the steps'
// findings for the outcome; the harness then closes the runtime and the transcript.
func (w *world) End() {
	s := w.Suite
	if s == nil {
		*w = world{T: w.T}
		return
	}
	wctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	_ = w.RT.Wait(wctx)
	cancel()
	if err := w.StopClients(); err != nil && s.Err == nil {
		s.Err = fmt.Errorf("stopping the SDK client: %w", err)
	}
	w.noteCases() // the sweeps' requests are all in once the clients are stopped
	w.importStdio()
	if s.Err == nil {
		s.Err = sdkFrameFault(w.Entries())
	}
	s.Checked, s.Observations, s.Failures = w.Checked, w.Observations, w.failures
	for _, d := range w.TempDirs {
		_ = os.RemoveAll(d)
	}
	*w = world{T: w.T}
}

// Call sends one driver command, recording both lines in the transcript. A driver that hung or
// broke the protocol is killed, so the next scenario gets a fresh one.
func (w *world) Call(cmd string, args any) (*driver.Response, error) {
	rs, err := w.CallAll(cmd, []any{args})
	if rs == nil {
		return nil, err
	}
	return rs[0], err
}

// CallAll sends one command per args at once, recording every line in the transcript, and
// returns their responses and their errors (joined when there are several). A line that is not
// protocol JSON is a driver fault, not noise: stdout carries only protocol JSON.
func (w *world) CallAll(cmd string, args []any) ([]*driver.Response, error) {
	return w.CallAllWithin(cmd, args, w.T.CommandTimeout())
}

// CallAllWithin is callAll with a timeout of its own for each command.
func (w *world) CallAllWithin(cmd string, args []any, timeout time.Duration) ([]*driver.Response, error) {
	if w.lost != nil {
		return nil, w.lost
	}
	d, err := w.T.Driver(w.Ctx)
	if err != nil {
		return nil, w.lose(err)
	}
	var mu sync.Mutex
	var bad error
	d.SetSink(func(l driver.Line) {
		if err := w.record(l); err != nil {
			mu.Lock()
			if bad == nil {
				bad = err
			}
			mu.Unlock()
		}
	})
	defer d.SetSink(w.held)
	rs := make([]*driver.Response, len(args))
	errs := make([]error, len(args))
	var wg sync.WaitGroup
	for i, a := range args {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rs[i], errs[i] = d.Call(w.Ctx, cmd, a, timeout)
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
	w.failed(err)
	return rs, err
}

// failed notes a driver failure in the transcript; a driver that hung or broke the protocol is
// killed, so the next scenario gets a fresh one.
func (w *world) failed(err error) {
	var f *driver.Failure
	if errors.As(err, &f) {
		w.Rec.Notef("driver", "%s", f.Error())
		if f.Kind != "crashed" {
			w.T.KillDriver()
		}
		if w.lost == nil {
			w.lost = f
		}
	}
}

// Gone is why the scenario can no longer reach its SDK, nil while it can: its driver crashed or
// was killed (a hang, a protocol break, the scenario's deadline), or the run was interrupted. A
// step that loops over generated cases asks before each, so that a lost driver ends it at once
// instead of each case waiting out its timeout.
func (w *world) Gone() error {
	if w.lost != nil {
		return w.lost
	}
	d, err := w.T.Driver(w.Ctx)
	if err == nil && !d.Alive() {
		_, err = w.T.Driver(w.Ctx) // the lease records the loss and returns it
	}
	if err == nil && w.Ctx.Err() != nil {
		err = &driver.Failure{Kind: "timed out", Detail: context.Cause(w.Ctx).Error(), Stderr: d.StderrTail()}
	}
	if err != nil {
		return w.lose(err)
	}
	return nil
}

// lose records that the scenario lost its driver: the first loss is kept, and noted in the
// transcript, whichever path found it (a command, gone, a lease that saw the exit first).
func (w *world) lose(err error) error {
	if w.lost == nil {
		w.lost = err
		w.Rec.Notef("driver", "%v", err)
	}
	return w.lost
}

// probeWait bounds the liveness probe (responsive): a driver answers hello from its own command
// loop in milliseconds, whatever its SDK is doing.
const probeWait = 10 * time.Second

// Responsive checks, after the SDK left a call of the runtime unanswered (asked: the call's
// error), that its driver still answers a command (roundTrip). Any other error of the call (a
// closed connection, a call the replayed recording does not hold) asks nothing of the driver.
func (w *world) Responsive(asked error) error {
	if !errors.Is(asked, standin.ErrUnanswered) {
		return nil
	}
	if err := w.RoundTrip(); err != nil {
		return fmt.Errorf("the SDK left a call of the runtime unanswered, and: %w", err)
	}
	return nil
}

// RoundTrip sends the driver a hello and waits for its answer, for at most probeWait: the lines
// the driver wrote before it are read by then (a sweep's reports), and a driver that does not
// answer is hung: it is killed and the error ends the sweep, so a hang costs one short wait.
func (w *world) RoundTrip() error {
	wait := min(w.T.CommandTimeout(), probeWait)
	r, err := w.CallAllWithin("hello", []any{map[string]any{}}, wait)
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
func (w *world) ConnectionLost(err error) error {
	d, derr := w.T.Driver(w.Ctx)
	if derr == nil {
		select {
		case <-d.Done():
		case <-time.After(2 * time.Second):
		}
	}
	if lost := w.Gone(); lost != nil {
		return lost
	}
	return fmt.Errorf("the SDK closed its connection to the runtime while the runtime's requests were pending; its driver still runs: %w", err)
}

// Expect announces n generated cases to the scenario's deadline (suite.Budget).
func (w *world) Expect(n int) { w.Suite.Budget.Expect(n) }

// StopClients stops every client the scenario opened: all at once on a driver that serves
// commands concurrently (a Python client's stop waits a second for its reader thread, and the
// surface scenario's 23 clients took 23 s one after the other), else one after the other. It
// returns the first error (all of them, joined, when stopped at once).
func (w *world) StopClients() error {
	if len(w.Clients) == 0 || w.lost != nil {
		return nil // a lost driver took its clients with it
	}
	args := make([]any, len(w.Clients))
	for i, c := range w.Clients {
		args[i] = map[string]any{"client": c}
	}
	if concurrent, _ := w.T.Capability("driver.concurrent"); concurrent {
		_, err := w.CallAll("stopClient", args)
		return err
	}
	var first error
	for _, a := range args {
		if _, err := w.Call("stopClient", a); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// DriverLine records a line the driver sends between commands (a sweep's events).
func (w *world) DriverLine(l driver.Line) { _ = w.record(l) }

// HoldDriverLines keeps the lines the driver writes while no command is in flight (a sweep's
// handler reports) going to the transcript, across commands and their flushes, until release:
// a report read between two commands would otherwise be dropped, and its call read as never
// handled. The one place the sweeps set w.held.
func (w *world) HoldDriverLines() (release func(), err error) {
	d, err := w.T.Driver(w.Ctx)
	if err != nil {
		return nil, err
	}
	w.held = w.DriverLine
	d.SetSink(w.held)
	return func() { w.held = nil; d.SetSink(nil) }, nil
}

// record writes one driver line to the transcript; a line that is not protocol JSON is recorded
// as such and returned as an error.
func (w *world) record(l driver.Line) error {
	if w.Rec == nil {
		return nil
	}
	dir := transcript.DriverToHarness
	if l.ToDriver {
		dir = transcript.HarnessToDriver
	}
	if l.Err != nil {
		w.Rec.Bad("driver", dir, l.Body, l.Err)
		return fmt.Errorf("line %.200q: %w", l.Body, l.Err)
	}
	w.Rec.Frame("driver", dir, l.Body)
	return nil
}

// Do sends a command that must succeed: an SDK error or an unsupported outcome is the step's error.
func (w *world) Do(cmd string, args any) (json.RawMessage, error) {
	if err := w.Lacking(cmd, args); err != nil {
		return nil, err
	}
	since := w.Mark()
	r, err := w.Call(cmd, args)
	if err != nil {
		return nil, w.Because(err, since)
	}
	switch r.Outcome {
	case driver.Unsupported:
		return nil, w.Unsupported(cmd, args, r)
	case driver.Error:
		w.lastErr = r
		return nil, w.Because(fmt.Errorf("%s: the SDK raised %s", cmd, r.ErrorText()), since)
	}
	return r.Result, nil
}

// Entries is the scenario's transcript so far, with what a self-spawned runtime recorded.
func (w *world) Entries() []transcript.Entry {
	out := w.Rec.Entries()
	if w.StdioLog != "" {
		if more, err := transcript.Read(w.StdioLog); err == nil {
			out = append(out, more...)
		}
	}
	return out
}

// importStdio copies what a self-spawned runtime recorded into the scenario's transcript, so
// one file holds every frame.
func (w *world) importStdio() {
	if w.StdioLog == "" {
		return
	}
	more, err := transcript.Read(w.StdioLog)
	if err != nil {
		w.Rec.Notef("", "reading the spawned runtime's transcript %s: %v", w.StdioLog, err)
		return
	}
	for _, e := range more {
		e.Conn = strings.TrimSuffix(transcript.SpawnedConn+"-"+e.Conn, "-")
		w.Rec.Add(e)
	}
	_ = os.Remove(w.StdioLog)
}

// StandIn is the scenario's stand-in runtime, for a step that scripts what only the stand-in
// can be made to do; on a runtime that lacks capability (suite.Lacker) the step is unsupported,
// with that runtime's reason.
func (w *world) StandIn(capability string) (*standin.Server, error) {
	if l, ok := w.RT.(suite.Lacker); ok {
		if why, lacking := l.Lacks(capability); lacking {
			return nil, &ErrUnsupported{Reason: why, Capability: capability}
		}
	}
	s, ok := w.RT.(*standin.Server)
	if !ok {
		return nil, &ErrUnsupported{Reason: fmt.Sprintf("this runtime cannot be scripted (%s)", capability), Capability: capability}
	}
	return s, nil
}

// RuntimeCan is standIn for a step that only needs to know the runtime can do it.
func (w *world) RuntimeCan(capability string) error { _, err := w.StandIn(capability); return err }

// Lacks says whether the driver Lacks capability c, with the sentence that reports it and the
// driver's note.
func (w *world) Lacks(c string) (reason, note string, lacking bool) { return suite.Lacks(w.T, c) }

// Unsupported is the error for a driver's Unsupported answer to cmd. An Unsupported answer
// must name a capability the driver declared false: one the command needs (commandNeeds) and
// the driver lacks. A driver that declared every capability the command needs and still answers
// Unsupported has a fault: the scenario fails, it is not excused as Unsupported.
func (w *world) Unsupported(cmd string, args any, r *driver.Response) error {
	needed := commandNeeds(cmd, args)
	for _, c := range needed {
		if has, _ := w.T.Capability(c); !has {
			return &ErrUnsupported{Reason: r.Reason, Capability: c}
		}
	}
	declared := "none beyond the baseline every driver has"
	if len(needed) > 0 {
		declared = strings.Join(needed, ", ")
	}
	return fmt.Errorf("driver fault: the %s driver answered unsupported to %s, which needs only capabilities it declared in hello (%s): %s", w.T.SDK(), cmd, declared, r.Reason)
}

// Lacking is the unsupported error for the first capability cmd needs that the driver lacks,
// checked before the command is sent: the harness never sends what the driver did not declare.
func (w *world) Lacking(cmd string, args any) error {
	return w.Needs(commandNeeds(cmd, args)...)
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
