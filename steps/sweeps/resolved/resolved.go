package resolved

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/schemagen"
	"github.com/copilot-sdk-conformance/conformance/internal/standin"
	"github.com/copilot-sdk-conformance/conformance/internal/suite"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/copilot-sdk-conformance/conformance/steps/hold"
	"github.com/copilot-sdk-conformance/conformance/steps/jsondiff"
	"github.com/copilot-sdk-conformance/conformance/steps/scenario"
)

// Requests the runtime resolves or repeats (features/behaviour/resolved_requests.feature). The
// runtime asks the application for things with session events that carry a requestId (a tool
// call's external_tool.requested, permission.requested, elicitation.requested, …) and, once the
// request is settled (answered by this client, by another one, or given up), tells every client
// so with the event of the same family that ends in "completed" and carries the same requestId.
// The kinds come from session-events.schema.json, never from a list: a resolving event is an
// event type whose name's last word is "completed" and whose data requires requestId; the
// request events it resolves are the other event types of the same stem (the name without that
// last word: "permission.", "mcp.oauth_") whose data require requestId. Which of them an SDK
// answers is found by sending each once: a kind the SDK answers with no request naming the id
// is named and left out (there is nothing to judge).
//
// Three classes, each judged on the wire (the SDK's requests naming the requestId) and in what
// the application observed (the driver's handler reports: tool.invoked, permission.requested,
// rpc.handled, surface.handler.called):
//   - resolved while the handler runs: the tool's handler is held (drivers/PROTOCOL.md "Holding a
//     handler"), the runtime sends external_tool.completed, then the handler is released: the
//     SDK must not answer afterwards nor run the handler again;
//   - repeated: a request event sent twice with one requestId: one answer, one handler call;
//   - unseen: every resolving event for an id the SDK never saw: no request names it, the
//     connection stays, and a tool call after them is still answered.

// engine is the resolved sweep's state over the scenario's core: the request events sent,
// repeated and resolved.
type engine struct {
	*scenario.Scenario
	resolved *resolvedPhases
}

// Register binds the resolved sweep's phrases on sc for the scenario s.
func Register(sc scenario.Binder, s *scenario.Scenario) {
	w := &engine{Scenario: s}
	scenario.Needing(sc, scenario.Needs("handler.hold")).Step(`^the runtime sends each kind of request event, repeats it and resolves it, and resolves requests the SDK never saw$`, w.resolveEachKind)
	sc.Step(`^the SDK answered each request event sent twice with one requestId once, and the application's handler ran once$`, w.repeatedAnsweredOnce)
	sc.Step(`^the SDK did not answer a request the runtime resolved while the application's handler ran$`, w.resolvedNotAnswered)
	sc.Step(`^no request named a requestId the SDK never saw, and a tool call after them was answered$`, w.unseenHarmless)
	scenario.Needing(sc, scenario.Needs("handler.hold", "handler.cancel.tool")).Step(`^the runtime resolves a tool call while the application's handler runs$`, w.resolveToolWhileHeld)
	sc.Step(`^the application's tool handler was told within (\d+) ms that the runtime resolved its call$`, w.toolHandlerTold)
	scenario.Needing(sc, scenario.Needs("handler.hold")).Step(`^the runtime resolves each other kind of request while the application's handler runs$`, w.resolveKindsWhileHeld)
	sc.Step(`^the application's handler of each other kind of request was told within (\d+) ms that the runtime resolved it$`, w.kindHandlersTold)
}

// resolveSettle is how long the SDK is given to (wrongly) answer after the runtime's last move:
// an SDK answers a request it acts on within milliseconds.
const resolveSettle = 700 * time.Millisecond

// resolveAnswerWait bounds the wait for the first answer to a request event in the probe, where
// a kind the SDK does not answer costs all of it.
const resolveAnswerWait = 3 * time.Second

// answerWait bounds the wait for an answer the SDK is known to give (its kind was answered in
// the probe): an event, not a time, so it is a backstop of half the command timeout, which only
// an SDK that stopped answering reaches (on a loaded machine an answer took over 3 s).
func (w *engine) answerWait() time.Duration {
	return max(resolveAnswerWait, w.T.CommandTimeout()/2)
}

// barrier makes sure every line the driver wrote before now was read: a driver writes its
// handler's report before the handler returns, so before the SDK's answer went out, but the
// harness reads the driver's lines and the SDK's frames on separate streams; the answer to a
// hello comes after them on the driver's stream.
func (w *engine) barrier() error {
	return w.RoundTrip()
}

// resolvingKind is one kind of request event and the event type that resolves it.
type resolvingKind struct {
	request schemagen.EventType
	resolve schemagen.EventType
}

// resolvingKinds derives the kinds from the events schema (see above).
func resolvingKinds(doc *schemagen.Doc) []resolvingKind {
	withID := map[string]schemagen.EventType{}
	for _, et := range doc.EventTypes {
		if requiresRequestID(doc, et) {
			withID[et.Type] = et
		}
	}
	var out []resolvingKind
	for _, r := range doc.EventTypes {
		stem, ok := resolvingStem(r.Type)
		if !ok || withID[r.Type].Type == "" {
			continue
		}
		for _, q := range doc.EventTypes {
			if q.Type == r.Type || withID[q.Type].Type == "" || !strings.HasPrefix(q.Type, stem) {
				continue
			}
			if rest := q.Type[len(stem):]; rest != "" && !strings.ContainsAny(rest, "._") {
				out = append(out, resolvingKind{request: q, resolve: r})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].request.Type < out[j].request.Type })
	return out
}

