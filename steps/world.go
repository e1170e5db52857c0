package steps

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/driver"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/runtime"
	"github.com/copilot-sdk-conformance/conformance/internal/suite"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/cucumber/godog"
	messages "github.com/cucumber/messages/go/v34"
)

// ErrUnsupported marks a step the SDK version cannot perform. It wraps godog.ErrSkip so godog
// skips the rest of the scenario; the harness reports it as unsupported, never as passed.
type ErrUnsupported struct {
	Reason     string
	Capability string // the capability the SDK lacks, when known
}

func (e *ErrUnsupported) Error() string { return "unsupported: " + e.Reason }
func (e *ErrUnsupported) Unwrap() error { return godog.ErrSkip }

// world is the state of one scenario on one SDK.
type world struct {
	t       suite.Target
	ctx     context.Context
	feature string
	name    string

	rec          *transcript.Recorder
	rt           *runtime.Server
	addr         string
	stdioLog     string // transcript written by a runtime the SDK spawned itself
	clients      []string
	tools        []map[string]any
	sessions     []session
	reply        json.RawMessage
	turn         runtime.Turn     // what the scripted model does on the next send
	tried        *driver.Response // the outcome of the last "tries to" step
	replacements int              // replacements made at once by the last "replaced N times at once"
	observations map[string]string
	transcript   string           // where the transcript is written ("" in memory)
	lastErr      *driver.Response // the last command that ended in an SDK error
	checked      []report.Check
	failures     []suite.Failure // every failed step so far (see checking)
	step         *godog.Step     // the step running now
	stepChecks   int             // len(checked) when it began
	unsupport    string
	capability   string // the capability behind unsupport
	badLine      error  // the first driver line of the current command that was not protocol JSON
	unavailable  string
	sweep        []*sweepCall // the generated calls of the schema sweep (generated.go)
}

type session struct{ handle, id, client string }

// Initializer returns godog's scenario initializer for one SDK (a suite.Initializer). nameFilter,
// when set, runs only scenarios with exactly that name.
func Initializer(t suite.Target, featuresRoot, nameFilter string) func(*godog.ScenarioContext) {
	return func(sc *godog.ScenarioContext) {
		w := &world{t: t}
		sc.Before(func(ctx context.Context, s *godog.Scenario) (context.Context, error) {
			return ctx, w.begin(ctx, s, featuresRoot, nameFilter)
		})
		w.trackSteps(sc)
		sc.After(func(ctx context.Context, s *godog.Scenario, err error) (context.Context, error) {
			w.end(s)
			return ctx, nil
		})
		w.register(checking{sc, w})
	}
}

// trackSteps records the running step (for checking) and every failure of a step.
func (w *world) trackSteps(sc *godog.ScenarioContext) {
	sc.StepContext().Before(func(ctx context.Context, st *godog.Step) (context.Context, error) {
		w.step = st
		w.stepChecks = len(w.checked)
		return ctx, nil
	})
	sc.StepContext().After(func(ctx context.Context, st *godog.Step, status godog.StepResultStatus, err error) (context.Context, error) {
		var un *ErrUnsupported
		switch {
		case errors.As(err, &un):
			if w.unsupport == "" {
				w.unsupport, w.capability = un.Reason, un.Capability
			}
		case status == godog.StepUndefined:
			w.fail(st, fmt.Errorf("step %q is not defined", st.Text))
		case err != nil && !errors.Is(err, godog.ErrSkip):
			w.fail(st, err)
		}
		return ctx, nil
	})
}

// checking binds step handlers so that a failed check (a Then step) is recorded and the
// scenario goes on: godog ends a scenario at its first failing step, which would let an
// expected failure hide every later check. The handler's error is kept in the world and godog
// is told the step passed; the scenario's outcome lists every failure (world.end), and the
// harness matches each against the manifest. A Given or When step that fails still ends the
// scenario (what follows depends on it), and so does an unsupported Then step.
type checking struct {
	sc *godog.ScenarioContext
	w  *world
}

func (c checking) Step(expr, stepFunc interface{}) {
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
		if err == nil || st == nil || st.Type != messages.PickleStepType_OUTCOME || errors.Is(err, godog.ErrSkip) {
			return out
		}
		c.w.fail(st, err)
		return []reflect.Value{reflect.Zero(errType)}
	}).Interface())
}

