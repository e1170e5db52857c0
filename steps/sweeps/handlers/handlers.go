package handlers

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/jsonform"
	"github.com/copilot-sdk-conformance/conformance/internal/schemagen"
	"github.com/copilot-sdk-conformance/conformance/internal/suite"
	"github.com/copilot-sdk-conformance/conformance/steps/encodings"
	"github.com/copilot-sdk-conformance/conformance/steps/handlerset"
	"github.com/copilot-sdk-conformance/conformance/steps/jsondiff"
	"github.com/copilot-sdk-conformance/conformance/steps/scenario"
)

// The runtime-to-SDK direction of the schema (drivers/PROTOCOL.md "Runtime→SDK methods"): the
// application registers a handler for a clientSession / clientGlobal method through the SDK's
// public API, the runtime calls it, the driver reports what the handler received (rpc.handled)
// and the handler returns a result the harness chose, which the SDK must put on the wire as the
// application returned it.

// engine is the handler sweep's state over the scenario's core: the handlers it shares with the
// plain phrases and the pending sweep, each hook type's declared input, and the form its params
// are written in.
type engine struct {
	*scenario.Scenario
	handlers   *handlerset.Set
	hookInputs map[string]hookInputType // each hook type's input as the SDK declares it (hookinputs.go)
	encoded    encodings.Tally          // the form runtime-to-SDK params are written in, and what went out in it
}

// Register binds the handler sweep's phrases on sc for the scenario s, over the scenario's
// handlers hs (what connect and create register comes from hs: world's Scenario.Handlers).
func Register(sc scenario.Binder, s *scenario.Scenario, hs *handlerset.Set) {
	w := &engine{Scenario: s, handlers: hs}
	s.Opened = append(s.Opened, w.noteOpened)
	scenario.Needing(sc, scenario.Needs("rpc.handlers")).Step(`^the application handles "([^"]*)" with the result (.+)$`, w.handlesWith)
	scenario.Needing(sc, scenario.Needs("rpc.handlers")).Step(`^the application registered a handler for every runtime-to-SDK method of the runtime's schema$`, w.registerEveryHandler)
	sc.Step(`^the runtime calls every registered handler with params generated from the runtime's schema$`, w.callEveryHandler)
	sc.Step(`^the runtime calls every registered handler with params generated from the runtime's schema, written (with every integer written as a float|with every number in exponent form|with every string escaped and its keys reversed)$`, w.callEveryHandlerEncoded)
	sc.Step(`^every handler received the params the runtime sent$`, w.handlersReceived)
	sc.Step(`^the SDK answered every handled call with what the application's handler returned$`, w.handlersAnswered)
	sc.Step(`^the SDK answered every call of a method it has no handler for$`, w.unhandledAnswered)
}

// noteOpened reads a createSession or resumeSession answer (scenario.Opened): the session's
// declared hook inputs (the handlers it registered: handlerset.Set.Note).
func (w *engine) noteOpened(cmd string, res json.RawMessage) {
	if cmd != "connect" {
		w.noteHookInputs(res)
	}
}

// caseKey is the key of the i-th call of the handler's method (the core's cases.go): the
// method, the generated case and the form its params are written in.
func caseKey(h *handlerset.Spec, method string, i int, form jsonform.Form) string {
	key := method
	if i < len(h.Cases) {
		key += " " + h.Cases[i]
	}
	if form != "" {
		key += " " + string(form)
	}
	return key
}

// observeLacking records the calls of registered methods that the SDK's handler API has no
// handler for (handlerset.Spec.Lacking): named, not judged, as a method without a handler is.
func (w *engine) observeLacking(calls []*handledCall) {
	var lines []string
	for _, c := range calls {
		if l := w.handlers.Specs[c.method].Lacks(c.params); l != nil && w.handlers.Specs[c.method].Registered {
			lines = append(lines, fmt.Sprintf("%s%s: %s", c.method, scalarsOf(l.Params), l.Reason))
		}
	}
	if len(lines) > 0 {
		w.Observe("runtime-to-SDK cases the SDK's handler API lacks", strings.Join(jsondiff.CompactList(lines), "; "))
	}
}