// resolvingStem is the name of a resolving event type without its last word ("completed"),
// separator kept: "permission.completed" -> "permission.", "mcp.oauth_completed" -> "mcp.oauth_".
func resolvingStem(typ string) (string, bool) {
	i := strings.LastIndexAny(typ, "._")
	if i < 0 || typ[i+1:] != "completed" {
		return "", false
	}
	return typ[:i+1], true
}

// requiresRequestID says whether an event type's data requires requestId.
func requiresRequestID(doc *schemagen.Doc, et schemagen.EventType) bool {
	def, _ := doc.Node("session-events.schema.json#/definitions/" + et.Definition).(map[string]any)
	props, _ := def["properties"].(map[string]any)
	data, _ := props["data"].(map[string]any)
	for i := 0; i < 8; i++ { // follow the data's $ref chain
		ref, _ := data["$ref"].(string)
		if ref == "" {
			break
		}
		data, _ = doc.Node(ref).(map[string]any)
	}
	req, _ := data["required"].([]any)
	for _, r := range req {
		if r == "requestId" {
			return true
		}
	}
	return false
}

// resolvedCase is one request event the runtime sent in a phase: the requestId it carried and
// where the phase's moves are in the transcript (lengths before each move).
type resolvedCase struct {
	kind      resolvingKind
	requestID string
	start     int  // transcript length before the first send
	again     int  // repeat class: before the request sent twice (start: before one sent once)
	resolved  int  // before the resolving event (resolved class), 0 otherwise
	end       int  // after the settle
	reached   bool // the told class of the other kinds: the held handler reported request.held
}

// resolvedPhases is what the When step leaves for the Then steps.
type resolvedPhases struct {
	answered   []resolvingKind // the kinds the SDK answered when sent once
	unanswered []string
	repeated   []resolvedCase
	whileHeld  []resolvedCase
	unseen     []resolvedCase
	followUp   string // the requestId of the tool call after the unseen resolving events
	followErr  error
	// The told class of the other kinds: each kind's capability and its note (the way, or why
	// the SDK has none), and the cases held where it has one.
	ways map[string]way
	told []resolvedCase
}

// way is what an SDK declared of one kind's handler: whether its type lets the SDK tell it that
// the runtime resolved its request (capability handler.cancel.<kind>), and the driver's note.
type way struct {
	capability string
	has        bool
	note       string
}

// resolveEvent builds one event of et with requestId id: generated from the schema (required
// fields only), a tool request naming the session's tool.
func (w *engine) resolveEvent(doc *schemagen.Doc, et schemagen.EventType, id, sessionID, tool string) (map[string]any, error) {
	ev, err := doc.Event(et, "resolved/"+et.Type, false)
	if err != nil {
		return nil, err
	}
	data, _ := ev["data"].(map[string]any)
	if data == nil {
		return nil, fmt.Errorf("generated %s event has no data object", et.Type)
	}
	data["requestId"] = id
	if et.Type == "external_tool.requested" {
		data["toolName"], data["sessionId"], data["arguments"] = tool, sessionID, map[string]any{}
	}
	return ev, nil
}

// sdkNamed counts the SDK's requests naming requestId in frames after seq from (to: 0 = no end).
func sdkNamed(frames []hold.FrameHead, requestID string, from, to int) (n, first int) {
	for _, f := range frames {
		if f.Seq <= from || to > 0 && f.Seq > to || f.Dir != transcript.SDKToRuntime || f.Method == "" || f.RequestID != requestID {
			continue
		}
		n++
		if first == 0 {
			first = f.Seq
		}
	}
	return n, first
}

// runtimeSent lists the transcript seqs of the runtime's session events of type typ carrying
// requestID after seq from, for the messages.
func runtimeSent(frames []hold.FrameHead, typ, requestID string, from, to int) []string {
	var out []string
	for _, f := range frames {
		if f.Seq > from && (to == 0 || f.Seq <= to) && f.Dir == transcript.RuntimeToSDK && f.Event == typ && f.RequestID == requestID {
			out = append(out, fmt.Sprintf("#%d", f.Seq))
		}
	}
	return out
}

// appCalls counts the driver's handler reports in the transcript between two lengths: what the
// application observed (a handler ran).
func appCalls(entries []transcript.Entry, from, to int) int {
	n := 0
	for _, e := range entries {
		if e.Seq <= from || to > 0 && e.Seq > to {
			continue
		}
		switch ev, _, ok := scenario.DriverEvent(e); {
		case !ok:
		case ev == "tool.invoked", ev == "permission.requested", ev == "rpc.handled", ev == "surface.handler.called":
			n++
		}
	}
	return n
}