// fail records a failed step with the payload checks it made.
func (w *world) fail(st *godog.Step, err error) {
	var checked []report.Check
	if w.stepChecks <= len(w.checked) {
		checked = append(checked, w.checked[w.stepChecks:]...)
	}
	w.failures = append(w.failures, suite.Failure{Step: st.Text, Message: fmt.Sprintf("step %q: %v", st.Text, err), Checked: checked})
}

// failed joins the recorded failures into the scenario's error (nil when there are none).
func (w *world) failed() error {
	switch len(w.failures) {
	case 0:
		return nil
	case 1:
		return errors.New(w.failures[0].Message)
	}
	msgs := make([]string, len(w.failures))
	for i, f := range w.failures {
		msgs[i] = fmt.Sprintf("%d. %s", i+1, f.Message)
	}
	return fmt.Errorf("%d steps failed:\n%s", len(w.failures), strings.Join(msgs, "\n"))
}

var (
	errFiltered    = fmt.Errorf("filtered out: %w", godog.ErrSkip)
	errUnavailable = fmt.Errorf("the SDK is unavailable: %w", godog.ErrSkip)
)

func (w *world) begin(ctx context.Context, s *godog.Scenario, featuresRoot, nameFilter string) error {
	w.ctx = ctx
	w.feature = relFeature(featuresRoot, s.Uri)
	w.name = s.Name
	if nameFilter != "" && s.Name != nameFilter {
		return errFiltered // not part of this run: no result at all
	}
	if sel, ok := w.t.(suite.Selector); ok && !sel.Selected(w.feature, w.name) {
		return errFiltered // another shard's
	}
	// Every scenario gets a transcript, even one that never reaches an SDK, so every result
	// names a file that says what happened.
	rec, path, err := w.t.Transcript(w.feature, w.name)
	if err != nil {
		return err
	}
	w.rec, w.transcript = rec, path
	rec.Scenario(transcript.Header{Name: w.name, Feature: w.feature, SDK: w.t.SDK(), SchemaChecked: w.t.SchemaLoaded()})
	if why := w.t.Unavailable(); why != "" {
		rec.Unavailable(why)
		w.unavailable = why
		return errUnavailable
	}
	for _, tag := range s.Tags {
		c, ok := strings.CutPrefix(tag.Name, "@requires.")
		if !ok {
			continue
		}
		if reason, n, lacking := w.lacks(c); lacking {
			rec.Lacks(c, n, reason)
			return &ErrUnsupported{Reason: reason, Capability: c}
		}
	}
	w.rt = runtime.New(rec, w.t.RuntimeOptions())
	w.addr, err = w.rt.Listen("127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("recording runtime: %w", err)
	}
	rec.Notef("", "recording runtime listening on %s", w.addr)
	return nil
}

func (w *world) end(s *godog.Scenario) {
	if w.name != s.Name || w.feature == "" {
		return
	}
	o := suite.Outcome{Feature: w.feature, Scenario: w.name, Unsupported: w.unsupport,
		Unavailable: w.unavailable, Checked: w.checked, Observations: w.observations, Capability: w.capability}
	// An unsupported step after a failed check: the failures stand (they were observed).
	if len(w.failures) > 0 {
		o.Unsupported, o.Capability = "", ""
	}
	// A fault found after the steps (stopping the client, a malformed frame) is one more failure.
	fault := func(err error) {
		if err != nil {
			w.failures = append(w.failures, suite.Failure{Message: err.Error()})
		}
	}
	for _, tag := range s.Tags {
		o.Tags = append(o.Tags, tag.Name)
	}
	filtered := w.rec == nil
	if w.rt != nil {
		// Let a turn still being played finish, then release the SDK's client.
		wctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_ = w.rt.Wait(wctx)
		cancel()
		for _, c := range w.clients {
			if _, err := w.call("stopClient", map[string]any{"client": c}); err != nil && o.Unsupported == "" {
				fault(fmt.Errorf("stopping the SDK client: %w", err))
			}
		}
		w.rt.Close()
		w.importStdio()
	}
	if w.rec != nil {
		if o.Unsupported == "" {
			fault(sdkFrameFault(w.entries()))
		}
		o.SchemaViolations = transcript.Violations(w.entries())
		w.rec.Notef("", "scenario ended")
		if err := w.rec.Close(); err != nil {
			fault(fmt.Errorf("writing the transcript: %w", err))
		}
		o.Transcript = w.transcript
	}
	o.Failures, o.Err = w.failures, w.failed()
	if !filtered {
		w.t.Finished(o)
	}
	*w = world{t: w.t}
}

