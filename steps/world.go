package steps

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/driver"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/runtime"
	"github.com/copilot-sdk-conformance/conformance/internal/suite"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/cucumber/godog"
)

// ErrUnsupported marks a step the SDK version cannot perform. It wraps godog.ErrSkip so godog
// skips the rest of the scenario; the harness reports it as unsupported, never as passed.
type ErrUnsupported struct {
	Reason     string
	Capability string // the capability the SDK lacks, when known
}

func (e *ErrUnsupported) Error() string { return "unsupported: " + e.Reason }
func (e *ErrUnsupported) Unwrap() error { return godog.ErrSkip }

// ErrUnavailable marks a step whose input this run does not have (the runtime's published
// schema when no preparation ships it): a setup problem, not something the SDK lacks, so it is
// reported unavailable with the reason, never unsupported and never passed.
type ErrUnavailable struct{ Reason string }

func (e *ErrUnavailable) Error() string { return "unavailable: " + e.Reason }
func (e *ErrUnavailable) Unwrap() error { return godog.ErrSkip }

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
	observations map[string]string
	transcript   string           // where the transcript is written ("" in memory)
	lastErr      *driver.Response // the last command that ended in an SDK error
	checked      []report.Check
	firstErr     error
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
		sc.StepContext().After(func(ctx context.Context, st *godog.Step, status godog.StepResultStatus, err error) (context.Context, error) {
			if w.firstErr == nil && w.unsupport == "" && w.unavailable == "" {
				var un *ErrUnsupported
				var ua *ErrUnavailable
				switch {
				case errors.As(err, &un):
					w.unsupport, w.capability = un.Reason, un.Capability
				case errors.As(err, &ua):
					w.unavailable = ua.Reason
					w.rec.Unavailable(ua.Reason)
				case status == godog.StepUndefined:
					w.firstErr = fmt.Errorf("step %q is not defined", st.Text)
				case err != nil && !errors.Is(err, godog.ErrSkip):
					w.firstErr = fmt.Errorf("step %q: %w", st.Text, err)
				}
			}
			return ctx, nil
		})
		sc.After(func(ctx context.Context, s *godog.Scenario, err error) (context.Context, error) {
			w.end(s)
			return ctx, nil
		})
		w.register(sc)
	}
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
	o := suite.Outcome{Feature: w.feature, Scenario: w.name, Err: w.firstErr, Unsupported: w.unsupport,
		Unavailable: w.unavailable, Checked: w.checked, Observations: w.observations, Capability: w.capability}
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
			if _, err := w.call("stopClient", map[string]any{"client": c}); err != nil && o.Err == nil && o.Unsupported == "" && o.Unavailable == "" {
				o.Err = fmt.Errorf("stopping the SDK client: %w", err)
			}
		}
		w.rt.Close()
		w.importStdio()
	}
	if w.rec != nil {
		if o.Err == nil && o.Unsupported == "" && o.Unavailable == "" {
			o.Err = sdkFrameFault(w.entries())
		}
		o.SchemaViolations = transcript.Violations(w.entries())
		w.rec.Notef("", "scenario ended")
		if err := w.rec.Close(); err != nil && o.Err == nil {
			o.Err = fmt.Errorf("writing the transcript: %w", err)
		}
		o.Transcript = w.transcript
	}
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
	if err := w.lacking(cmd, args); err != nil {
		return nil, err
	}
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

// unsupported is the error for a driver's unsupported answer to cmd. An unsupported answer
// must name a capability the driver declared false: one the command needs (commandNeeds) and
// the driver lacks. A driver that declared every capability the command needs and still answers
// unsupported has a fault: the scenario fails, it is not excused as unsupported.
func (w *world) unsupported(cmd string, args any, r *driver.Response) error {
	needed := commandNeeds(cmd, args)
	for _, c := range needed {
		if has, _ := w.t.Capability(c); !has {
			return &ErrUnsupported{Reason: r.Reason, Capability: c}
		}
	}
	declared := "none beyond the baseline every driver has"
	if len(needed) > 0 {
		declared = strings.Join(needed, ", ")
	}
	return fmt.Errorf("driver fault: the %s driver answered unsupported to %s, which needs only capabilities it declared in hello (%s): %s", w.t.SDK(), cmd, declared, r.Reason)
}

// lacking is the unsupported error for the first capability cmd needs that the driver lacks,
// checked before the command is sent: the harness never sends what the driver did not declare.
func (w *world) lacking(cmd string, args any) error {
	return w.needs(commandNeeds(cmd, args)...)
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
