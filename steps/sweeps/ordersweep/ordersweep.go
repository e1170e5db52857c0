package ordersweep

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/steps/declared"
	"github.com/copilot-sdk-conformance/conformance/steps/jsondiff"
	"github.com/copilot-sdk-conformance/conformance/steps/scenario"

	"github.com/copilot-sdk-conformance/conformance/internal/driver"
	"github.com/copilot-sdk-conformance/conformance/internal/suite"
	"github.com/copilot-sdk-conformance/conformance/internal/surface"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/copilot-sdk-conformance/conformance/internal/wire"
)

// The startup order under every option and handler alone (features/session/startup_order.feature):
// each field and handler the SDK declares (its driver's surface inventory: nothing here names
// one) is set alone on a client of its own that has seen no session, on create and on resume of
// a session another client made; the requests that client sends must be the baseline's (the same
// on a client without options) plus only requests that carry the option, and nothing naming the
// session may go out before the runtime answered its opening. A session the client opened before
// would hide the order (the SDK knows it), so every case gets a fresh client; the runtime holds
// each opening (runtime.Script.OpenDelay), so an SDK that does not wait is seen to.

// engine is the sweep's own state over the scenario's core.
type engine struct {
	*scenario.Scenario
	order *orderResult // what setting each option and handler alone found
}

// Register binds the sweep's phrases on sc for the scenario s.
func Register(sc scenario.Binder, s *scenario.Scenario) {
	w := &engine{Scenario: s}
	scenario.Needing(sc, scenario.Needs("surface", "session.resume")).Step(`^every option and every handler the SDK declares is set alone on a client of its own, on create and on resume$`, w.probeOrder)
	sc.Step(`^each adds to the baseline's requests only requests that carry it, and nothing names a session before its opening was answered$`, w.orderClean)
}

// orderOpenDelay is how long the runtime holds each create and resume: long beside the
// microseconds an SDK takes to send its next request, short beside the cases' budget.
const orderOpenDelay = 150 * time.Millisecond

// orderBatch is how many cases run at once on a driver that serves commands concurrently.
const orderBatch = 8

// orderCase is one client's opening: a field or handler set alone, or nothing (a baseline).
type orderCase struct {
	Request string // session.create or session.resume
	Entry   *surface.Entry
	Value   any // the field's value; nil for a handler
	Variant string
	rest    []surface.Variant // the field's other values, tried when the SDK's type cannot hold this one
	// SessionID is the session the case opened (for a resume, the one it was given), Conn the
	// runtime connection of its client ("" until found).
	SessionID, Conn string
	Err             error  // the SDK's error, when create or resume failed
	Handle          string // the driver's handle of the session
	leftover        bool   // Conn is the batch's one connection left over, not found by the session
}

// Label names the case in findings: the SDK's own owner and name.
func (c orderCase) Label() string {
	if c.Entry == nil {
		return "no option"
	}
	if c.Entry.Kind == "handler" {
		return fmt.Sprintf("handler %s.%s", c.Entry.Owner, c.Entry.Name)
	}
	return fmt.Sprintf("%s.%s = %s", c.Entry.Owner, c.Entry.Name, c.Variant)
}

// orderResult is what probeOrder found.
type orderResult struct {
	problems []string
	judged   map[string]map[string]int // request -> kind (field, handler) -> cases judged
	skipped  []string
}