// settle waits until the SDK sent a request naming requestId after seq since (up to
// answerWait), then resolveSettle more for anything that follows.
func (w *engine) settle(requestID string, since int) {
	deadline := time.Now().Add(w.answerWait())
	for requestID != "" && time.Now().Before(deadline) && w.Gone() == nil {
		if n, _ := sdkNamed(hold.FrameHeads(w.Entries()), requestID, since, 0); n > 0 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(resolveSettle)
}

// handlerReported makes sure the driver's report of a handler call after the SDK's answer was
// read: a driver's event line can come after the SDK's answer on the wire, and a report of the
// single send that arrives late would be counted for the repeat (measured on Java and Go under
// load: "ran 2 times for the request sent twice, 0 for one sent once"). Not a wait for a report:
// the elicitation and command handlers report none.
func (w *engine) handlerReported() error {
	return w.barrier()
}

// settleAll waits until the SDK answered every kind's probe or resolveAnswerWait passed, then
// resolveSettle more.
func (w *engine) settleAll(kinds []resolvingKind, since int) {
	deadline := time.Now().Add(resolveAnswerWait)
	for time.Now().Before(deadline) && w.Gone() == nil {
		frames, all := hold.FrameHeads(w.Entries()), true
		for _, k := range kinds {
			if n, _ := sdkNamed(frames, "probe-"+k.request.Type, since, 0); n == 0 {
				all = false
				break
			}
		}
		if all {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(resolveSettle)
}

// resolveEachKind is the When step: each kind once (which ones the SDK answers), each answered
// kind repeated under one requestId, the tool call resolved while its handler is held, then
// every resolving event for an id the SDK never saw, followed by a tool call.
func (w *engine) resolveEachKind() error {
	rt, doc, s, tool, err := w.prelude("the scenario has the runtime send request events, repeat them and resolve them on demand; the real runtime does so only when its model's step makes it", "a tool call is one kind of request")
	if err != nil {
		return err
	}
	release, err := w.HoldDriverLines()
	if err != nil {
		return err
	}
	defer release()
	kinds := resolvingKinds(doc)
	if len(kinds) == 0 {
		return fmt.Errorf("the runtime's events schema has no request event with a resolving event (NAME.completed carrying requestId)")
	}
	p := &resolvedPhases{}
	w.resolved = p
	w.Expect(len(kinds))
	emit := w.resolvedEmitter(rt, s)
	if err := w.probe(doc, s, tool, kinds, emit, p); err != nil {
		return err
	}
	// Each answered kind sent once (what a single request makes the application observe), then
	// twice at once with one requestId, as a runtime that repeats a request before it was
	// answered does.
	for i, k := range p.answered {
		if err := w.Gone(); err != nil {
			return scenario.CutShort(err, i, len(p.answered), k.request.Type)
		}
		c := resolvedCase{kind: k, requestID: "repeat-" + k.request.Type, start: len(w.Rec.Entries())}
		once, err := w.resolveEvent(doc, k.request, "once-"+k.request.Type, s.ID, tool)
		var twice map[string]any
		if err == nil {
			twice, err = w.resolveEvent(doc, k.request, c.requestID, s.ID, tool)
		}
		if err != nil {
			w.Rec.Notef("", "generator: %v", err)
			continue
		}
		w.CaseSends(k.request.Type+" once, then twice under one requestId", []any{once, twice})
		if err := emit(once, k.request.Type, "once-"+k.request.Type); err != nil {
			return scenario.CutShort(err, i, len(p.answered), k.request.Type)
		}
		w.settle("once-"+k.request.Type, c.start)
		if err := w.handlerReported(); err != nil {
			return scenario.CutShort(err, i, len(p.answered), k.request.Type)
		}
		c.again = len(w.Rec.Entries())
		// The tool's handler is held meanwhile, so that the repeat certainly finds the first
		// still in flight (the other kinds' handlers cannot be held: their answer may go out
		// before the SDK reads the repeat, which must then not be answered either).
		var gate map[string]any
		if k.request.Type == "external_tool.requested" {
			gate = hold.Args(s, hold.Kind{Tool: tool})
			if _, err := w.Do("hold", gate); err != nil {
				return err
			}
		}
		err = rt.Await(s.ID, c.requestID)
		if err == nil {
			err = rt.EmitTogether(s.ID, twice, twice)
		}
		if errors.Is(err, standin.ErrClosed) {
			err = w.ConnectionLost(err)
		}
		if gate != nil {
			if err == nil && hold.Reached(w.Scenario, hold.Kind{Tool: tool}, c.again, nil) {
				time.Sleep(resolveSettle) // the repeat is read meanwhile
			}
			if _, rerr := w.Do("release", gate); err == nil {
				err = rerr
			}
		}
		if err != nil {
			return scenario.CutShort(err, i, len(p.answered), k.request.Type)
		}
		w.settle(c.requestID, c.again)
		if err := w.barrier(); err != nil { // the repeat's reports are its own, not the next kind's
			return scenario.CutShort(err, i, len(p.answered), k.request.Type)
		}
		c.end = len(w.Rec.Entries())
		p.repeated = append(p.repeated, c)
		for _, id := range []string{"once-" + k.request.Type, c.requestID} {
			if done, err := w.resolveEvent(doc, k.resolve, id, s.ID, tool); err == nil {
				_ = emit(done, k.resolve.Type, "")
			}
		}
	}
	if len(p.unanswered) > 0 {
		w.Observe("request events the SDK did not answer (not judged)", strings.Join(p.unanswered, ", "))
	}
	// The tool call resolved while its handler is held (the step needs handler.hold).
	for _, k := range p.answered {
		if k.request.Type != "external_tool.requested" {
			continue
		}
		c, err := w.resolveWhileHeld(doc, s, k, tool, emit, false)
		if err != nil {
			return err
		}
		p.whileHeld = append(p.whileHeld, c)
	}
	// Every resolving event for an id the SDK never saw, then a tool call.
	seen := map[string]bool{}
	start := len(w.Rec.Entries())
	for _, k := range kinds {
		if seen[k.resolve.Type] {
			continue
		}
		seen[k.resolve.Type] = true
		c := resolvedCase{kind: k, requestID: "unseen-" + k.resolve.Type, start: start}
		ev, err := w.resolveEvent(doc, k.resolve, c.requestID, s.ID, tool)
		if err != nil {
			w.Rec.Notef("", "generator: %v", err)
			continue
		}
		w.CaseSends(k.resolve.Type+" for a requestId never sent", ev)
		if err := emit(ev, k.resolve.Type, ""); err != nil {
			return err
		}
		p.unseen = append(p.unseen, c)
	}
	w.settle("", 0)
	p.followUp, p.followErr = rt.CallTool(s.ID, tool, nil)
	end := len(w.Rec.Entries())
	for i := range p.unseen {
		p.unseen[i].end = end
	}
	if errors.Is(p.followErr, standin.ErrClosed) {
		return w.ConnectionLost(p.followErr)
	}
	w.Observe("request kinds (answered of derived)", fmt.Sprintf("%d of %d", len(p.answered), len(kinds)))
	return w.RoundTrip()
}

// probe sends each kind once, all at once, and sorts them into p.answered and p.unanswered:
// which of them the SDK answers. A request is the case of the event whose requestId it names
// (caseSends).
func (w *engine) probe(doc *schemagen.Doc, s scenario.Session, tool string, kinds []resolvingKind, emit func(map[string]any, string, string) error, p *resolvedPhases) error {
	probeStart := len(w.Rec.Entries())
	probes := map[string]map[string]any{}
	for _, k := range kinds {
		ev, err := w.resolveEvent(doc, k.request, "probe-"+k.request.Type, s.ID, tool)
		if err != nil {
			w.Rec.Notef("", "generator: %v", err)
			continue
		}
		w.CaseSends(k.request.Type+" once, every kind at once", ev)
		if err := emit(ev, k.request.Type, "probe-"+k.request.Type); err != nil {
			return err
		}
		probes[k.request.Type] = ev
	}
	w.settleAll(kinds, probeStart)
	frames := hold.FrameHeads(w.Entries())
	for _, k := range kinds {
		if probes[k.request.Type] == nil {
			continue
		}
		if n, _ := sdkNamed(frames, "probe-"+k.request.Type, probeStart, 0); n == 0 {
			p.unanswered = append(p.unanswered, k.request.Type)
		} else {
			p.answered = append(p.answered, k)
		}
		// Settled for the runtime too, as the real runtime ends every request.
		if done, err := w.resolveEvent(doc, k.resolve, "probe-"+k.request.Type, s.ID, tool); err == nil {
			_ = emit(done, k.resolve.Type, "")
		}
	}
	return nil
}

// resolvedEmitter sends one event of the session; await, when not empty, is the requestId of a
// request the runtime awaits as the real one does: the first answer is accepted, a second
// refused.
func (w *engine) resolvedEmitter(rt *standin.Server, s scenario.Session) func(ev map[string]any, what, await string) error {
	return func(ev map[string]any, what, await string) error {
		if await != "" {
			if err := rt.Await(s.ID, await); err != nil {
				return err
			}
		}
		if err := rt.Emit(s.ID, ev); err != nil {
			if errors.Is(err, standin.ErrClosed) {
				return w.ConnectionLost(err)
			}
			return fmt.Errorf("the runtime could not send %s: %w", what, err)
		}
		return nil
	}
}

// resolveWhileHeld holds the tool's handler, sends the request, waits until the handler is
// reached, sends the resolving event, releases the handler and waits for anything that follows.
// With told, the release waits (hold.ToldWait at most) until the handler reported that it was told
// (tool.cancelled): released first, a handler that watches its way stops watching.
func (w *engine) resolveWhileHeld(doc *schemagen.Doc, s scenario.Session, k resolvingKind, tool string, emit func(map[string]any, string, string) error, told bool) (resolvedCase, error) {
	c := resolvedCase{kind: k, requestID: "resolved-" + k.request.Type}
	gate := hold.Args(s, hold.Kind{Tool: tool})
	done, armed, err := w.sendHeld(doc, s, k, tool, emit, gate, &c)
	if !armed {
		return c, err
	}
	if err == nil && !hold.Reached(w.Scenario, hold.Kind{Tool: tool}, c.start, nil) {
		w.Rec.Notef("", "the tool %s's handler was not reached within %s: the resolving event goes out all the same", tool, hold.Backstop(w.Scenario))
	}
	if err == nil {
		c.resolved = len(w.Rec.Entries())
		err = emit(done, k.resolve.Type, "")
	}
	if err == nil {
		// The release travels another way (the driver's stdin) than the resolving event (the
		// SDK's connection): it goes once the SDK has read the event, which the application's
		// event callback shows.
		w.delivered(k.resolve.Type, c.requestID, c.resolved)
		if told {
			w.reported(c.resolved, hold.ToldWait, func(ev string, args map[string]any) bool { return ev == toolCancelled && args["tool"] == tool })
		}
	}
	if _, rerr := w.Do("release", gate); err == nil {
		err = rerr
	}
	w.settle("", 0)
	c.end = len(w.Rec.Entries())
	return c, err
}

// delivered waits until the driver reported the session event of type typ carrying requestID
// after seq since (the SDK delivered it to the application), hold.Backstop at most: an SDK with
// the events capability gives the application every event, so the wait is for that report;
// without the capability nothing would report it, and it waits resolveSettle.
func (w *engine) delivered(typ, requestID string, since int) {
	if has, _ := w.T.Capability("events"); !has {
		time.Sleep(resolveSettle)
		return
	}
	deadline := time.Now().Add(hold.Backstop(w.Scenario))
	for time.Now().Before(deadline) && w.Gone() == nil {
		for _, e := range w.Entries() {
			ev, args, ok := scenario.DriverEvent(e)
			if !ok || e.Seq <= since || ev != "session.event" || args["type"] != typ {
				continue
			}
			if data, _ := args["data"].(map[string]any); data["requestId"] == requestID {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	w.Rec.Notef("", "the application was not given %s %s within %s: released all the same", typ, requestID, hold.Backstop(w.Scenario))
}

// repeatedAnsweredOnce is the Then step of the repeat class: one answer naming the requestId,
// and no handler call for the repeated send.
func (w *engine) repeatedAnsweredOnce() error {
	p, err := w.resolvedRun()
	if err != nil {
		return err
	}
	if len(p.repeated) == 0 {
		return fmt.Errorf("the SDK answered none of the request events (%s), so none could be repeated", strings.Join(p.unanswered, ", "))
	}
	return jsondiff.GroupedError(judgeRepeated(w.Entries(), p.repeated, w.Check), "request events sent twice with one requestId were not handled once", "kinds")
}

func judgeRepeated(entries []transcript.Entry, cases []resolvedCase, check func(string, string)) map[string][]string {
	frames := hold.FrameHeads(entries)
	fails := map[string][]string{}
	for _, c := range cases {
		k := c.kind.request.Type
		check(k+" sent twice with one requestId", "")
		// Both sends are recorded before they are written (standin.EmitTogether): every answer
		// comes after both.
		sent := strings.Join(runtimeSent(frames, k, c.requestID, c.again, c.end), " and ")
		if n, _ := sdkNamed(frames, c.requestID, c.again, c.end); n != 1 {
			fails[k] = append(fails[k], fmt.Sprintf("requestId %s: %d requests of the SDK name it, one expected (the runtime sent it at %s)", c.requestID, n, sent))
		}
		if once, twice := appCalls(entries, c.start, c.again), appCalls(entries, c.again, c.end); twice > once {
			fails[k] = append(fails[k], fmt.Sprintf("requestId %s: the application's handler ran %d times for the request sent twice (%s), %d for one sent once", c.requestID, twice, sent, once))
		}
	}
	return fails
}

// resolvedNotAnswered is the Then step of the resolved class: after the resolving event, no
// request naming the requestId and no handler call.
func (w *engine) resolvedNotAnswered() error {
	p, err := w.resolvedRun()
	if err != nil {
		return err
	}
	if len(p.whileHeld) == 0 {
		return fmt.Errorf("no request was resolved while its handler ran (the SDK answered none of the tool-call events: %s)", strings.Join(p.unanswered, ", "))
	}
	return jsondiff.GroupedError(judgeResolved(w.Entries(), p.whileHeld, w.Check), "requests the runtime resolved while the application's handler ran were acted on afterwards", "kinds")
}

func judgeResolved(entries []transcript.Entry, cases []resolvedCase, check func(string, string)) map[string][]string {
	frames := hold.FrameHeads(entries)
	fails := map[string][]string{}
	for _, c := range cases {
		k := c.kind.request.Type
		check(k+" resolved by "+c.kind.resolve.Type+" while its handler runs", "")
		if c.resolved == 0 {
			fails[k] = append(fails[k], fmt.Sprintf("requestId %s: the resolving %s was never sent", c.requestID, c.kind.resolve.Type))
			continue
		}
		at := strings.Join(runtimeSent(frames, c.kind.resolve.Type, c.requestID, c.resolved, c.end), ", ")
		if n, first := sdkNamed(frames, c.requestID, c.resolved, c.end); n > 0 {
			fails[k] = append(fails[k], fmt.Sprintf("requestId %s: answered (#%d, %d requests) after the runtime resolved it with %s (%s)", c.requestID, first, n, c.kind.resolve.Type, at))
		}
		if n := appCalls(entries, c.resolved, c.end); n > 0 {
			fails[k] = append(fails[k], fmt.Sprintf("requestId %s: the application's handler ran again after %s (%s)", c.requestID, c.kind.resolve.Type, at))
		}
	}
	return fails
}

// unseenHarmless is the Then step of the unseen class: no request names an unseen requestId and
// the tool call after them was answered.
func (w *engine) unseenHarmless() error {
	p, err := w.resolvedRun()
	if err != nil {
		return err
	}
	if len(p.unseen) == 0 {
		return fmt.Errorf("no resolving event was sent")
	}
	return jsondiff.GroupedError(judgeUnseen(w.Entries(), p, w.Check), "resolving events for requests the SDK never saw did harm", "resolving events")
}

func judgeUnseen(entries []transcript.Entry, p *resolvedPhases, check func(string, string)) map[string][]string {
	frames := hold.FrameHeads(entries)
	fails := map[string][]string{}
	for _, c := range p.unseen {
		k := c.kind.resolve.Type
		check(k+" for an unseen requestId", "")
		if n, first := sdkNamed(frames, c.requestID, c.start, c.end); n > 0 {
			fails[k] = append(fails[k], fmt.Sprintf("requestId %s (never requested): the SDK sent %d requests naming it (the first #%d)", c.requestID, n, first))
		}
	}
	check("a tool call after the unseen resolving events", "")
	if p.followErr != nil {
		fails["the tool call after them"] = append(fails["the tool call after them"], fmt.Sprintf("%s: %v", p.followUp, p.followErr))
	}
	return fails
}

func (w *engine) resolvedRun() (*resolvedPhases, error) {
	if w.resolved == nil {
		return nil, fmt.Errorf("no request events were sent in this scenario")
	}
	return w.resolved, nil
}

// resolveToolWhileHeld is the When step of the told class: the session's first tool's call,
// resolved while its handler is held (resolveWhileHeld), the release held back until the
// handler reported it was told or hold.ToldWait passed.
func (w *engine) resolveToolWhileHeld() error {
	rt, doc, s, tool, err := w.prelude("the scenario has the runtime resolve a tool call on demand; the real runtime does so only when its model's step makes it", "its call is the request resolved")
	if err != nil {
		return err
	}
	var kind *resolvingKind
	for _, k := range resolvingKinds(doc) {
		if k.request.Type == "external_tool.requested" {
			kind = &k
			break
		}
	}
	if kind == nil {
		return fmt.Errorf("the runtime's events schema resolves no external_tool.requested (no NAME.completed of its family carrying requestId)")
	}
	release, err := w.HoldDriverLines()
	if err != nil {
		return err
	}
	defer release()
	p := &resolvedPhases{answered: []resolvingKind{*kind}}
	w.resolved = p
	c, err := w.resolveWhileHeld(doc, s, *kind, tool, w.resolvedEmitter(rt, s), true)
	p.whileHeld = append(p.whileHeld, c)
	if err != nil {
		return err
	}
	return w.RoundTrip()
}

// toolCancelled is the driver's report that a tool's held handler was told its call was
// resolved (drivers/PROTOCOL.md "Holding a handler").
const toolCancelled = "tool.cancelled"

// toolHandlerTold is the Then step of the told class: where the SDK's tool handler API has a way
// to learn that the runtime resolved its call (capability handler.cancel.tool), the held handler
// was told within the bound after the resolving event.
func (w *engine) toolHandlerTold(ms int) error {
	p, err := w.resolvedRun()
	if err != nil {
		return err
	}
	has, note := w.T.Capability("handler.cancel.tool")
	return judgeTold(has, note, w.T.SDK(), w.Entries(), p.whileHeld, time.Duration(ms)*time.Millisecond, w.Check)
}

// resolveKindsWhileHeld is the When step of the told class for every other kind: the kinds the
// SDK answers (probe) apart from the tool call; each whose handler has a way to be told
// (capability handler.cancel.<kind>) is held, sent, resolved and released as the tool call is
// (resolveRequestWhileHeld); a kind without one is recorded for the judgement.
func (w *engine) resolveKindsWhileHeld() error {
	rt, doc, s, tool, err := w.prelude("the scenario has the runtime send requests and resolve them on demand; the real runtime does so only when its model's step makes it", "the probe sends a tool call too")
	if err != nil {
		return err
	}
	release, err := w.HoldDriverLines()
	if err != nil {
		return err
	}
	defer release()
	var kinds []resolvingKind
	for _, k := range resolvingKinds(doc) {
		if k.request.Type != toolRequest {
			kinds = append(kinds, k)
		}
	}
	if len(kinds) == 0 {
		return fmt.Errorf("the runtime's events schema has no request event other than the tool call with a resolving event")
	}
	p := &resolvedPhases{ways: map[string]way{}}
	w.resolved = p
	emit := w.resolvedEmitter(rt, s)
	if err := w.probe(doc, s, tool, kinds, emit, p); err != nil {
		return err
	}
	if len(p.unanswered) > 0 {
		w.Observe("request events the SDK did not answer (not judged)", strings.Join(p.unanswered, ", "))
	}
	w.Expect(len(p.answered))
	for i, k := range p.answered {
		if err := w.Gone(); err != nil {
			return scenario.CutShort(err, i, len(p.answered), k.request.Type)
		}
		c := cancelCapability(k)
		if !suite.KnownCapability(c) {
			return fmt.Errorf("the SDK answers %s, whose handler's capability %s is not one of the protocol's (internal/suite Capabilities, drivers/PROTOCOL.md)", k.request.Type, c)
		}
		has, note := w.T.Capability(c)
		p.ways[k.request.Type] = way{capability: c, has: has, note: note}
		if !has {
			w.Observe(c, "false: "+note)
			continue
		}
		cs, err := w.resolveRequestWhileHeld(doc, s, k, tool, emit)
		p.told = append(p.told, cs)
		if err != nil {
			return scenario.CutShort(err, i, len(p.answered), k.request.Type)
		}
	}
	return w.RoundTrip()
}

// sendHeld arms gate, then sends c's request (recording where the case starts) and generates its
// resolving event (done); armed is false when the gate could not be armed (err says why).
func (w *engine) sendHeld(doc *schemagen.Doc, s scenario.Session, k resolvingKind, tool string, emit func(map[string]any, string, string) error, gate map[string]any, c *resolvedCase) (done map[string]any, armed bool, err error) {
	if _, err := w.Do("hold", gate); err != nil {
		return nil, false, err
	}
	c.start = len(w.Rec.Entries())
	ev, err := w.resolveEvent(doc, k.request, c.requestID, s.ID, tool)
	w.CaseSends(k.request.Type+" resolved while its handler is held", ev)
	if err == nil {
		err = emit(ev, k.request.Type, c.requestID)
	}
	if err == nil {
		done, err = w.resolveEvent(doc, k.resolve, c.requestID, s.ID, tool)
	}
	return done, true, err
}

// resolveRequestWhileHeld is resolveWhileHeld for the handler of a request event (a gate named
// by "request", drivers/PROTOCOL.md "Holding a handler"): the gate armed, the request sent, the
// handler's request.held awaited, the resolving event sent once the application was given it,
// the release held back until the handler reported request.cancelled (hold.ToldWait at most).
func (w *engine) resolveRequestWhileHeld(doc *schemagen.Doc, s scenario.Session, k resolvingKind, tool string, emit func(map[string]any, string, string) error) (resolvedCase, error) {
	c := resolvedCase{kind: k, requestID: "told-" + k.request.Type}
	gate := map[string]any{"session": s.Handle, "request": k.request.Type}
	done, armed, err := w.sendHeld(doc, s, k, tool, emit, gate, &c)
	if !armed {
		return c, err
	}
	if err == nil {
		c.reached = w.reported(c.start, hold.Backstop(w.Scenario), func(ev string, args map[string]any) bool {
			return ev == requestHeld && args["request"] == k.request.Type
		})
		if !c.reached {
			w.Rec.Notef("", "the application's %s handler was not reached within %s: the resolving event goes out all the same", k.request.Type, hold.Backstop(w.Scenario))
		}
		c.resolved = len(w.Rec.Entries())
		err = emit(done, k.resolve.Type, "")
	}
	if err == nil {
		w.delivered(k.resolve.Type, c.requestID, c.resolved)
		w.reported(c.resolved, hold.ToldWait, func(ev string, args map[string]any) bool { return toldBy(k, ev, args) })
	}
	if _, rerr := w.Do("release", gate); err == nil {
		err = rerr
	}
	w.settle("", 0)
	c.end = len(w.Rec.Entries())
	return c, err
}

// reported waits until the driver reported an event match accepts after seq since, bound at
// most: hold.Backstop for a report known to come (a held handler reached, its kind answered in
// the probe), hold.ToldWait for one the SDK may never make (told).
func (w *engine) reported(since int, bound time.Duration, match func(ev string, args map[string]any) bool) bool {
	deadline := time.Now().Add(bound)
	for time.Now().Before(deadline) && w.Gone() == nil {
		for _, e := range w.Entries() {
			if ev, args, ok := scenario.DriverEvent(e); ok && e.Seq > since && match(ev, args) {
				return true
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

// The driver's reports of a held request handler (drivers/PROTOCOL.md "Holding a handler"):
// reached and waiting for its gate; told that the runtime resolved its request.
const (
	requestHeld      = "request.held"
	requestCancelled = "request.cancelled"
)

// kindHandlersTold is the Then step of the told class for every other kind (judgeToldKinds).
func (w *engine) kindHandlersTold(ms int) error {
	p, err := w.resolvedRun()
	if err != nil {
		return err
	}
	if p.ways == nil {
		return fmt.Errorf("no request of another kind than the tool call was resolved in this scenario")
	}
	if len(p.ways) == 0 {
		return fmt.Errorf("the SDK answered no request event other than the tool call (%s)", strings.Join(p.unanswered, ", "))
	}
	return judgeToldKinds(p.ways, w.T.SDK(), w.Entries(), p.told, time.Duration(ms)*time.Millisecond, w.Check)
}

// judgeTold judges each case resolved while its tool handler was held: the driver's
// tool.cancelled report must follow the resolving event within bound (the transcript's clock).
// An SDK whose tool handler has no way to be told (has false) is unsupported, never passed.
func judgeTold(has bool, note, sdk string, entries []transcript.Entry, cases []resolvedCase, bound time.Duration, check func(string, string)) error {
	if !has {
		return &scenario.ErrUnsupported{Capability: "handler.cancel.tool", Reason: fmt.Sprintf("%s's tool handler has no way to learn that the runtime resolved its call: %s", sdk, note)}
	}
	if len(cases) == 0 {
		return fmt.Errorf("no tool call was resolved while its handler ran")
	}
	fails := map[string][]string{}
	for _, c := range cases {
		k := c.kind.request.Type
		check(k+" resolved while its handler runs: the handler told", "")
		if f := toldFails(c, note, sdk, entries, bound); len(f) > 0 {
			fails[k] = append(fails[k], f...)
		}
	}
	return jsondiff.GroupedError(fails, "tool calls the runtime resolved were not told to the application's handler in time", "kinds")
}

// judgeToldKinds is judgeTold for the other kinds: each kind whose handler has a way (ways) is
// judged on its case (none: its handler was never reached, a failure); a kind without one is
// unsupported, and when no kind has one the whole check is, never passed.
func judgeToldKinds(ways map[string]way, sdk string, entries []transcript.Entry, cases []resolvedCase, bound time.Duration, check func(string, string)) error {
	var kinds, without []string
	for k := range ways {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	fails := map[string][]string{}
	for _, k := range kinds {
		wy := ways[k]
		if !wy.has {
			without = append(without, fmt.Sprintf("%s (%s): %s", k, wy.capability, wy.note))
			continue
		}
		check(k+" resolved while its handler runs: the handler told", "")
		var c *resolvedCase
		for i := range cases {
			if cases[i].kind.request.Type == k {
				c = &cases[i]
			}
		}
		switch {
		case c == nil:
			fails[k] = append(fails[k], fmt.Sprintf("%s: no %s was resolved while its handler ran", sdk, k))
		case !c.reached:
			fails[k] = append(fails[k], fmt.Sprintf("requestId %s (%s): the application's %s handler was never reached (no request.held), its way declared: %s", c.requestID, sdk, handlerName(c.kind), wy.note))
		default:
			if f := toldFails(*c, wy.note, sdk, entries, bound); len(f) > 0 {
				fails[k] = f
			}
		}
	}
	if len(without) == len(kinds) {
		capability := "handler.cancel.<kind>"
		if len(kinds) > 0 {
			capability = ways[kinds[0]].capability
		}
		return &scenario.ErrUnsupported{Capability: capability, Reason: fmt.Sprintf("%s's handlers have no way to learn that the runtime resolved their request: %s", sdk, strings.Join(without, "; "))}
	}
	return jsondiff.GroupedError(fails, "requests the runtime resolved were not told to the application's handler in time", "kinds")
}

// toldFails is the told judgement of one case: the driver's report that the handler was told
// (toldBy) must follow the resolving event within bound, by the transcript's clock.
func toldFails(c resolvedCase, note, sdk string, entries []transcript.Entry, bound time.Duration) []string {
	name := handlerName(c.kind)
	if c.resolved == 0 {
		return []string{fmt.Sprintf("requestId %s (%s): the resolving %s was never sent", c.requestID, sdk, c.kind.resolve.Type)}
	}
	var at *transcript.Entry
	for i, e := range entries {
		if e.Seq > c.resolved && (c.end == 0 || e.Seq <= c.end) && e.Dir == transcript.RuntimeToSDK {
			if f := hold.FrameHeads(entries[i : i+1]); len(f) == 1 && f[0].Event == c.kind.resolve.Type && f[0].RequestID == c.requestID {
				at = &entries[i]
				break
			}
		}
	}
	if at == nil {
		return []string{fmt.Sprintf("requestId %s (%s): the resolving %s is not in the transcript", c.requestID, sdk, c.kind.resolve.Type)}
	}
	var told *transcript.Entry
	for i, e := range entries {
		if ev, args, ok := scenario.DriverEvent(e); ok && toldBy(c.kind, ev, args) && e.Seq > c.start && (c.end == 0 || e.Seq <= c.end) {
			told = &entries[i]
			break
		}
	}
	switch {
	case told == nil:
		return []string{fmt.Sprintf("requestId %s (%s): the application's %s handler was never told after %s (#%d), its way declared: %s", c.requestID, sdk, name, c.kind.resolve.Type, at.Seq, note)}
	case told.Seq < at.Seq:
		return []string{fmt.Sprintf("requestId %s (%s): the application's %s handler was told (#%d) before the runtime resolved the %s (#%d)", c.requestID, sdk, name, told.Seq, resolvedNoun(c.kind), at.Seq)}
	}
	// The bound runs from when the application was given the resolving event, where the driver
	// reports it (its session.event line, on the same stream as the told line): the runtime's
	// frame waits in a loaded SDK's read loop before either (measured: Node told 1131 ms after
	// the frame at load 11, a few ms after the event).
	from, what := at, fmt.Sprintf("%s (#%d, told #%d)", c.kind.resolve.Type, at.Seq, told.Seq)
	if given := givenEvent(entries, c.kind.resolve.Type, c.requestID, at.Seq, told.Seq); given != nil {
		from, what = given, fmt.Sprintf("the application was given %s (#%d, sent #%d, told #%d)", c.kind.resolve.Type, given.Seq, at.Seq, told.Seq)
	}
	if after := time.Duration((told.TMS - from.TMS) * float64(time.Millisecond)); after > bound {
		return []string{fmt.Sprintf("requestId %s (%s): the application's %s handler was told %d ms after %s, %d ms at most", c.requestID, sdk, name, after.Milliseconds(), what, bound.Milliseconds())}
	}
	return nil
}

// givenEvent is the driver's report that the application was given the session event typ naming
// requestID, between seqs from and to, or nil (a driver that does not report events).
func givenEvent(entries []transcript.Entry, typ, requestID string, from, to int) *transcript.Entry {
	for i, e := range entries {
		if e.Seq <= from || e.Seq >= to {
			continue
		}
		ev, args, ok := scenario.DriverEvent(e)
		if !ok || ev != "session.event" || args["type"] != typ {
			continue
		}
		if data, _ := args["data"].(map[string]any); data != nil && data["requestId"] == requestID {
			return &entries[i]
		}
	}
	return nil
}

// toldBy says whether a driver's report says the held handler of kind k was told: tool.cancelled
// for a tool call, request.cancelled naming the request event type for the others.
func toldBy(k resolvingKind, ev string, args map[string]any) bool {
	if k.request.Type == toolRequest {
		return ev == toolCancelled
	}
	return ev == requestCancelled && args["request"] == k.request.Type
}

func resolvedNoun(k resolvingKind) string {
	if k.request.Type == toolRequest {
		return "call"
	}
	return "request"
}

// toolRequest is the request event of a tool call, told through the tool's handler.
const toolRequest = "external_tool.requested"

// handlerName is the last word of a kind's family (the resolving event's name without its last
// word): external_tool. -> tool, permission. -> permission, mcp.oauth_ -> oauth. It names the
// kind's capability, handler.cancel.<name>.
func handlerName(k resolvingKind) string {
	stem, _ := resolvingStem(k.resolve.Type)
	stem = strings.TrimRight(stem, "._")
	return stem[strings.LastIndexAny(stem, "._")+1:]
}

// cancelCapability is the capability of a kind's handler: its SDK lets it learn that the runtime
// resolved its request (drivers/PROTOCOL.md "Holding a handler").
func cancelCapability(k resolvingKind) string { return "handler.cancel." + handlerName(k) }

// prelude is what every When step of the sweep needs: the scripted runtime (why: the reason it
// cannot be the real one), the schemas, the current session and its first tool (role: what the
// tool is for, should the session have none).
func (w *engine) prelude(why, role string) (*standin.Server, *schemagen.Doc, scenario.Session, string, error) {
	rt, err := w.ScriptedOnly(why)
	if err != nil {
		return nil, nil, scenario.Session{}, "", err
	}
	doc, err := w.Schemas()
	if err != nil {
		return nil, nil, scenario.Session{}, "", err
	}
	s, err := w.Current()
	if err != nil {
		return nil, nil, scenario.Session{}, "", err
	}
	tool := w.firstTool()
	if tool == "" {
		return nil, nil, scenario.Session{}, "", fmt.Errorf("the scenario needs a tool of the session (%s)", role)
	}
	return rt, doc, s, tool, nil
}

// firstTool is the name of the session's first named tool ("" when none): its call is the tool
// request the resolved sweep sends.
func (w *engine) firstTool() string {
	for _, t := range w.Tools {
		if name, _ := t["name"].(string); name != "" {
			return name
		}
	}
	return ""
}
