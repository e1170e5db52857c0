package steps

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/standin"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/copilot-sdk-conformance/conformance/internal/wire"
)

// The scripted model: steps before a send build the turn the runtime plays for it.

func (w *world) modelCalls(tool string) error { return w.modelCallsWith(tool, "{}") }

func (w *world) modelCallsWith(tool, args string) error {
	var a map[string]any
	if err := json.Unmarshal([]byte(args), &a); err != nil {
		return fmt.Errorf("tool arguments must be a JSON object: %w", err)
	}
	w.Turn.Steps = append(w.Turn.Steps, standin.ModelStep{Tool: tool, Arguments: a})
	return nil
}

// modelCallsTogether scripts one model message asking for several tools at once: the runtime
// sends every request before it awaits any answer (standin.ModelStep.Together; the real
// runtime's scripted model puts every call in one message, and the real runtime runs them at
// once).
func (w *world) modelCallsTogether(list string) error {
	var tools []string
	for _, m := range quoted.FindAllStringSubmatch(list, -1) {
		tools = append(tools, m[1])
	}
	if len(tools) < 2 {
		return fmt.Errorf("calling tools at once needs at least two, got %q", list)
	}
	w.Turn.Steps = append(w.Turn.Steps, standin.ModelStep{Together: tools})
	return nil
}

func (w *world) modelReplies(text string) error {
	w.Turn.Steps = append(w.Turn.Steps, standin.ModelStep{Reply: text})
	return nil
}

// event is one session.event notification the runtime sent, with its place in the transcript.
type event struct {
	seq  int
	typ  string
	data map[string]any
}

func (w *world) runtimeEvents() []event {
	var out []event
	for _, e := range w.Entries() {
		if e.Dir != transcript.RuntimeToSDK || len(e.Frame) == 0 {
			continue
		}
		var m wire.Message
		var p struct {
			Event struct {
				Type string         `json:"type"`
				Data map[string]any `json:"data"`
			} `json:"event"`
		}
		if json.Unmarshal(e.Frame, &m) == nil && m.Method == "session.event" && json.Unmarshal(m.Params, &p) == nil {
			out = append(out, event{seq: e.Seq, typ: p.Event.Type, data: p.Event.Data})
		}
	}
	return out
}

// toolCall is one call of a tool as the transcript shows it: the runtime's request, the SDK's
// answer, and the runtime's completion.
type toolCall struct {
	requestID           string
	requested, answered int // transcript seq numbers
	completed           int
	answer              map[string]any // handlePendingToolCall params
}

// lastCall finds the last call of a tool in the transcript.
func (w *world) lastCall(tool string) (*toolCall, error) {
	var call *toolCall
	for _, ev := range w.runtimeEvents() {
		if ev.typ == "external_tool.requested" && ev.data["toolName"] == tool {
			id, _ := ev.data["requestId"].(string)
			call = &toolCall{requestID: id, requested: ev.seq}
		}
		if call != nil && ev.typ == "external_tool.completed" && ev.data["requestId"] == call.requestID {
			call.completed = ev.seq
		}
	}
	if call == nil {
		return nil, fmt.Errorf("the runtime never asked the SDK to run %q", tool)
	}
	for _, r := range transcript.Requests(w.Entries(), "session.tools.handlePendingToolCall") {
		var p map[string]any
		if json.Unmarshal(r.Params, &p) == nil && p["requestId"] == call.requestID {
			call.answer, call.answered = p, r.Seq
		}
	}
	if call.answer == nil {
		return nil, fmt.Errorf("the SDK never answered the call to %q (requestId %s) with session.tools.handlePendingToolCall", tool, call.requestID)
	}
	return call, nil
}