func (w *engine) probeOrder() error {
	entries, err := declared.Entries(w.Scenario)
	if err != nil {
		return err
	}
	srv, err := w.StandIn("runtime.script.openDelay")
	if err != nil {
		return err
	}
	srv.SetOpenDelay(orderOpenDelay)
	// The cases' clients run at once, so the n-th session.create is a different case in every
	// run: each case is judged against its own baselines here, not paired across SDKs.
	w.Observe(report.NotCompared, "the cases' clients run at once: each case is judged against its baselines, not paired across SDKs")
	defer srv.SetOpenDelay(0)
	_, _, noHandlers := w.Lacks("surface.handlers")
	env := declared.NewEnv(w.Scenario)
	res := &orderResult{judged: map[string]map[string]int{}}
	var cases []orderCase
	for _, a := range surface.Actions {
		// Two baselines: a request one sends and the other does not is not the SDK's fixed
		// order (a timer's ping), and neither is an order they disagree on.
		cases = append(cases, orderCase{Request: a.Request}, orderCase{Request: a.Request})
		for i := range entries {
			e := entries[i]
			if e.Owner != a.Owner {
				continue
			}
			switch {
			case e.Kind == "handler" && noHandlers:
				res.skipped = append(res.skipped, fmt.Sprintf("%s.%s: the driver registers no handler alone (surface.handlers)", e.Owner, e.Name))
			case e.Kind == "handler":
				cases = append(cases, orderCase{Request: a.Request, Entry: &e})
			default:
				vs, why := surface.GenerateWith(entries, e, env.Definition, env.FillsCallbacks())
				if len(vs) == 0 {
					res.skipped = append(res.skipped, fmt.Sprintf("%s.%s: %s", e.Owner, e.Name, why))
					continue
				}
				cases = append(cases, orderCase{Request: a.Request, Entry: &e, Value: vs[0].Value, Variant: vs[0].Label, rest: vs[1:]})
			}
		}
	}
	w.Expect(len(cases))
	batch := 1
	if concurrent, _ := w.T.Capability(driver.Concurrent); concurrent {
		batch = orderBatch
	}
	// The sessions resumed are made by a client of their own, so no resuming client has seen one.
	maker, err := w.Connect()
	if err != nil {
		return err
	}
	var done []orderCase
	closed := &orderClosed{cut: map[string]int{}, serves: map[string]string{}}
	// A field whose value the SDK's type cannot hold is set to its next generated value, until
	// one is held or none is left: one value per field is enough for the order.
	for todo := cases; len(todo) > 0; {
		for start := 0; start < len(todo); start += batch {
			if err := w.Gone(); err != nil {
				return scenario.CutShort(err, start, len(todo), todo[max(start-1, 0)].Label())
			}
			end := min(start+batch, len(todo))
			if err := w.runOrderCases(maker, todo[start:end]); err != nil {
				return scenario.CutShort(err, start, len(todo), todo[start].Label())
			}
			if err := w.closeOrderCases(todo[start:end], closed); err != nil {
				return scenario.CutShort(err, end, len(todo), todo[end-1].Label())
			}
		}
		var again []orderCase
		for _, c := range todo {
			if errorsIsCannotHold(c.Err) && len(c.rest) > 0 {
				next := orderCase{Request: c.Request, Entry: c.Entry, Value: c.rest[0].Value, Variant: c.rest[0].Label, rest: c.rest[1:]}
				again = append(again, next)
			}
			if c.Entry == nil || !errorsIsCannotHold(c.Err) || len(c.rest) == 0 {
				done = append(done, c)
			}
		}
		w.Expect(len(again))
		todo = again
	}
	cases = done
	w.noteMaker(cases)
	// Requests an SDK sends after its create or resume returned are in by the driver's next
	// answer to a command.
	if err := w.RoundTrip(); err != nil {
		return err
	}
	for _, c := range cases {
		if errorsIsCannotHold(c.Err) {
			res.skipped = append(res.skipped, fmt.Sprintf("%s on %s: %v", c.Label(), c.Request, c.Err))
		}
	}
	problems, unexplained, judged := judgeOrder(closed.before(w.Entries()), cases)
	res.problems = append(res.problems, problems...)
	for _, a := range unexplained {
		if how := closed.serves[additionKey(a)]; how != "" {
			w.Rec.Notef("", "order: %s on %s adds %s (seq %d): %s", a.Case.Label(), a.Case.Request, a.Req.Method, a.Req.Seq, how)
			continue
		}
		res.problems = append(res.problems, a.Text)
	}
	res.judged = judged
	for _, a := range surface.Actions {
		w.Check(a.Request, "order")
	}
	w.Rec.Notef("", "order: runtime held each opening %s; judged on session.create %d fields and %d handlers, on session.resume %d fields and %d handlers; not judged: %s",
		orderOpenDelay, judged["session.create"]["field"], judged["session.create"]["handler"], judged["session.resume"]["field"], judged["session.resume"]["handler"], strings.Join(res.skipped, "; "))
	w.order = res
	return nil
}

// orderClosed is what the sweep kept of the cases whose clients it stopped: each case's client is
// stopped once its batch is judged for handlers, so a run holds a batch's connections at a time,
// not every case's (measured: the sweep's open connections were most of a run's open files).
type orderClosed struct {
	cut       map[string]int    // connection -> the first transcript seq after its case was judged
	serves    map[string]string // additionKey -> how the handler is shown to serve the addition
	baselines []orderCase       // the baselines run so far, that later cases are judged against
	held      []orderCase       // judged cases whose clients are not stopped yet (orderHeld)
}

