package surfacereached

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/schemagen"
	"github.com/copilot-sdk-conformance/conformance/internal/surface"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/copilot-sdk-conformance/conformance/steps/declared"
	"github.com/copilot-sdk-conformance/conformance/steps/scenario"
)

// Every handler the application can register on the session config (the SDK's own inventory,
// as in the surfacehandlers sweep) is reached when the runtime calls it: all of them are registered at
// once through the driver's reporting stand-ins (capability surface.handlers.called), then the
// runtime sends, one at a time, every runtime-to-SDK method of the schema and every event type
// of the session-events schema, each once with its generated required params. Which handlers
// each trigger reached is read from the driver's reports; nothing here names a handler or the
// trigger it belongs to, so an SDK that gains a handler, or routes one to another trigger, shows.

// engine is the sweep's own state over the scenario's core.
type engine struct {
	*scenario.Scenario
	found *reached // which handlers the runtime's calls reached
}

// Register binds the sweep's phrases on sc for the scenario s.
func Register(sc scenario.Binder, s *scenario.Scenario) {
	w := &engine{Scenario: s}
	scenario.Needing(sc, scenario.Needs("surface", "surface.handlers", "surface.handlers.called")).Step(`^every handler the SDK declares is registered at once and the runtime sends every runtime-to-SDK method and every event type of the schema$`, w.reachEveryHandler)
	sc.Step(`^every declared handler was reached by one of them$`, w.everyHandlerReached)
}

// reached is what reachEveryHandler found.
type reached struct {
	registered []string            // the handlers the SDK took, by its own names
	kept       map[string]bool     // names the driver registers anyway (its own callback)
	by         map[string][]string // handler -> the triggers after which it was called
	skipped    []string            // handlers the driver or SDK could not register, with why
	triggers   int
}