// handlesWith is "the application handles M with the result R": a handler for one method.
func (w *engine) handlesWith(method, result string) error {
	if err := w.Needs("rpc.handlers"); err != nil {
		return err
	}
	var r any
	if err := json.Unmarshal([]byte(result), &r); err != nil {
		return fmt.Errorf("the result of %s is not JSON: %w", method, err)
	}
	if doc, err := w.Schemas(); err == nil {
		m, ok := doc.Method(method)
		if !ok || m.FromSDK {
			return fmt.Errorf("%s is not a runtime-to-SDK method of the runtime's schema", method)
		}
		if err := doc.ValidateResult(m, r); err != nil {
			return fmt.Errorf("the result given for %s violates its result schema: %v", method, err)
		}
	}
	if w.handlers.Specs == nil {
		w.handlers.Specs = map[string]*handlerset.Spec{}
	}
	w.handlers.Specs[method] = &handlerset.Spec{Result: r}
	return nil
}

// handlerSweepWhy is why the real runtime cannot play the handler sweep.
const handlerSweepWhy = "the scenario has the runtime call every runtime-to-SDK method of the schema with params generated from it; the real runtime calls only hooks.invoke and userInput.request (and sends the permission and elicitation events), with its own params, when its own work makes them (plays.go), and the file-system, canvas, provider and other methods not at all offline"

// registerEveryHandler connects a client and creates a session whose application registered a
// handler for every runtime-to-SDK method of the schema, each returning the result generated
// from the method's result schema.
func (w *engine) registerEveryHandler() error {
	doc, err := w.Schemas()
	if err != nil {
		return err
	}
	if err := w.Needs("rpc.handlers"); err != nil {
		return err
	}
	if _, err := w.ScriptedOnly(handlerSweepWhy); err != nil {
		return err
	}
	w.handlers.Specs = map[string]*handlerset.Spec{}
	for _, m := range scenario.HandlerMethods(doc) {
		cases, dropped := doc.CasesOnce(m)
		for _, d := range dropped {
			w.Rec.Notef("", "generator: %s case %s left out", m.Name, d)
		}
		h := &handlerset.Spec{}
		if doc.IsExchange(m.Name) {
			// One HTTP request is a whole exchange served by the request handler
			// (features/schema/request_handler.feature); here the application registers none,
			// and the runtime's calls show what the SDK answers without one.
			h.Exchange, h.Reason = true, "served by the application's request handler as one exchange: features/schema/request_handler.feature"
		}
		// Every generated case: only the required params, every optional param set, and the
		// edge cases (another enum value or anyOf branch, null where nullable, empty lists, bounds,
		// non-ASCII strings) the schema allows.
		for _, c := range cases {
			h.Params, h.Cases = append(h.Params, c.Params), append(h.Cases, c.Name)
		}
		if !m.Notification {
			if h.Result, err = doc.Result(m); err != nil {
				return err
			}
			h.Result = scenario.AsJSONValue(h.Result)
		}
		w.handlers.Specs[m.Name] = h
	}
	if _, err := w.Connect(); err != nil {
		return err
	}
	if err := w.Create(); err != nil {
		return err
	}
	var silent []string
	for m, h := range w.handlers.Specs {
		if !h.Registered && h.Reason == "" {
			silent = append(silent, m)
		}
	}
	if len(silent) > 0 {
		sort.Strings(silent)
		return fmt.Errorf("driver fault: the %s driver neither registered a handler for nor explained (\"unhandled\") %s", w.T.SDK(), strings.Join(silent, ", "))
	}
	w.observeHandlers()
	w.ObserveEdges(doc, scenario.HandlerMethods(doc))
	return w.addHookInputCases()
}