// before is entries without what a judged case's connection carried from then on (an event sent
// to show a handler's request, the client's shutdown): no part of the order its case is judged on.
func (c *orderClosed) before(entries []transcript.Entry) []transcript.Entry {
	out := make([]transcript.Entry, 0, len(entries))
	for _, e := range entries {
		if cut, ok := c.cut[e.Conn]; ok && e.Seq >= cut {
			continue
		}
		out = append(out, e)
	}
	return out
}

func additionKey(a addition) string { return fmt.Sprintf("%s\x00%d", a.Case.Handle, a.Req.Seq) }

// closeOrderCases ends a batch of cases while their clients are still open: the requests the SDK
// sent after its create or resume returned are in by a round trip; an addition of a handler's
// case is shown to serve the handler now (servesHandler sends its session an event); then the
// clients of the judged cases are stopped once orderHeld are held, and what later checks need
// stays in the transcript.
func (w *engine) closeOrderCases(cs []orderCase, closed *orderClosed) error {
	if err := w.RoundTrip(); err != nil {
		return err
	}
	cut := w.Rec.Len() + 1
	judge := append([]orderCase(nil), closed.baselines...)
	handles := map[string]bool{}
	for _, c := range cs {
		switch {
		case c.Entry == nil:
			closed.baselines = append(closed.baselines, c)
			judge = append(judge, c)
		case c.Entry.Kind == "handler" && c.Err == nil:
			judge = append(judge, c)
			handles[c.Handle] = true
		}
	}
	if len(handles) > 0 {
		_, unexplained, _ := judgeOrder(closed.before(w.Entries()), judge)
		for _, a := range unexplained {
			if handles[a.Case.Handle] {
				closed.serves[additionKey(a)] = w.servesHandler(a)
			}
		}
	}
	// Judged up to here: what the event above made the SDK send, and its shutdown, are no part of
	// the order.
	for _, c := range cs {
		if c.Conn != "" {
			closed.cut[c.Conn] = cut
		}
	}
	closed.held = append(closed.held, cs...)
	if len(closed.held) < orderHeld {
		return nil
	}
	held := closed.held
	closed.held = nil
	return w.StopClientsOf(orderHandles(held))
}

// orderHeld is how many judged cases' clients are held before they are stopped together: a stop
// costs about a second in some SDKs (Python's client waits for its reader thread), whatever the
// number stopped at once (measured on Python's order scenario: 15 s holding every client, 47 s
// stopping each batch of 8, 25 s stopping 24 at a time).
const orderHeld = 3 * orderBatch

func errorsIsCannotHold(err error) bool { return errors.Is(err, surface.ErrCannotHold) }

