package surfacehandlers

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/driver"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/surface"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/copilot-sdk-conformance/conformance/internal/wire"
	"github.com/copilot-sdk-conformance/conformance/steps/declared"
	"github.com/copilot-sdk-conformance/conformance/steps/jsondiff"
	"github.com/copilot-sdk-conformance/conformance/steps/scenario"
)

// Every handler the application can register through the SDK's config (the surface entries of
// kind handler, read by the driver from the SDK's declarations: nothing here names one), alone
// and all together, on create and on resume: which keys of the request each announces, that the
// announcement is the same alone and together and on create and resume, and that nothing naming
// a session goes out before its create/resume is answered.

// engine is the sweep's own state over the scenario's core.
type engine struct {
	*scenario.Scenario
	surfaceHandlers *handlerResult // what registering every declared handler found (surfacehandlers.go)
}

// Register binds the sweep's phrases on sc for the scenario s.
func Register(sc scenario.Binder, s *scenario.Scenario) {
	w := &engine{Scenario: s}
	scenario.Needing(sc, scenario.Needs("surface", "surface.handlers", "session.resume")).Step(`^every handler the SDK declares is registered alone and all together, on create and on resume$`, w.probeHandlers)
	sc.Step(`^each handler announces the same flags alone and together, on create and on resume, and nothing names a session before it is opened$`, w.handlersClean)
}

// handlerProbe is what registering one set of handlers put in the request.
type handlerProbe struct {
	request string
	names   []string // the SDK's own names; empty for the baseline
	params  map[string]any
}

// handlerResult is what probeHandlers found.
type handlerResult struct {
	flags    map[string]map[string]string // request -> handler key -> "key=value, …" ("" none)
	names    map[string]string            // handler key -> the SDK's name
	problems []string
	skipped  []string
}

func (w *engine) probeHandlers() error {
	entries, err := declared.Entries(w.Scenario)
	if err != nil {
		return err
	}
	res := &handlerResult{flags: map[string]map[string]string{}, names: map[string]string{}}
	for _, a := range surface.Actions {
		var hs []surface.Entry
		for _, e := range entries {
			if e.Owner == a.Owner && e.Kind == "handler" {
				hs = append(hs, e)
			}
		}
		if len(hs) == 0 {
			res.problems = append(res.problems, fmt.Sprintf("%s declares no handler", a.Owner))
			continue
		}
		c, err := w.Connect()
		if err != nil {
			return err
		}
		resumeID := ""
		if a.Request == "session.resume" {
			if _, resumeID, err = declared.Open(w.Scenario, c, "", nil); err != nil {
				return fmt.Errorf("creating the session to resume: %w", err)
			}
		}
		base, _, err := declared.Open(w.Scenario, c, resumeID, nil)
		if err != nil {
			return err
		}
		base2, _, err := declared.Open(w.Scenario, c, resumeID, nil)
		if err != nil {
			return err
		}
		flags := map[string]string{}
		union := map[string]any{}
		var all []string
		for _, h := range hs {
			res.names[h.Key()] = h.Name
			p, _, err := declared.Open(w.Scenario, c, resumeID, []string{h.Name})
			var unsup *scenario.ErrUnsupported
			switch {
			case declared.AsUnsupported(err, &unsup):
				res.skipped = append(res.skipped, fmt.Sprintf("%s.%s: %s", a.Owner, h.Name, unsup.Reason))
				continue
			case driver.EndsScenario(err):
				return scenario.CutShort(err, len(all), len(hs), a.Owner+"."+h.Name)
			case err != nil:
				res.problems = append(res.problems, fmt.Sprintf("%s.%s registered alone: %s refused it: %v", a.Owner, h.Name, a.Request, err))
				continue
			}
			all = append(all, h.Name)
			changed := declared.ChangedKeys(base, base2, p)
			flags[h.Key()] = showKeys(p, changed)
			for _, k := range changed {
				if prev, ok := union[k]; ok && !reflect.DeepEqual(prev, p[k]) {
					res.problems = append(res.problems, fmt.Sprintf("%s: %s is %s with %s alone, %s with another handler alone", a.Request, k, jsondiff.Show(p[k]), h.Name, jsondiff.Show(prev)))
				}
				union[k] = p[k]
			}
		}
		res.flags[a.Request] = flags
		if len(all) > 1 {
			p, _, err := declared.Open(w.Scenario, c, resumeID, all)
			if err != nil {
				res.problems = append(res.problems, fmt.Sprintf("%s with every handler registered (%s): %v", a.Request, strings.Join(all, ", "), err))
			} else {
				changed := declared.ChangedKeys(base, base2, p)
				got := map[string]any{}
				for _, k := range changed {
					got[k] = p[k]
				}
				if !reflect.DeepEqual(got, union) {
					res.problems = append(res.problems, fmt.Sprintf("%s with every handler registered announces %s; registered one at a time they announce %s",
						a.Request, showKeys(got, slices.Sorted(maps.Keys(got))), showKeys(union, slices.Sorted(maps.Keys(union)))))
				}
			}
		}
	}
	// Create and resume: the same handler announces the same keys.
	for key, onCreate := range res.flags["session.create"] {
		if onResume, ok := res.flags["session.resume"][key]; ok && onResume != onCreate {
			res.problems = append(res.problems, fmt.Sprintf("%s announces %s on session.create but %s on session.resume",
				res.names[key], orNone(onCreate), orNone(onResume)))
		}
	}
	res.problems = append(res.problems, w.requestsBeforeOpened()...)
	for req, byKey := range res.flags {
		for key, v := range byKey {
			w.Observe(surface.ObservationPrefix+req+" "+surface.HandlerPrefix+key, orNone(v))
		}
	}
	for _, a := range surface.Actions {
		w.Checked = append(w.Checked, report.Check{Method: a.Request})
	}
	w.Rec.Notef("", "handlers: %d announced on create, %d on resume; not registered (driver or SDK): %s",
		len(res.flags["session.create"]), len(res.flags["session.resume"]), strings.Join(res.skipped, "; "))
	w.surfaceHandlers = res
	return nil
}