func (w *engine) reachEveryHandler() error {
	doc, rt, err := w.ScriptedSweep("every declared handler is reached by the runtime sending every runtime-to-SDK method and every event type of the schema, one at a time, with generated data; the real runtime sends only the requests and events its own work makes")
	if err != nil {
		return err
	}
	entries, err := declared.Entries(w.Scenario)
	if err != nil {
		return err
	}
	res := &reached{kept: map[string]bool{}, by: map[string][]string{}}
	// The client is connected without options: a handler that takes effect only on a client
	// configured for it (Go's CreateSessionFSProvider needs ClientOptions.SessionFS) is not
	// reached, and its SDK's manifest entry says so.
	probe, err := w.Connect()
	if err != nil {
		return err
	}
	// Each alone first: a handler the driver or SDK cannot register is left out, with why.
	// Registering each handler alone and all at once are driver commands: their requests are
	// the case by their place; a trigger's answers name what it sent (caseSends).
	var names []string
	for _, e := range entries {
		if e.Owner != surface.Actions[0].Owner || e.Kind != "handler" {
			continue
		}
		w.CaseStarts("handler " + e.Name + " alone")
		if _, _, err := declared.Open(w.Scenario, probe, "", []string{e.Name}); err != nil {
			var unsup *scenario.ErrUnsupported
			if !declared.AsUnsupported(err, &unsup) {
				return fmt.Errorf("%s registered alone: %w", e.Name, err)
			}
			res.skipped = append(res.skipped, e.Name+": "+unsup.Reason)
			continue
		}
		names = append(names, e.Name)
	}
	if len(names) == 0 {
		return fmt.Errorf("the %s driver registered none of the session config's handlers (%s)", w.T.SDK(), strings.Join(res.skipped, "; "))
	}
	w.CaseStarts("every handler at once")
	c := probe
	cur := w.NewEventCursor()
	cur.Poll()
	handle := fmt.Sprintf("h%d", len(w.Sessions)+1)
	r, err := w.Call("createSession", scenario.MergeHandle(map[string]any{"tools": []any{}, "surfaceHandlers": names}, c, handle))
	if err != nil {
		return err
	}
	if r.Outcome != "ok" {
		return fmt.Errorf("createSession with every handler (%s): %s", strings.Join(names, ", "), r.ErrorText())
	}
	var opened struct {
		SessionID string   `json:"sessionId"`
		Kept      []string `json:"kept"`
	}
	if err := json.Unmarshal(r.Result, &opened); err != nil || opened.SessionID == "" {
		return fmt.Errorf("createSession answered %s: no sessionId", r.Result)
	}
	w.Sessions = append(w.Sessions, scenario.Session{Handle: handle, Client: c, ID: opened.SessionID})
	for _, k := range opened.Kept {
		res.kept[k] = true
	}
	res.registered = names
	created := w.CreateParams()
	rt.SetGeneratedAnswers() // what a handler's answer makes the SDK send is answered too
	// The handlers are the driver's reporting stand-ins: what they answer is the driver's
	// placeholder, not a value the harness chose (the handler sweep judges answers).
	rt.UncheckAnswers("the handlers registered here answer the driver's placeholders")
	// The handlers report between commands: the sink stays set, across the flushes too.
	release, err := w.HoldDriverLines()
	if err != nil {
		return err
	}
	defer release()
	// trigger sends one request or event (send returns once it is done), then waits for the
	// driver, so that the handler calls it caused are recorded before the next trigger
	// (attributeReached reads them from the transcript). The flush follows every trigger, sent
	// or not: a replay answers the recorded commands in order, and its runtime plays only what
	// the recording holds (a trigger that did not go out in the run does not in its replay).
	var stop error
	sent, total := 0, w.triggerCount(doc)
	w.Expect(total)
	trigger := func(send func() bool) {
		if stop != nil {
			return // the driver is gone: the rest would only wait on it
		}
		send()
		w.FlushDriver()
		if err := w.Gone(); err != nil {
			stop = scenario.CutShort(err, sent, total, "")
		}
		sent++
	}
	// ask sends a request and waits for its answer: the driver reports a handler's call before
	// the handler returns, so before the SDK answers, and the trigger's round trip then reads
	// the report. The runtime's own bound on an unanswered request (standin's callWait) is the
	// backstop for a request the SDK never answers; a quiet time alone took a loaded SDK's
	// late handler call for the next trigger's, or for none.
	ask := func(method string, params any, notification bool) {
		trigger(func() bool {
			_, _ = rt.Ask(opened.SessionID, method, params, notification)
			return true
		})
	}
	events, _ := w.T.Capability("events")
	for _, m := range scenario.HandlerMethods(doc) {
		cases, _ := doc.CasesOnce(m)
		for _, cs := range cases {
			if cs.Name == "required" {
				params := w.AsTheRuntimeSends(m, cs.Params, opened.SessionID, created)
				w.CaseSends(m.Name+" required", params)
				ask(m.Name, params, m.Notification)
			}
		}
	}
	for _, et := range doc.EventTypes {
		ev, err := doc.Event(et, "event/"+et.Type+"/with only the required fields", false)
		if err != nil {
			w.Rec.Notef("", "generator: %v", err)
			continue
		}
		if method, ok := requestOf(et.Type); ok {
			// Beside a "X.requested" event the runtime sends the request "x.request" that it
			// awaits an answer to (protocol 2's shape, still served: Go v1.0.14 registers
			// userInput.request, exitPlanMode.request and autoModeSwitch.request, and the real
			// runtime 1.0.85 sends userInput.request), which api.schema.json does not list: its
			// params are the event's data.
			params, _ := ev["data"].(map[string]any)
			params = maps.Clone(params)
			if params == nil {
				params = map[string]any{}
			}
			params["sessionId"] = opened.SessionID
			w.CaseSends(method+" beside "+et.Type, params)
			ask(method, params, false)
		}
		w.CaseSends(et.Type+" required fields", ev)
		trigger(func() bool {
			seen := cur.Counts["session.event"]
			if err := rt.Emit(opened.SessionID, ev); err != nil {
				w.Rec.Notef("", "the runtime did not send the %s event: %v", et.Type, err)
				return false
			}
			// The driver's own event forwarding reports the event once the SDK dispatched it
			// (every SDK reports every event of this sweep): that report is awaited, up to the
			// backstop. Without the events capability nothing reports it, and the event is
			// given scenario.Settle to reach a handler.
			wait := scenario.Settle
			if events {
				wait = w.Backstop()
			}
			for deadline := time.Now().Add(wait); cur.Poll() == seen && time.Now().Before(deadline); {
				time.Sleep(5 * time.Millisecond)
			}
			return true
		})
	}
	if stop != nil {
		return stop
	}
	w.Checked = append(w.Checked, report.Check{Method: surface.Actions[0].Request})
	w.attributeReached(res, handle, opened.SessionID, doc)
	var lines []string
	for _, h := range slices.Sorted(maps.Keys(res.by)) {
		lines = append(lines, h+" <- "+strings.Join(res.by[h], ", "))
	}
	w.Rec.Notef("", "handlers reached (%d triggers sent): %s; not registered: %s", res.triggers, strings.Join(lines, "; "), strings.Join(res.skipped, "; "))
	w.found = res
	return nil
}