// runOrderCases runs one batch of cases at once: a fresh client each (and for a resume a session
// made on maker), then its create or resume. A case the SDK refused keeps its error; one whose
// driver is lost ends the sweep.
func (w *engine) runOrderCases(maker string, cs []orderCase) error {
	var makes, connects []any
	for i := range cs {
		if cs[i].Request == "session.resume" {
			makes = append(makes, scenario.MergeHandle(map[string]any{"tools": []any{}}, maker, fmt.Sprintf("om%d", len(w.Sessions)+len(makes)+1)))
		}
		connects = append(connects, w.WithHandlers(map[string]any{"client": fmt.Sprintf("o%d", len(w.Clients)+w.Stopped+i+1), "address": w.Addr}))
	}
	if len(makes) > 0 {
		rs, err := w.CallAll("createSession", makes)
		if driver.EndsScenario(err) {
			return err
		}
		k := 0
		for i := range cs {
			if cs[i].Request != "session.resume" {
				continue
			}
			m := makes[k].(map[string]any)
			w.Sessions = append(w.Sessions, scenario.Session{Handle: m["session"].(string), Client: maker})
			r := rs[k]
			k++
			if r == nil || r.Outcome != driver.OK {
				return fmt.Errorf("creating the session to resume: %s", responseText(r, err))
			}
			var res struct {
				SessionID string `json:"sessionId"`
			}
			_ = json.Unmarshal(r.Result, &res)
			cs[i].SessionID = res.SessionID
		}
	}
	before := len(w.Rec.Entries())
	rs, err := w.CallAll("connect", connects)
	if driver.EndsScenario(err) {
		return err
	}
	for i, r := range rs {
		if r == nil || r.Outcome != driver.OK {
			return fmt.Errorf("connect: %s", responseText(r, err))
		}
		w.Clients = append(w.Clients, connects[i].(map[string]any)["client"].(string))
	}
	opens := make([]any, len(cs))
	cmds := map[string][]int{}
	for i, c := range cs {
		cmd, args := "createSession", map[string]any{"tools": []any{}}
		if c.Request == "session.resume" {
			cmd, args["sessionId"] = "resumeSession", c.SessionID
		}
		switch {
		case c.Entry != nil && c.Entry.Kind == "handler":
			args["surfaceHandlers"] = []string{c.Entry.Name}
		case c.Entry != nil:
			args["fields"] = map[string]any{c.Entry.Name: c.Value}
		}
		cs[i].Handle = fmt.Sprintf("os%d", len(w.Sessions)+i+1)
		opens[i] = scenario.MergeHandle(args, connects[i].(map[string]any)["client"].(string), cs[i].Handle)
		cmds[cmd] = append(cmds[cmd], i)
	}
	for i := range opens {
		m := opens[i].(map[string]any)
		w.Sessions = append(w.Sessions, scenario.Session{Handle: m["session"].(string), Client: m["client"].(string)})
	}
	for _, cmd := range []string{"createSession", "resumeSession"} {
		idx := cmds[cmd]
		if len(idx) == 0 {
			continue
		}
		args := make([]any, len(idx))
		for k, i := range idx {
			args[k] = opens[i]
		}
		rs, err := w.CallAll(cmd, args)
		if driver.EndsScenario(err) {
			return err
		}
		for k, i := range idx {
			r := rs[k]
			switch {
			case r == nil:
				cs[i].Err = fmt.Errorf("%s", responseText(r, err))
			case r.Outcome == driver.Unsupported:
				cs[i].Err = fmt.Errorf("%w: %s", surface.ErrCannotHold, r.Reason)
			case r.Outcome != driver.OK:
				cs[i].Err = fmt.Errorf("%s", r.ErrorText())
			default:
				var res struct {
					SessionID string `json:"sessionId"`
				}
				_ = json.Unmarshal(r.Result, &res)
				if cs[i].SessionID == "" {
					cs[i].SessionID = res.SessionID
				}
			}
		}
	}
	left := attachConns(w.Rec.Entries()[before:], cs)
	// Each case's client is a connection of its own: its requests are that case's, which is how
	// a diff pairs them with the same case of another run (the batch runs at once, so the n-th
	// session.create is another case in every run). The connections of cases the SDK refused
	// before naming a session cannot be told apart: they share one key.
	for _, c := range cs {
		if c.Conn != "" && !c.leftover {
			w.Rec.Case(c.Conn, 0, c.Request+" "+c.Label())
		}
	}
	for _, conn := range left {
		w.Rec.Case(conn, 0, "a case whose session was not opened")
	}
	return nil
}

// noteMaker names the connection of the client that made the sessions the resume cases resumed
// (one case key for all of them: they are alike).
func (w *engine) noteMaker(cs []orderCase) {
	ops := openingsOf(w.Entries(), nil)
	for _, c := range cs {
		if c.Request != "session.resume" || c.SessionID == "" {
			continue
		}
		if op, ok := ops.findOpening("session.create", c.SessionID); ok {
			w.Rec.Case(op.req.Conn, 0, "the sessions the resume cases resume")
			return
		}
	}
}

func responseText(r *driver.Response, err error) string {
	if r != nil {
		return r.ErrorText()
	}
	if err != nil {
		return err.Error()
	}
	return "no answer"
}