func showKeys(p map[string]any, keys []string) string {
	var out []string
	for _, k := range keys {
		v, ok := p[k]
		if !ok {
			out = append(out, k+" dropped")
			continue
		}
		out = append(out, k+"="+jsondiff.Show(v))
	}
	return strings.Join(out, ", ")
}

func orNone(s string) string {
	if s == "" {
		return "no key"
	}
	return s
}

// requestsBeforeOpened checks every create and resume of the transcript: a request naming the
// session it opens, on the same connection, before the runtime answered it.
func (w *engine) requestsBeforeOpened() []string {
	entries := w.Rec.Entries()
	answers := map[string]int{} // conn + id -> seq of the answer
	for _, e := range entries {
		if e.Dir != transcript.RuntimeToSDK {
			continue
		}
		var m wire.Message
		if json.Unmarshal(e.Frame, &m) == nil && m.IsResponse() {
			answers[e.Conn+"\x00"+string(m.ID)] = e.Seq
		}
	}
	var out []string
	for _, method := range []string{"session.create", "session.resume"} {
		for _, req := range transcript.Requests(entries, method) {
			answered := answers[req.Conn+"\x00"+scenario.RequestID(entries, req.Seq)]
			var p struct {
				SessionID string `json:"sessionId"`
			}
			_ = json.Unmarshal(req.Params, &p)
			if p.SessionID == "" {
				continue // the SDK let the runtime choose: nothing can name it before the answer
			}
			for _, r := range w.Naming(req.Conn, p.SessionID, req.Seq) {
				if r.Seq > req.Seq && (answered == 0 || r.Seq < answered) {
					out = append(out, fmt.Sprintf("%s (seq %d) named the session before its %s (seq %d) was answered", r.Method, r.Seq, method, req.Seq))
				}
			}
		}
	}
	return out
}

func (w *engine) handlersClean() error {
	if w.surfaceHandlers == nil {
		return fmt.Errorf("no handlers were registered in this scenario")
	}
	if len(w.surfaceHandlers.problems) == 0 {
		return nil
	}
	return fmt.Errorf("%d handler problems:\n  %s", len(w.surfaceHandlers.problems), strings.Join(w.surfaceHandlers.problems, "\n  "))
}