// callEveryHandler sends every generated case of every registered runtime-to-SDK method to the
// SDK, one after another, each answered before the next.
func (w *engine) callEveryHandler() error {
	doc, rt, err := w.ScriptedSweep(handlerSweepWhy)
	if err != nil {
		return err
	}
	s, err := w.Current()
	if err != nil {
		return err
	}
	if len(w.handlers.Specs) == 0 {
		return fmt.Errorf("no handlers were registered in this scenario")
	}
	created := w.CreateParams()
	// No command is in flight while the runtime calls the handlers: the driver's lines (the
	// rpc.handled events) go to the transcript all the same, up to and through the closing
	// round trip (held: a report read between the last call and that command's own sink was
	// dropped, and the last call of a sweep then read as never handled).
	release, err := w.HoldDriverLines()
	if err != nil {
		return err
	}
	defer release()
	var unregistered []schemagen.Method
	total, done := 0, 0
	for _, h := range w.handlers.Specs {
		total += len(h.Params)
	}
	w.Expect(total)
	for _, m := range scenario.HandlerMethods(doc) {
		h := w.handlers.Specs[m.Name]
		if h == nil {
			continue
		}
		if !h.Registered {
			unregistered = append(unregistered, m)
			continue
		}
		for i, p := range h.Params {
			if err := w.Gone(); err != nil {
				return scenario.CutShort(err, done, total, m.Name)
			}
			params := w.AsTheRuntimeSends(m, p, s.ID, created)
			w.CaseSends(caseKey(h, m.Name, i, w.encoded.Params), params)
			if _, err := rt.Ask(s.ID, m.Name, w.encoded.Wire(params), m.Notification); err != nil {
				if err := w.CallFailed(err, m.Name); err != nil {
					return scenario.CutShort(err, done, total, m.Name)
				}
			}
			done++
		}
	}
	if err := w.Gone(); err != nil {
		return scenario.CutShort(err, done, total, "")
	}
	// The real runtime may call a method whatever the application registered: the methods the
	// SDK has no public handler API for are called too, and the SDK's answer (an error, or none)
	// is recorded (callsWithoutHandler). No handler runs, so they go at once: an SDK that never
	// answers costs one wait, not one per call.
	var wg sync.WaitGroup
	for _, m := range unregistered {
		for i, p := range w.handlers.Specs[m.Name].Params {
			params := w.AsTheRuntimeSends(m, p, s.ID, created)
			w.CaseSends(caseKey(w.handlers.Specs[m.Name], m.Name, i, ""), params)
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := rt.Ask(s.ID, m.Name, params, m.Notification); err != nil {
					w.Rec.Notef("", "%s (no handler registered): %v", m.Name, err)
				}
			}()
		}
	}
	wg.Wait()
	if err := w.Gone(); err != nil {
		return scenario.CutShort(err, total, total, "the calls of methods without a handler")
	}
	w.callsWithoutHandler()
	// A driver round trip: the events the driver wrote while the SDK ran the handlers are read
	// before its answer, so the checks see every rpc.handled.
	err = w.RoundTrip()
	return err
}

// handledCall is one runtime-to-SDK request on the wire, the SDK's answer and what the
// application's handler reported receiving.
type handledCall struct {
	method   string
	seq      int
	params   map[string]any
	answer   map[string]any // the SDK's response frame (nil for a notification or no answer)
	received map[string]any // the rpc.handled event's args (nil: the handler never reported)
}