// attachConns finds each case's runtime connection among entries (those of its batch): the one
// whose opening request named the case's session, or whose answer gave it; a case whose SDK
// failed before the session id was known gets the one connection of the batch left over, when
// exactly one is. It returns the connections not found by a session when some case has none.
func attachConns(entries []transcript.Entry, cs []orderCase) []string {
	conns := map[string]bool{}
	var order []string
	for _, e := range entries {
		if e.Dir == transcript.SDKToRuntime && !conns[e.Conn] {
			conns[e.Conn] = true
			order = append(order, e.Conn)
		}
	}
	taken := map[string]bool{}
	ops := openingsOf(entries, nil)
	for i := range cs {
		if cs[i].SessionID == "" {
			continue
		}
		if op, ok := ops.findOpening(cs[i].Request, cs[i].SessionID); ok {
			cs[i].Conn = op.req.Conn
			taken[op.req.Conn] = true
		}
	}
	var left []string
	for _, c := range order {
		if !taken[c] {
			left = append(left, c)
		}
	}
	var unmatched []int
	for i := range cs {
		if cs[i].Conn == "" {
			unmatched = append(unmatched, i)
		}
	}
	if len(unmatched) == 1 && len(left) == 1 {
		cs[unmatched[0]].Conn, cs[unmatched[0]].leftover = left[0], true
		return left
	}
	if len(unmatched) == 0 {
		return nil
	}
	return left
}

// opening is a create or resume request and the sequence number of its answer (0: none).
type opening struct {
	req      transcript.Request
	answered int
	failed   string // the runtime's error, when it answered with one
	params   map[string]any
}

// openings is a transcript read once for findOpening: its requests by method and the runtime's
// answers (a scenario judges hundreds of cases against one transcript).
type openings struct {
	byMethod map[string][]transcript.Request
	answers  map[string]runtimeAnswer
}

func openingsOf(entries []transcript.Entry, answers map[string]runtimeAnswer) openings {
	if answers == nil {
		answers = responsesByConn(entries)
	}
	o := openings{byMethod: map[string][]transcript.Request{}, answers: answers}
	for _, r := range transcript.Requests(entries, "") {
		o.byMethod[r.Method] = append(o.byMethod[r.Method], r)
	}
	return o
}

// findOpening is the request of method that opened session id (named in its params or given
// in its answer), with its answer.
func (o openings) findOpening(method, id string) (opening, bool) {
	for _, req := range o.byMethod[method] {
		var p struct {
			SessionID string `json:"sessionId"`
		}
		_ = json.Unmarshal(req.Params, &p)
		a := o.answers[req.Conn+"\x00"+string(req.ID)]
		if p.SessionID == "" && a.msg != nil && a.msg.Result != nil {
			var r struct {
				SessionID string `json:"sessionId"`
			}
			_ = json.Unmarshal(a.msg.Result, &r)
			p.SessionID = r.SessionID
		}
		if p.SessionID != id {
			continue
		}
		op := opening{req: req, answered: a.seq, params: surface.ParamsOf(req.Params)}
		if a.msg != nil && a.msg.Error != nil {
			op.failed = a.msg.Error.Message
		}
		return op, true
	}
	return opening{}, false
}

type runtimeAnswer struct {
	seq int
	msg *wire.Message
}

// responsesByConn maps connection + request id to the runtime's answer.
func responsesByConn(entries []transcript.Entry) map[string]runtimeAnswer {
	out := map[string]runtimeAnswer{}
	for _, e := range entries {
		if e.Dir != transcript.RuntimeToSDK {
			continue
		}
		var m wire.Message
		if json.Unmarshal(e.Frame, &m) == nil && m.IsResponse() {
			key := e.Conn + "\x00" + string(m.ID)
			if _, seen := out[key]; !seen {
				out[key] = runtimeAnswer{seq: e.Seq, msg: &m}
			}
		}
	}
	return out
}