// triggerCount is how many triggers the reached sweep sends: the required case of each
// runtime-to-SDK method, each event type, and the request beside each "X.requested" event.
func (w *engine) triggerCount(doc *schemagen.Doc) int {
	n := 0
	for _, m := range scenario.HandlerMethods(doc) {
		cases, _ := doc.CasesOnce(m)
		for _, cs := range cases {
			if cs.Name == "required" {
				n++
			}
		}
	}
	for _, et := range doc.EventTypes {
		n++
		if _, ok := requestOf(et.Type); ok {
			n++
		}
	}
	return n
}

// requestOf is the request that goes with an event type "a_b.requested": "aB.request".
func requestOf(eventType string) (string, bool) {
	name, ok := strings.CutSuffix(eventType, ".requested")
	if !ok || name == "" {
		return "", false
	}
	parts := strings.Split(name, "_")
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "") + ".request", true
}

// attributeReached gives each handler call the driver reported to the trigger the runtime sent
// last before it, read from the transcript: a runtime-to-SDK request of the sweep (a method of
// the schema, or the "x.request" beside an "X.requested" event) or a session.event, and the
// session's own createSession for a call while it opened (a provider asked for a token). The
// sweep sends one trigger at a time and waits for the driver before the next, so the order of
// the transcript is the order of the calls, in a run and in a replay of it alike.
func (w *engine) attributeReached(res *reached, handle, sessionID string, doc *schemagen.Doc) {
	asked := map[string]bool{}
	for _, m := range scenario.HandlerMethods(doc) {
		asked[m.Name] = true
	}
	for _, et := range doc.EventTypes {
		if m, ok := requestOf(et.Type); ok {
			asked[m] = true
		}
	}
	current, swept := "", false
	for _, e := range w.Entries() {
		var f struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Cmd    string          `json:"cmd"`
			Event  string          `json:"event"`
			Args   map[string]any  `json:"args"`
			Params struct {
				SessionID string `json:"sessionId"`
				Event     struct {
					Type string `json:"type"`
				} `json:"event"`
			} `json:"params"`
		}
		if len(e.Frame) == 0 || json.Unmarshal(e.Frame, &f) != nil {
			continue
		}
		switch {
		case e.Dir == transcript.HarnessToDriver && f.Cmd == "createSession" && f.Args["session"] == handle:
			// From the command on: an SDK may call a handler while it builds the request (Rust
			// asks the system-message transform for its section ids).
			current = "session.create"
		case e.Dir == transcript.RuntimeToSDK && asked[f.Method] && current != "":
			current, swept = f.Method, true
			res.triggers++
		case e.Dir == transcript.RuntimeToSDK && swept && f.Method == "session.event" && f.Params.SessionID == sessionID:
			current = "event " + f.Params.Event.Type
			res.triggers++
		case e.Dir == transcript.DriverToHarness && f.Event == "surface.handler.called" && current != "":
			h, _ := f.Args["handler"].(string)
			if l := res.by[h]; len(l) == 0 || l[len(l)-1] != current {
				res.by[h] = append(res.by[h], current)
			}
		}
	}
}

func (w *engine) everyHandlerReached() error {
	res := w.found
	if res == nil {
		return fmt.Errorf("no handlers were registered in this scenario")
	}
	var never, unknown []string
	for _, h := range res.registered {
		if len(res.by[h]) == 0 && !res.kept[h] {
			never = append(never, h)
		}
	}
	for h := range res.by {
		if !slices.Contains(res.registered, h) {
			unknown = append(unknown, h)
		}
	}
	sort.Strings(unknown)
	var problems []string
	if len(never) > 0 {
		problems = append(problems, fmt.Sprintf("registered, but no runtime-to-SDK method or event of the schema reached it (%d sent, each once with its required params): %s",
			res.triggers, strings.Join(never, ", ")))
	}
	if len(unknown) > 0 {
		problems = append(problems, "the driver reported calls of handlers that were not registered: "+strings.Join(unknown, ", "))
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s", strings.Join(problems, "; "))
	}
	return nil
}