// handledCalls pairs the runtime's requests of the registered methods with the SDK's answers and
// the driver's rpc.handled events, in order per method (the runtime waits for each answer).
func (w *engine) handledCalls() []*handledCall {
	var calls []*handledCall
	_, player := w.RT.(suite.Player)
	for _, c := range scenario.RuntimeCalls[map[string]any](w.Entries(), func(m string) bool { return w.handlers.Specs[m] != nil }) {
		params := scenario.DecodedParams[map[string]any](c)
		if player && !w.handlers.Scripted(c.Method, params) {
			// A runtime that sends such requests of its own accord (the real one invokes every
			// hook type each turn) is judged on the calls the scenario played, told by the
			// top-level strings it gave (hookType), as sdkAnswer does; what the handler must
			// receive is then what that runtime sent, read from the transcript.
			continue
		}
		calls = append(calls, &handledCall{method: c.Method, seq: c.Seq, params: params, answer: c.Answer})
	}
	// Reports are paired with calls of their method by what they agree on (the top-level scalar
	// params: hooks.invoke's hookType, a file's path), the pairs that agree most first, then in
	// order: an SDK that skips a call (a hook type it does not know) shows that call unhandled,
	// instead of every later call paired with the report of the one before.
	events := w.DriverEvents("rpc.handled")
	type pair struct{ call, event, score int }
	var pairs []pair
	for ci, c := range calls {
		for ei, ev := range events {
			if method, _ := ev["method"].(string); method == c.method {
				got, _ := ev["params"].(map[string]any)
				pairs = append(pairs, pair{ci, ei, scalarsInCommon(c.params, got)})
			}
		}
	}
	sort.SliceStable(pairs, func(i, j int) bool { return pairs[i].score > pairs[j].score })
	eventTaken := map[int]bool{}
	for _, p := range pairs {
		if c := calls[p.call]; c.received == nil && !eventTaken[p.event] {
			eventTaken[p.event] = true
			c.received = events[p.event]
		}
	}
	return calls
}