// resultShape names how the SDK put a tool's outcome on the wire. ok is true only for a success
// the runtime cannot read otherwise: a bare string or a result object whose resultType is
// "success". A missing or unknown resultType is no success here (the runtime's schema normalizes
// it, to "failure" when an error is present), so an SDK that stops sending resultType fails the
// steps that claim a success.
func resultShape(answer map[string]any) (shape string, ok bool, text string) {
	if e, has := answer["error"]; has && e != nil {
		return "top-level error", false, fmt.Sprint(e)
	}
	switch r := answer["result"].(type) {
	case string:
		return "bare string", true, r
	case map[string]any:
		t, _ := r["textResultForLlm"].(string)
		msg, _ := r["error"].(string)
		failure := strings.TrimSpace(msg + " " + t)
		switch rt, has := r["resultType"]; {
		case rt == "success":
			return "object with resultType", true, t
		case rt == "failure" || rt == "error" || rt == "rejected" || rt == "denied" || rt == "timeout":
			return "failure inside result", false, failure
		case !has && r["error"] != nil:
			return "failure inside result without resultType", false, failure
		case !has:
			return "object without resultType", false, t
		default:
			return fmt.Sprintf("object with unknown resultType %s", show(rt)), false, t
		}
	}
	return "no result", false, ""
}

// isFailure reports whether a shape is one the runtime reads as a failed call.
func isFailure(shape string) bool {
	return shape == "top-level error" || strings.HasPrefix(shape, "failure inside result")
}

func (w *world) answeredAs(tool, want string) error {
	call, err := w.lastCall(tool)
	if err != nil {
		return err
	}
	shape, ok, text := resultShape(call.answer)
	w.Observe("tool result: "+want, shape)
	if (want == "success" && !ok) || (want == "failure" && !isFailure(shape)) {
		return fmt.Errorf("the SDK answered the call to %q with %s (%q), want a %s", tool, shape, text, want)
	}
	return nil
}

func (w *world) answeredWithText(tool, want string) error {
	call, err := w.lastCall(tool)
	if err != nil {
		return err
	}
	if _, _, text := resultShape(call.answer); text != want {
		return fmt.Errorf("the SDK answered the call to %q with %q, want %q", tool, text, want)
	}
	return nil
}

func (w *world) answeredWithErrorMentioning(tool, want string) error {
	call, err := w.lastCall(tool)
	if err != nil {
		return err
	}
	shape, _, text := resultShape(call.answer)
	if !isFailure(shape) || !strings.Contains(text, want) {
		return fmt.Errorf("the SDK answered the call to %q with %s %q, want a failure mentioning %q", tool, shape, text, want)
	}
	return nil
}

// roundsAfter counts the model rounds the runtime started after the SDK answered a tool call, up
// to the end of the turn (session.idle) or a new user message: the real runtime (1.0.85) answers a
// successful clearContext by ending the turn and then sending the seed prompt as a user.message
// that starts a turn of its own, whose rounds are not the tool result's.
// From the SDK's answer, not from external_tool.completed: the real runtime emits that event on a
// path of its own, not in step with its agent loop (measured on 1.0.85: in one transcript
// tool.execution_complete came before external_tool.completed for one call and after it for the
// next), so the next round's assistant.turn_start can precede it, and a round the model did run
// was not counted (the flaky "a terminal tool after an ordinary one ends the turn"). No round
// can start between the runtime's call and the SDK's answer: it waits for the tool's result.
func (w *world) roundsAfter(call *toolCall) (int, bool) {
	rounds, idle := 0, false
	from := call.completed
	if call.answered > 0 && call.answered < from {
		from = call.answered
	}
	for _, ev := range w.runtimeEvents() {
		if ev.seq <= from {
			continue
		}
		if ev.typ == "session.idle" || ev.typ == "user.message" {
			idle = true
			break
		}
		if ev.typ == "assistant.turn_start" {
			rounds++
		}
	}
	return rounds, idle
}

func (w *world) turnEndedAfter(tool string) error {
	call, err := w.lastCall(tool)
	if err != nil {
		return err
	}
	if call.completed == 0 {
		return fmt.Errorf("the call to %q never completed", tool)
	}
	rounds, idle := w.roundsAfter(call)
	if !idle {
		return fmt.Errorf("the turn did not end (no session.idle after the call to %q)", tool)
	}
	if rounds > 0 {
		return fmt.Errorf("the model ran %d more round(s) after %q; a successful terminal tool ends the turn", rounds, tool)
	}
	return nil
}

func (w *world) modelWentOnAfter(tool string) error {
	call, err := w.lastCall(tool)
	if err != nil {
		return err
	}
	// Rounds count only after the call completed: a round before it is not the model going on.
	if call.completed == 0 {
		return fmt.Errorf("the call to %q never completed", tool)
	}
	if rounds, _ := w.roundsAfter(call); rounds == 0 {
		return fmt.Errorf("the turn ended right after %q; the model should have gone on", tool)
	}
	return nil
}