// judgeOrder judges every case of cases against entries (the scenario's transcript): the
// requests on its connection, in order, against the baselines' of the same request, and what
// named its session before the opening was answered. It returns the problems, each naming the
// option or handler and the request, and per request and kind how many cases were judged.
func judgeOrder(entries []transcript.Entry, cases []orderCase) ([]string, []addition, map[string]map[string]int) {
	byConn := map[string][]transcript.Request{}
	for _, r := range transcript.Requests(entries, "") {
		byConn[r.Conn] = append(byConn[r.Conn], r)
	}
	answers := responsesByConn(entries)
	ops := openingsOf(entries, answers)
	judged := map[string]map[string]int{}
	var problems []string
	var unexplained []addition
	type baseline struct {
		methods [][]string
		params  []map[string]any
	}
	bases := map[string]*baseline{}
	// The baselines first: every case of a request is compared with them.
	for _, c := range cases {
		if c.Entry != nil {
			continue
		}
		b := bases[c.Request]
		if b == nil {
			b = &baseline{}
			bases[c.Request] = b
		}
		op, ok := ops.findOpening(c.Request, c.SessionID)
		if c.Err != nil || !ok {
			problems = append(problems, fmt.Sprintf("%s without options: the baseline could not be recorded: %v", c.Request, orText(c.Err, "no opening request found")))
			continue
		}
		problems = append(problems, early(c, op, byConn[op.req.Conn], answers, entries)...)
		b.methods = append(b.methods, methodsOf(byConn[op.req.Conn]))
		b.params = append(b.params, op.params)
	}
	for _, c := range cases {
		if c.Entry == nil || errorsIsCannotHold(c.Err) {
			continue
		}
		b := bases[c.Request]
		if b == nil || len(b.methods) == 0 {
			continue // reported above
		}
		op, ok := opening{}, false
		if c.SessionID != "" {
			op, ok = ops.findOpening(c.Request, c.SessionID)
		}
		if !ok && c.Conn != "" {
			for _, r := range byConn[c.Conn] {
				if r.Method == c.Request {
					op, ok = opening{req: r, params: surface.ParamsOf(r.Params)}, true
					a := answers[r.Conn+"\x00"+scenario.RequestID(entries, r.Seq)]
					op.answered = a.seq
					if a.msg != nil && a.msg.Error != nil {
						op.failed = a.msg.Error.Message
					}
					if c.SessionID == "" {
						var p struct {
							SessionID string `json:"sessionId"`
						}
						_ = json.Unmarshal(r.Params, &p)
						c.SessionID = p.SessionID
					}
				}
			}
		}
		if !ok {
			if c.Err != nil {
				problems = append(problems, fmt.Sprintf("%s on %s: the SDK sent no %s and failed: %v", c.Label(), c.Request, c.Request, c.Err))
			} else {
				problems = append(problems, fmt.Sprintf("%s on %s: no %s reached the runtime", c.Label(), c.Request, c.Request))
			}
			continue
		}
		if judged[c.Request] == nil {
			judged[c.Request] = map[string]int{}
		}
		judged[c.Request][c.Entry.Kind]++
		reqs := byConn[op.req.Conn]
		problems = append(problems, early(c, op, reqs, answers, entries)...)
		var base2 map[string]any
		if len(b.params) > 1 {
			base2 = b.params[1]
		}
		flags := declared.ChangedKeys(b.params[0], orEmpty(base2, b.params[0]), op.params)
		var kept []transcript.Request
		for _, r := range extra(reqs, most(b.methods)) {
			if r.Seq == op.req.Seq {
				continue
			}
			kept = append(kept, r) // judged as an addition, not as a change of the baseline's order
			if carriesCase(c, flags, surface.ParamsOf(r.Params)) == "" {
				unexplained = append(unexplained, addition{Case: c, Req: r,
					Text: fmt.Sprintf("%s on %s: adds %s (seq %d), which carries nothing of it: %s", c.Label(), c.Request, r.Method, r.Seq, jsondiff.Show(surface.ParamsOf(r.Params)))})
			}
		}
		rest := without(reqs, kept)
		got := methodsOf(rest)
		if missing := minus(least(b.methods), got); len(missing) > 0 {
			problems = append(problems, fmt.Sprintf("%s on %s: the baseline's %s not sent", c.Label(), c.Request, strings.Join(missing, ", ")))
			continue
		}
		if !sameOrder(got, b.methods[0]) && baselinesAgree(b.methods) {
			problems = append(problems, fmt.Sprintf("%s on %s: the requests went out as %s; without it as %s", c.Label(), c.Request, strings.Join(got, ", "), strings.Join(b.methods[0], ", ")))
		}
	}
	return problems, unexplained, judged
}

// addition is a request a case's client sent beyond the baseline's whose params carry nothing of
// its option: a problem unless the option is a handler the request is shown to serve.
type addition struct {
	Case orderCase
	Req  transcript.Request
	Text string
}