// scalarsOf shows a call's top-level string params (hooks.invoke's hookType), which tell the
// calls of one method apart: ` {hookType: "preToolUse"}`, or "" when it has none.
func scalarsOf(params map[string]any) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(params)) {
		if v, ok := params[k].(string); ok && k != "sessionId" {
			parts = append(parts, fmt.Sprintf("%s: %q", k, v))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " {" + strings.Join(parts, ", ") + "}"
}

// scalarsInCommon counts the keys whose scalar values a and b share, at the top level and in
// the objects they both hold (a hook's input): several cases of one hook type pair by what
// their inputs say, not by their order, so a case the SDK never handed its hook shows unhandled.
func scalarsInCommon(a, b map[string]any) int {
	n := 0
	for k, v := range a {
		switch v := v.(type) {
		case map[string]any:
			if w, ok := b[k].(map[string]any); ok {
				n += scalarsInCommon(v, w)
			}
			continue
		case []any, nil:
			continue
		}
		if w, ok := b[k]; ok && reflect.DeepEqual(v, w) {
			n++
		}
	}
	return n
}

// handlersReceived checks that each handler received the params the runtime sent, up to the
// representation rules (PROTOCOL.md): a date-time by its instant (an epoch-milliseconds number
// the SDK turned into its date type compares by instant too), sessionId only where the driver
// reported it (a per-session handler knows its session by registration).
func (w *engine) handlersReceived() error {
	calls := w.handledCalls()
	if !anyRegistered(calls, w.handlers.Specs) {
		return fmt.Errorf("the runtime sent none of the registered runtime-to-SDK methods")
	}
	s, _ := w.Current()
	created := w.CreateParams()
	fails := handlerFailures{}
	var falses []string
	w.observeLacking(calls)
	for _, c := range calls {
		if h := w.handlers.Specs[c.method]; !h.Registered || h.Lacks(c.params) != nil {
			continue // no handler to receive it (callsWithoutHandler, observeLacking)
		}
		w.Check(c.method, "")
		if c.received == nil {
			how := "the SDK answered " + jsondiff.Show(c.answer)
			if c.answer == nil {
				how = "the SDK never answered"
			}
			fails.add(c, "request #%d%s: the application's handler was never called (%s)", c.seq, scalarsOf(c.params), how)
			continue
		}
		if h, ok := c.received["session"].(string); ok && h != "" && h != s.Handle {
			fails.add(c, "the handler of session %q received the call for session %q", h, s.Handle)
		}
		got, _ := c.received["params"].(map[string]any)
		want := map[string]any{}
		for k, v := range c.params {
			want[k] = v
		}
		if _, reported := got["sessionId"]; !reported {
			delete(want, "sessionId")
		}
		if _, sent := want["sessionId"]; !sent && got["sessionId"] == s.ID {
			delete(got, "sessionId") // a per-session handler knows its session without being told
		}
		for k := range w.SDKAnnounced(c.method, c.params, created) {
			delete(want, k) // the SDK's own correlation value, not the application's input
		}
		for _, d := range jsondiff.Diff(want, scenario.AsJSONValue(got), "") {
			if epochAsDate(d.Want, d.Got) {
				continue
			}
			if d.Kind == "added" && d.Got == false {
				falses = append(falses, c.method+" "+d.Path)
				continue
			}
			fails.add(c, "request #%d %s", c.seq, d.Say("sent by the runtime", "the application's handler received it"))
		}
	}
	if len(falses) > 0 {
		// A handler API taking a plain boolean cannot tell "left out" from false.
		w.Observe("booleans the runtime left out, received as false by the handler", fmt.Sprintf("%d: %s", len(jsondiff.CompactList(falses)), strings.Join(jsondiff.CompactList(falses), ", ")))
	}
	return fails.err("runtime-to-SDK calls", "did not give the application's handler the params the runtime sent")
}

// epochAsDate: an epoch-milliseconds number and an RFC 3339 string naming the same instant
// (an SDK that hands the application its date type, re-serialised as a date-time).
func epochAsDate(a, b any) bool {
	ms, ok := a.(float64)
	s, ok2 := b.(string)
	if !ok || !ok2 {
		return false
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	return err == nil && t.UnixMilli() == int64(ms)
}

// handlersAnswered checks the SDK's answer to each call: it validates against the method's
// result schema and equals what the application's handler returned, but for the JSON pointers
// the driver reported its SDK's handler API cannot return (rpc.handled "unrepresentable",
// recorded as that SDK's limitation).
func (w *engine) handlersAnswered() error {
	doc, err := w.Schemas()
	if err != nil {
		return err
	}
	calls := w.handledCalls()
	if !anyRegistered(calls, w.handlers.Specs) {
		return fmt.Errorf("the runtime sent none of the registered runtime-to-SDK methods")
	}
	fails := handlerFailures{}
	var limits []string
	for _, c := range calls {
		m, _ := doc.Method(c.method)
		if h := w.handlers.Specs[c.method]; m.Notification || !h.Registered || h.Lacks(c.params) != nil {
			continue
		}
		w.Check(c.method+" (answer)", "")
		if c.answer == nil {
			fails.add(c, "the SDK never answered request #%d", c.seq)
			continue
		}
		if e, ok := c.answer["error"]; ok && e != nil {
			fails.add(c, "the SDK answered request #%d with the error %s", c.seq, jsondiff.Show(e))
			continue
		}
		if c.received == nil {
			continue // reported by the received check
		}
		got := c.answer["result"]
		if err := doc.ValidateResult(m, got); err != nil {
			fails.add(c, "the answer to request #%d violates the result schema: %v", c.seq, err)
		}
		unrep := map[string]bool{}
		if l, ok := c.received["unrepresentable"].([]any); ok {
			for _, p := range l {
				if s, ok := p.(string); ok {
					unrep[s] = true
				}
			}
		}
		for _, d := range jsondiff.Diff(w.handlers.Specs[c.method].Result, got, "") {
			if unrep[d.Path] || underAny(d.Path, unrep) {
				limits = append(limits, c.method+" "+orSlash(d.Path))
				continue
			}
			fails.add(c, "answer to request #%d %s", c.seq, d.Say("returned by the application's handler", "the SDK answered"))
		}
	}
	if len(limits) > 0 {
		w.Observe("handler results the SDK's handler API cannot return", fmt.Sprintf("%d: %s", len(jsondiff.CompactList(limits)), strings.Join(jsondiff.CompactList(limits), ", ")))
	}
	return fails.err("runtime-to-SDK calls", "were not answered with what the application's handler returned")
}

func underAny(p string, set map[string]bool) bool {
	for q := range set {
		if q == "" || strings.HasPrefix(p, q+"/") {
			return true
		}
	}
	return false
}

func orSlash(p string) string {
	if p == "" {
		return "/"
	}
	return p
}

// observeHandlers records the methods the SDK has no public handler API for (the coverage
// names each with the driver's reason) and fails a registered method the runtime never sent.
func (w *engine) observeHandlers() {
	var no []string
	n := 0
	for m, h := range w.handlers.Specs {
		if h.Registered {
			n++
		} else {
			no = append(no, m)
		}
	}
	sort.Strings(no)
	w.Observe("runtime-to-SDK methods with a public handler API", fmt.Sprintf("%d of %d; none for: %s", n, len(w.handlers.Specs), strings.Join(no, ", ")))
}

// handlerFailures groups findings by method.
type handlerFailures map[string][]string

func (f handlerFailures) add(c *handledCall, format string, args ...any) {
	f[c.method] = append(f[c.method], fmt.Sprintf(format, args...))
}

func (f handlerFailures) err(noun, what string) error {
	return jsondiff.GroupedError(f, noun+" "+what, "methods")
}

func anyRegistered(calls []*handledCall, handlers map[string]*handlerset.Spec) bool {
	for _, c := range calls {
		if h := handlers[c.method]; h != nil && h.Registered {
			return true
		}
	}
	return false
}

// callsWithoutHandler records what the SDK answered the runtime's calls of the methods it has
// no public handler API for, one line per method (the coverage names the method with it): the
// JSON-RPC error code and message, a result, or no answer. A handler the SDK ran without the
// application having registered one would be a finding: a result is named as such.
func (w *engine) callsWithoutHandler() {
	var lines []string
	seen := map[string]bool{}
	for _, c := range w.handledCalls() {
		if w.handlers.Specs[c.method].Registered || seen[c.method] {
			continue
		}
		seen[c.method] = true
		if doc, err := w.Schemas(); err == nil {
			if m, ok := doc.Method(c.method); ok && m.Notification {
				lines = append(lines, c.method+": a notification, no answer expected")
				continue
			}
		}
		lines = append(lines, c.method+": "+answerSummary(c.answer))
	}
	if len(lines) > 0 {
		sort.Strings(lines)
		v := strings.Join(lines, "; ")
		if s, err := w.Current(); err == nil && s.ID != "" {
			v = strings.ReplaceAll(v, s.ID, "<sessionId>") // the same on every run and SDK
		}
		w.Observe("runtime-to-SDK methods called without a handler, the SDK's answer", v)
	}
}

// answerSummary words an SDK's answer to a runtime request: "error CODE MESSAGE", "result R" or
// "no answer".
func answerSummary(answer map[string]any) string {
	switch {
	case answer == nil:
		return "no answer"
	case answer["error"] != nil:
		e, _ := answer["error"].(map[string]any)
		return fmt.Sprintf("error %v %v", e["code"], e["message"])
	default:
		return "result " + jsondiff.Show(answer["result"])
	}
}

// unhandledAnswered checks that the SDK answered each runtime request of a method it has no
// public handler API for: JSON-RPC 2.0 requires a response to every request (an error will do),
// and a runtime awaiting one would otherwise wait until its own timeout. A notification needs none.
func (w *engine) unhandledAnswered() error {
	doc, err := w.Schemas()
	if err != nil {
		return err
	}
	fails := handlerFailures{}
	n := 0
	for _, c := range w.handledCalls() {
		m, _ := doc.Method(c.method)
		if h := w.handlers.Specs[c.method]; (h.Registered && h.Lacks(c.params) == nil) || m.Notification {
			continue
		}
		n++
		w.Check(c.method+" (answer without a handler)", "")
		if c.answer == nil {
			fails.add(c, "the SDK never answered request #%d (no handler registered; a JSON-RPC request needs a response, an error will do)", c.seq)
		}
	}
	if n == 0 {
		w.Rec.Notef("", "every runtime-to-SDK method has a handler on this SDK: no call without one")
	}
	return fails.err("runtime-to-SDK calls without a handler", "were never answered")
}

// callEveryHandlerEncoded is callEveryHandler with every call's params written in a form.
func (w *engine) callEveryHandlerEncoded(variant string) error {
	form, ok := encodings.Forms[variant]
	if !ok {
		return fmt.Errorf("no encoding %q", variant)
	}
	w.encoded.Params = form
	defer func() { w.encoded.Params = "" }()
	err := w.callEveryHandler()
	w.encoded.Observe(w, "runtime-to-SDK requests")
	return err
}