// requestDuringCall checks that a request was sent while a tool call was in flight: after the
// runtime asked for the tool and before the SDK answered it.
func (w *world) requestDuringCall(method, tool string) error {
	call, err := w.lastCall(tool)
	if err != nil {
		return err
	}
	for _, r := range transcript.Requests(w.Entries(), method) {
		if r.Seq > call.requested && r.Seq < call.answered {
			return nil
		}
	}
	return fmt.Errorf("no %s request between the runtime's call to %q (#%d) and the SDK's answer (#%d)", method, tool, call.requested, call.answered)
}

// runtimeRejected checks that the runtime answered a request of method with an error.
func (w *world) runtimeRejected(method string) error {
	reqs := transcript.Requests(w.Entries(), method)
	if len(reqs) == 0 {
		return fmt.Errorf("the SDK sent no %s request", method)
	}
	ids := map[string]bool{}
	for _, e := range w.Entries() {
		if e.Dir != transcript.SDKToRuntime || len(e.Frame) == 0 {
			continue
		}
		var m wire.Message
		if json.Unmarshal(e.Frame, &m) == nil && m.Method == method {
			ids[string(m.ID)] = true
		}
	}
	for _, e := range w.Entries() {
		var m wire.Message
		if e.Dir == transcript.RuntimeToSDK && json.Unmarshal(e.Frame, &m) == nil && ids[string(m.ID)] && m.Error != nil {
			return nil
		}
	}
	return fmt.Errorf("the runtime answered no %s request with an error", method)
}

// answeredWhilePending checks, on the wire, that the SDK answered the call to served while the
// call to pending was still unanswered: the runtime had requested both, and the answer to served
// came first. The pending call's handler waits for the served one's to return (waitFor), so an
// SDK that serves one runtime request at a time answers the pending call first, after the
// handler gave up waiting.
func (w *world) answeredWhilePending(served, pending string) error {
	s, err := w.lastCall(served)
	if err != nil {
		return err
	}
	p, err := w.lastCall(pending)
	if err != nil {
		return err
	}
	w.Check("session.tools.handlePendingToolCall", "order")
	if s.requested > p.answered || p.requested > s.answered {
		// The real runtime asks for a client's tool only once the SDK has answered that tool's
		// permission request, and the SDK answers those in its own order (measured on 1.0.85,
		// Go: fast's permission answered 12 ms before slow's, fast's call answered before slow's
		// was requested): then the premise did not hold in this run, no verdict on the SDK.
		later := pending
		if s.requested > p.answered {
			later = served
		}
		if err := w.pacedByRuntime(fmt.Sprintf("its call of %q (a client tool's call waits for the answer to its permission request)", later)); err != nil {
			return err
		}
		return fmt.Errorf("the calls to %q and %q were not pending together (requested at seq %d and %d, answered at %d and %d)",
			served, pending, s.requested, p.requested, s.answered, p.answered)
	}
	if s.answered > p.answered {
		_, _, text := resultShape(p.answer)
		// The pending handler acts only once the served one's handler has returned (waitFor), so
		// its own text (not a give-up) proves the SDK ran the served call while the pending one
		// waited; after that both answers go out at once and their order on the wire is a race.
		if want, ok := w.waitingText(pending, served); ok && text == want {
			return nil
		}
		return fmt.Errorf("the SDK answered the call to %q (seq %d) only after the call to %q (seq %d, %q): it did not serve the second call while the first was pending",
			served, s.answered, pending, p.answered, text)
	}
	return nil
}

// waitingText is the text tool's handler returns once waitFor's handler has returned, when the
// scenario gave tool such a handler.
func (w *world) waitingText(tool, waitFor string) (string, bool) {
	for _, t := range w.Tools {
		if t["name"] != tool {
			continue
		}
		h, _ := t["handler"].(map[string]any)
		if h == nil || h["waitFor"] != waitFor || h["action"] != "return" {
			return "", false
		}
		text, ok := h["text"].(string)
		return text, ok
	}
	return "", false
}