// early lists what named the case's session before its opening was answered, and the requests the
// runtime answered "Session not found" on the case's connection.
func early(c orderCase, op opening, reqs []transcript.Request, answers map[string]runtimeAnswer, entries []transcript.Entry) []string {
	var out []string
	if op.failed != "" {
		out = append(out, fmt.Sprintf("%s on %s: the runtime answered it %q", c.Label(), c.Request, op.failed))
	}
	id := c.SessionID
	if id == "" {
		var p struct {
			SessionID string `json:"sessionId"`
		}
		_ = json.Unmarshal(op.req.Params, &p)
		id = p.SessionID
	}
	for _, r := range reqs {
		if r.Seq == op.req.Seq {
			continue
		}
		var p struct {
			SessionID string `json:"sessionId"`
		}
		named := json.Unmarshal(r.Params, &p) == nil && id != "" && p.SessionID == id
		notFound := ""
		if a := answers[r.Conn+"\x00"+scenario.RequestID(entries, r.Seq)]; a.msg != nil && a.msg.Error != nil && strings.Contains(a.msg.Error.Message, "Session not found") {
			notFound = a.msg.Error.Message
		}
		if named && (op.answered == 0 || r.Seq < op.answered) {
			when := fmt.Sprintf("before its %s (seq %d) was answered", c.Request, op.req.Seq)
			if op.answered == 0 {
				when = fmt.Sprintf("while its %s (seq %d) was never answered", c.Request, op.req.Seq)
			} else {
				when += fmt.Sprintf(" (seq %d)", op.answered)
			}
			if notFound != "" {
				when += fmt.Sprintf(", and was answered %q", notFound)
			}
			out = append(out, fmt.Sprintf("%s on %s: %s (seq %d) named the session %s", c.Label(), c.Request, r.Method, r.Seq, when))
			continue
		}
		if notFound != "" {
			out = append(out, fmt.Sprintf("%s on %s: %s (seq %d) was answered %q", c.Label(), c.Request, r.Method, r.Seq, notFound))
		}
	}
	return out
}

// carriesCase says where a request's params carry the case's option, or "": its value (a
// generated string names its field; any other value must sit under a key named like the field),
// a key named like the field or handler, or a key the handler announced in the opening (flags).
func carriesCase(c orderCase, flags []string, params map[string]any) string {
	keys := map[string]bool{c.Entry.Key(): true}
	for _, f := range flags {
		if f != "sessionId" {
			keys[surface.Normalize(f)] = true
		}
	}
	if p := keyNamed(params, keys, "params"); p != "" {
		return p
	}
	if c.Value == nil {
		return ""
	}
	p := surface.Carries(params, c.Value)
	if _, isString := c.Value.(string); p != "" && (isString || keys[surface.Normalize(p[strings.LastIndex(p, ".")+1:])]) {
		return p
	}
	return ""
}

// keyNamed is the path of the first key in v (depth first, sorted) whose normalized name is in keys.
func keyNamed(v any, keys map[string]bool, path string) string {
	switch x := v.(type) {
	case map[string]any:
		names := make([]string, 0, len(x))
		for k := range x {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			if keys[surface.Normalize(k)] {
				return path + "." + k
			}
			if p := keyNamed(x[k], keys, path+"."+k); p != "" {
				return p
			}
		}
	case []any:
		for i, e := range x {
			if p := keyNamed(e, keys, fmt.Sprintf("%s[%d]", path, i)); p != "" {
				return p
			}
		}
	}
	return ""
}

func methodsOf(rs []transcript.Request) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Method
	}
	return out
}

// extra are the requests of rs beyond the methods of base (as many of each method as base has
// are the baseline's, the first ones).
func extra(rs []transcript.Request, base []string) []transcript.Request {
	left := map[string]int{}
	for _, m := range base {
		left[m]++
	}
	var out []transcript.Request
	for _, r := range rs {
		if left[r.Method] > 0 {
			left[r.Method]--
			continue
		}
		out = append(out, r)
	}
	return out
}

func without(rs, drop []transcript.Request) []transcript.Request {
	gone := map[int]bool{}
	for _, d := range drop {
		gone[d.Seq] = true
	}
	var out []transcript.Request
	for _, r := range rs {
		if !gone[r.Seq] {
			out = append(out, r)
		}
	}
	return out
}

// minus are the methods of a not in b (as a multiset), in a's order.
func minus(a, b []string) []string {
	left := map[string]int{}
	for _, m := range b {
		left[m]++
	}
	var out []string
	for _, m := range a {
		if left[m] > 0 {
			left[m]--
			continue
		}
		out = append(out, m)
	}
	return out
}

// most is every method the baselines sent, as many times as the baseline that sent it most
// (a request one baseline sends and another does not, a timer's, is no case's addition); least
// is what every baseline sent.
func most(bs [][]string) []string {
	out := append([]string(nil), bs[0]...)
	for _, b := range bs[1:] {
		out = append(out, minus(b, out)...)
	}
	return out
}