func relFeature(root, uri string) string {
	if rel, err := filepath.Rel(root, uri); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return filepath.ToSlash(uri)
}

// call sends one driver command, recording both lines in the transcript. A driver that hung or
// broke the protocol is killed, so the next scenario gets a fresh one.
func (w *world) call(cmd string, args any) (*driver.Response, error) {
	d, err := w.t.Driver(w.ctx)
	if err != nil {
		return nil, err
	}
	d.SetSink(w.driverLine)
	defer d.SetSink(nil)
	w.badLine = nil
	r, err := d.Call(w.ctx, cmd, args, w.t.CommandTimeout())
	if err == nil && w.badLine != nil {
		// stdout carries only protocol JSON: anything else is a driver fault, not noise.
		err = d.Fault("protocol", cmd, w.badLine.Error())
	}
	var f *driver.Failure
	if errors.As(err, &f) {
		w.rec.Notef("driver", "%s", f.Error())
		if f.Kind != "crashed" {
			w.t.KillDriver()
		}
	}
	return r, err
}

func (w *world) driverLine(l driver.Line) {
	if w.rec == nil {
		return
	}
	dir := transcript.DriverToHarness
	if l.ToDriver {
		dir = transcript.HarnessToDriver
	}
	if l.Err != nil {
		w.rec.Bad("driver", dir, l.Body, l.Err)
		if w.badLine == nil {
			w.badLine = fmt.Errorf("line %.200q: %w", l.Body, l.Err)
		}
		return
	}
	w.rec.Frame("driver", dir, l.Body)
}

// do sends a command that must succeed: an SDK error or an unsupported outcome is the step's error.
func (w *world) do(cmd string, args any) (json.RawMessage, error) {
	r, err := w.call(cmd, args)
	if err != nil {
		return nil, err
	}
	switch r.Outcome {
	case driver.Unsupported:
		return nil, w.unsupported(cmd, args, r)
	case driver.Error:
		w.lastErr = r
		return nil, fmt.Errorf("%s: the SDK raised %s", cmd, r.ErrorText())
	}
	return r.Result, nil
}

// entries is the scenario's transcript so far, with what a self-spawned runtime recorded.
func (w *world) entries() []transcript.Entry {
	out := w.rec.Entries()
	if w.stdioLog != "" {
		if more, err := transcript.Read(w.stdioLog); err == nil {
			out = append(out, more...)
		}
	}
	return out
}

// importStdio copies what a self-spawned runtime recorded into the scenario's transcript, so
// one file holds every frame.
func (w *world) importStdio() {
	if w.stdioLog == "" {
		return
	}
	more, err := transcript.Read(w.stdioLog)
	if err != nil {
		w.rec.Notef("", "reading the spawned runtime's transcript %s: %v", w.stdioLog, err)
		return
	}
	for _, e := range more {
		e.Conn = strings.TrimSuffix("stdio-"+e.Conn, "-")
		w.rec.Add(e)
	}
	_ = os.Remove(w.stdioLog)
}

// lacks says whether the driver lacks capability c, with the sentence that reports it and the
// driver's note.
func (w *world) lacks(c string) (reason, note string, lacking bool) {
	has, note := w.t.Capability(c)
	if has {
		return "", "", false
	}
	reason = fmt.Sprintf("%s SDK lacks capability %s", w.t.SDK(), c)
	if note != "" {
		reason += ": " + note
	}
	return reason, note, true
}

// unsupported is the error for a driver's unsupported answer to cmd. A driver that declared in
// hello the capability the command needs (commandNeeds) and then answers unsupported has a
// fault: the scenario fails, it is not excused as unsupported.
func (w *world) unsupported(cmd string, args any, r *driver.Response) error {
	c := commandNeeds[cmd]
	if cmd == "connect" {
		c = "transport.tcp"
		if a, ok := args.(map[string]any); ok && a["cliPath"] != nil {
			c = "transport.stdio"
		}
	}
	if c != "" {
		if has, _ := w.t.Capability(c); has {
			return fmt.Errorf("driver fault: the %s driver declared the capability %s in hello but answered unsupported to %s: %s", w.t.SDK(), c, cmd, r.Reason)
		}
	}
	return &ErrUnsupported{Reason: r.Reason, Capability: c}
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