func least(bs [][]string) []string {
	out := append([]string(nil), bs[0]...)
	for _, b := range bs[1:] {
		out = minus(out, minus(out, b))
	}
	return out
}

func sameOrder(a, b []string) bool { return strings.Join(a, "\x00") == strings.Join(b, "\x00") }

// baselinesAgree says whether every baseline sent its requests in one order: an order they
// disagree on is not the SDK's fixed order, and a case is not held to it.
func baselinesAgree(bs [][]string) bool {
	for _, b := range bs[1:] {
		if !sameOrder(b, bs[0]) {
			return false
		}
	}
	return true
}

func orEmpty(m, fallback map[string]any) map[string]any {
	if m == nil {
		return fallback
	}
	return m
}

func orText(err error, text string) string {
	if err != nil {
		return err.Error()
	}
	return text
}

func (w *engine) orderClean() error {
	if w.order == nil {
		return fmt.Errorf("no options were set alone in this scenario")
	}
	total := 0
	for _, byKind := range w.order.judged {
		for _, n := range byKind {
			total += n
		}
	}
	if total == 0 {
		return fmt.Errorf("no option or handler could be judged: %s", strings.Join(append(w.order.problems, w.order.skipped...), "; "))
	}
	if len(w.order.problems) == 0 {
		return nil
	}
	ps := w.order.problems
	return &suite.Divergences{Text: fmt.Sprintf("%d order problems:\n  %s", len(ps), strings.Join(ps, "\n  ")), Items: ps}
}

// servesHandler says how an addition of a handler's case is shown to be the handler's, or "": its
// params name an event type of the schema (an interest the SDK registers), and that event, sent
// to the case's session, reaches the handler (the driver reports the call, capability
// surface.handlers.called). Nothing here names a handler or an event.
func (w *engine) servesHandler(a addition) string {
	if a.Case.Entry.Kind != "handler" || a.Case.SessionID == "" {
		return ""
	}
	if has, _ := w.T.Capability("surface.handlers.called"); !has {
		return ""
	}
	rt, err := w.StandIn("runtime.script.events")
	if err != nil {
		return ""
	}
	doc, err := w.Schemas()
	if err != nil {
		return ""
	}
	release, err := w.HoldDriverLines()
	if err != nil {
		return ""
	}
	defer release()
	params := surface.ParamsOf(a.Req.Params)
	for _, et := range doc.EventTypes {
		if surface.Carries(params, et.Type) == "" {
			continue
		}
		ev, err := doc.Event(et, "event/"+et.Type+"/with only the required fields", false)
		if err != nil {
			continue
		}
		cur := w.NewEventCursor()
		cur.Poll()
		reached := func() bool {
			cur.Poll()
			for _, c := range cur.Called {
				if c["session"] == a.Case.Handle && c["handler"] == a.Case.Entry.Name {
					return true
				}
			}
			return false
		}
		// A replay's runtime plays the event only if the recording holds it: the recorded call
		// comes with it, or with the flush, which follows the event whether it went out or not
		// (as in the surfacereached sweep).
		// The flush before it ends the recorded stretch the cases were judged on, so a replay
		// judges them without what the event made the SDK send.
		w.FlushDriver()
		seen := cur.Poll()
		sent := rt.Emit(a.Case.SessionID, ev) == nil
		// The application's report of the event comes once the SDK dispatched it (capability
		// events): awaited up to the backstop, so a loaded SDK is not taken for one whose
		// handler the event does not reach. Then scenario.Settle for a handler call that may
		// still follow it: whether the event reaches the handler at all is what is asked, so
		// that last wait is for an absence.
		if events, _ := w.T.Capability("events"); sent && events {
			for deadline := time.Now().Add(w.Backstop()); cur.Poll() == seen && time.Now().Before(deadline) && !reached(); {
				time.Sleep(5 * time.Millisecond)
			}
		}
		for deadline := time.Now().Add(scenario.Settle); sent && time.Now().Before(deadline) && !reached(); {
			time.Sleep(5 * time.Millisecond)
		}
		w.FlushDriver()
		if reached() {
			return fmt.Sprintf("it names the event %s, which, sent to the session, reached the handler", et.Type)
		}
	}
	return ""
}

// orderHandles are the session handles of the cases cs.
func orderHandles(cs []orderCase) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Handle
	}
	return out
}
