package steps

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/canon"
	"github.com/copilot-sdk-conformance/conformance/internal/standin"
	"github.com/copilot-sdk-conformance/conformance/internal/suite"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/copilot-sdk-conformance/conformance/steps/handlerset"
	"github.com/copilot-sdk-conformance/conformance/steps/scenario"
	"github.com/copilot-sdk-conformance/conformance/steps/sweeps/exchanges"
	"github.com/copilot-sdk-conformance/conformance/steps/sweeps/handlers"
	"github.com/copilot-sdk-conformance/conformance/steps/sweeps/pending"
)

// Requests from the runtime to the SDK (drivers/PROTOCOL.md "Requests from the runtime"):
// the runtime asks, the application's handler receives, the SDK answers.

func (w *world) registerRequests(sc scenario.Binder) {
	sc.Step(`^the runtime then asks the application for permission with (\{.*\})$`, w.asksPermission)
	sc.Step(`^the SDK answered the permission request with "([^"]*)" equal to (.+)$`, w.permissionAnswerEquals)
	sc.Step(`^the application's permission handler received "([^"]*)" equal to (.+)$`, w.permissionReceived)
	sc.Step(`^no request "([^"]*)" was sent$`, w.noRequest)
	sc.Step(`^the runtime then sends the SDK the request "([^"]*)" with (\{.*\})$`, w.runtimeSends)
	sc.Step(`^the runtime then sends the SDK the requests "([^"]*)" at once with (\[.*\])$`, w.runtimeSendsTogether)
	sc.Step(`^the runtime then asks the application for permission at once with (\[.*\])$`, w.asksPermissionsTogether)
	sc.Step(`^the SDK answered each permission request once, under its own requestId, while all of them were pending$`, w.permissionsAnsweredEach)
	sc.Step(`^the SDK answered each of the runtime's "([^"]*)" requests with "([^"]*)" equal to that request's "([^"]*)", while all of them were pending$`, w.answeredEach)
	sc.Step(`^the runtime then asks the application to elicit with (\{.*\})$`, w.asksElicitation)
	sc.Step(`^the SDK answered with "([^"]*)" whose "([^"]*)" is the one of the runtime's "([^"]*)" event$`, w.answeredEventRequest)
	sc.Step(`^the SDK answered with "([^"]*)" whose "([^"]*)" equals (.+)$`, w.answeredWithMethod)
	sc.Step(`^the SDK answered the runtime's "([^"]*)" request with "([^"]*)" equal to (.+)$`, w.sdkAnsweredEquals)
	sc.Step(`^the SDK answered the runtime's "([^"]*)" request without an error$`, w.sdkAnsweredOK)
	handlers.Register(sc, w.Scenario, w.handlers)
	pending.Register(sc, w.Scenario, w.handlers)
	exchanges.Register(sc, w.Scenario)
}

func (w *world) asksPermission(data string) error {
	if err := w.Needs("handler.permission"); err != nil {
		return err
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(data), &v); err != nil {
		return fmt.Errorf("the permission request is not a JSON object: %w", err)
	}
	return w.scriptRequest("permission.requested", data, standin.ModelStep{Permission: json.RawMessage(data)})
}

// scriptRequest adds a runtime request to the turn: as the stand-in's scripted step, or, on a
// runtime that asks of its own accord when its model does something (the real one: plays.go), as
// the play that makes it ask, unless the request has fields it would not send.
func (w *world) scriptRequest(event, data string, step standin.ModelStep) error {
	if p, ok := w.RT.(suite.Player); ok {
		played, cannot := p.Plays(event, json.RawMessage(data))
		if cannot != "" {
			return scenario.Unplayable(cannot)
		}
		step = *played
	} else if err := w.RuntimeCan("runtime.script.request"); err != nil {
		return err
	}
	w.Turn.Steps = append(w.Turn.Steps, step)
	return nil
}

func (w *world) permissionAnswerEquals(path, want string) error {
	reqs := transcript.Requests(w.Entries(), "session.permissions.handlePendingPermissionRequest")
	if len(reqs) == 0 {
		return fmt.Errorf("the SDK never answered the permission request with session.permissions.handlePendingPermissionRequest")
	}
	v, err := canon.Decode(reqs[len(reqs)-1].Params)
	if err != nil {
		return err
	}
	w.Check("session.permissions.handlePendingPermissionRequest", path)
	got, ok := canon.Get(v, path)
	if !ok {
		return fmt.Errorf("the permission answer has no %s (answer %s)", path, canon.Show(v, true))
	}
	return compare("the permission answer "+path, got, canon.Value(got), want)
}

// permissionReceived reads what the application's handler was given, as the driver reported it.
func (w *world) permissionReceived(path, want string) error {
	evs := w.driverEvents("permission.requested")
	if len(evs) == 0 {
		return fmt.Errorf("the application's permission handler was never called")
	}
	raw, _ := json.Marshal(evs[len(evs)-1]["request"])
	v, _ := canon.Decode(raw)
	got, ok := canon.Get(v, path)
	if !ok {
		return fmt.Errorf("the permission handler received no %s (it received %s)", path, canon.Show(v, true))
	}
	return compare("the permission handler's "+path, got, canon.Value(got), want)
}

func (w *world) noRequest(method string) error {
	if reqs := transcript.Requests(w.Entries(), method); len(reqs) > 0 {
		return fmt.Errorf("the SDK sent %s (seq %d), want none", method, reqs[0].Seq)
	}
	return nil
}

func (w *world) runtimeSends(method, params string) error {
	var v map[string]any
	if err := json.Unmarshal([]byte(params), &v); err != nil {
		return fmt.Errorf("the params are not a JSON object: %w", err)
	}
	if p, ok := w.RT.(suite.Player); ok {
		// A runtime that sends such a request of its own accord when its model does something
		// (the real one): the model step that makes it, if any. The application's handler
		// (steps/sweeps/handlers) is then judged on what that runtime sent, as recorded, not on these
		// params: it sends its own values (timestamp, cwd, the tool's name and arguments).
		step, cannot := p.Plays(method, json.RawMessage(params))
		if cannot != "" {
			return scenario.Unplayable(cannot)
		}
		if step != nil {
			w.Turn.Steps = append(w.Turn.Steps, *step)
		}
	} else if err := w.RuntimeCan("runtime.script.request"); err != nil {
		return err
	} else {
		w.Turn.Steps = append(w.Turn.Steps, standin.ModelStep{Ask: method, AskParams: json.RawMessage(params)})
	}
	w.handlers.Asked = append(w.handlers.Asked, handlerset.Asked{Method: method, Params: v})
	if h := w.handlers.Specs[method]; h != nil {
		h.Params = append(h.Params, v) // the application's handler registers under what it will be asked
	}
	return nil
}

// pacedByRuntime is the verdict on requests meant to be pending together when one (what) went
// out after the SDK's first answer. The stand-in writes them all before awaiting any answer, so
// there it is a fault (nil: the caller lists it). A runtime that sends them of its own accord
// (the real one: plays.go) paces them itself, so the scenario's premise did not hold in this run:
// unsupported, never a verdict on the SDK.
func (w *world) pacedByRuntime(what string) error {
	if _, plays := w.RT.(suite.Player); !plays {
		return nil
	}
	return &ErrUnsupported{Capability: "runtime.script.request", Reason: fmt.Sprintf(
		"the real runtime sent %s after the SDK's first answer: it paces the requests it makes of its own accord, and did not have them pending together in this run", what)}
}

// sdkAnswer finds the SDK's response to the last request of method the runtime sent it that is
// the one the scenario scripted: a runtime that also sends requests of the same method of its
// own accord (the real runtime invokes every hook type each turn) is judged on the scripted
// one, told by the top-level strings the script gave (hookType, question).
func (w *world) sdkAnswer(method string) (map[string]any, error) {
	entries := w.Entries()
	var want map[string]any
	for _, a := range w.handlers.Asked {
		if a.Method == method {
			want = a.Params
		}
	}
	var id string
	for _, e := range entries {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params map[string]any  `json:"params"`
		}
		if e.Dir == transcript.RuntimeToSDK && json.Unmarshal(e.Frame, &m) == nil && m.Method == method && len(m.ID) > 0 && handlerset.SameStrings(want, m.Params) {
			id = string(m.ID)
		}
	}
	if id == "" {
		return nil, fmt.Errorf("the runtime never sent %s", method)
	}
	for _, e := range entries {
		if e.Dir != transcript.SDKToRuntime {
			continue
		}
		var m map[string]any
		var head struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(e.Frame, &head) == nil && head.Method == "" && string(head.ID) == id && json.Unmarshal(e.Frame, &m) == nil {
			return m, nil
		}
	}
	return nil, fmt.Errorf("the SDK never answered the runtime's %s request (id %s)", method, id)
}

func (w *world) sdkAnsweredOK(method string) error {
	m, err := w.sdkAnswer(method)
	if err != nil {
		return err
	}
	if e, ok := m["error"]; ok && e != nil {
		return fmt.Errorf("the SDK answered %s with the error %s", method, show(e))
	}
	return nil
}

func (w *world) sdkAnsweredEquals(method, path, want string) error {
	m, err := w.sdkAnswer(method)
	if err != nil {
		return err
	}
	raw, _ := json.Marshal(m)
	v, _ := canon.Decode(raw)
	w.Check(method+" (answer)", path)
	got, ok := canon.Get(v, path)
	if !ok {
		return fmt.Errorf("the SDK's answer to %s has no %s (answer %s)", method, path, canon.Show(v, true))
	}
	return compare("the answer to "+method+" "+path, got, canon.Value(got), want)
}

func (w *world) asksElicitation(data string) error {
	var v map[string]any
	if err := json.Unmarshal([]byte(data), &v); err != nil {
		return fmt.Errorf("the elicitation request is not a JSON object: %w", err)
	}
	return w.scriptRequest("elicitation.requested", data, standin.ModelStep{Elicitation: json.RawMessage(data)})
}

// answeredEventRequest checks that the SDK's answer by method carries, at path, the value the
// runtime's last event of type gave at the same path (the requestId the runtime chose).
func (w *world) answeredEventRequest(method, path, eventType string) error {
	var want any
	for _, e := range w.runtimeEvents() {
		if e.typ == eventType {
			want = e.data[path]
		}
	}
	if want == nil {
		return fmt.Errorf("the runtime sent no %s event with %s", eventType, path)
	}
	raw, _ := json.Marshal(want)
	return w.answeredWithMethod(method, path, string(raw))
}

// answeredWithMethod reads the last request of method the SDK sent (an answer by RPC).
func (w *world) answeredWithMethod(method, path, want string) error {
	reqs := transcript.Requests(w.Entries(), method)
	if len(reqs) == 0 {
		return fmt.Errorf("the SDK never sent %s", method)
	}
	v, err := canon.Decode(reqs[len(reqs)-1].Params)
	if err != nil {
		return err
	}
	w.Check(method, path)
	got, ok := canon.Get(v, path)
	if !ok {
		return fmt.Errorf("the %s request has no %s (params %s)", method, path, canon.Show(v, true))
	}
	return compare(method+" "+path, got, canon.Value(got), want)
}

// runtimeSendsTogether scripts several requests to the SDK sent at once (standin.ModelStep
// AskTogether; on the real runtime: its model asks for the tools that make them in one message).
func (w *world) runtimeSendsTogether(method, list string) error {
	var all []json.RawMessage
	if err := json.Unmarshal([]byte(list), &all); err != nil {
		return fmt.Errorf("the requests' params are not a JSON list: %w", err)
	}
	for i, p := range all {
		var v map[string]any
		if err := json.Unmarshal(p, &v); err != nil {
			return fmt.Errorf("the params of request %d are not a JSON object: %w", i+1, err)
		}
		w.handlers.Asked = append(w.handlers.Asked, handlerset.Asked{Method: method, Params: v})
	}
	if w.handlers.Specs[method] == nil {
		if played, err := w.playsTogether(method, all); played {
			return err
		}
	}
	if _, err := w.StandIn("runtime.script.request"); err != nil {
		return err
	}
	w.Turn.Steps = append(w.Turn.Steps, standin.ModelStep{Ask: method, AskTogether: all})
	return nil
}

// playsTogether has a runtime that asks of its own accord when its model does something (the
// real one: plays.go) send several requests at once: its model asks, in one message, for every
// tool call that makes one. played is false when the runtime is not such a player; a request
// it would not send is unsupported (runtime.script.request).
func (w *world) playsTogether(method string, all []json.RawMessage) (played bool, err error) {
	p, ok := w.RT.(suite.Player)
	if !ok {
		return false, nil
	}
	var step standin.ModelStep
	for _, params := range all {
		s, cannot := p.Plays(method, params)
		if cannot == "" && (s == nil || s.Tool == "") {
			cannot = "the real runtime sends " + method + " only when its model calls a tool, and this one is not made by a tool call, so it cannot be sent together with the others"
		}
		if cannot != "" {
			return true, scenario.Unplayable(cannot)
		}
		step.Together = append(step.Together, s.Tool)
		step.TogetherArguments = append(step.TogetherArguments, s.Arguments)
	}
	w.Turn.Steps = append(w.Turn.Steps, step)
	return true, nil
}

// answeredEach checks every request of method the runtime sent: the SDK's answer with the
// request's own id carries, at path, what the request carried at reqPath (each answer reaches
// the request it answers), and every request went out before the first answer came back.
func (w *world) answeredEach(method, path, reqPath string) error {
	type call struct {
		id     string
		params any
		seq    int
	}
	var calls []call
	answers := map[string]any{}
	firstAnswer := -1
	for i, e := range w.Entries() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(e.Frame, &m) != nil || len(m.ID) == 0 {
			continue
		}
		switch {
		case e.Dir == transcript.RuntimeToSDK && m.Method == method:
			v, _ := canon.Decode(m.Params)
			calls = append(calls, call{id: string(m.ID), params: v, seq: i})
		case e.Dir == transcript.SDKToRuntime && m.Method == "":
			for _, c := range calls {
				if c.id == string(m.ID) {
					v, _ := canon.Decode(e.Frame)
					answers[c.id] = v
					if firstAnswer < 0 {
						firstAnswer = i
					}
				}
			}
		}
	}
	w.Check(method+" (answer)", path)
	if len(calls) < 2 {
		return fmt.Errorf("the runtime sent %d %s requests; the check needs two or more at once", len(calls), method)
	}
	var problems []string
	for _, c := range calls {
		if firstAnswer >= 0 && c.seq > firstAnswer {
			if err := w.pacedByRuntime(method + " " + c.id); err != nil {
				return err
			}
			problems = append(problems, fmt.Sprintf("%s %s went out after the first answer: they were not pending together", method, c.id))
		}
		a, ok := answers[c.id]
		if !ok {
			problems = append(problems, fmt.Sprintf("the SDK never answered %s %s", method, c.id))
			continue
		}
		want, _ := canon.Get(c.params, reqPath)
		got, ok := canon.Get(a, path)
		if !ok || !reflect.DeepEqual(canon.Value(got), canon.Value(want)) {
			problems = append(problems, fmt.Sprintf("the answer to %s %s has %s %s, but that request's %s is %s", method, c.id, path, canon.Show(got, true), reqPath, canon.Show(want, true)))
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s", strings.Join(problems, "; "))
	}
	return nil
}

// asksPermissionsTogether scripts several permission requests sent at once (on the real
// runtime: its model asks for the tools that need them in one message).
func (w *world) asksPermissionsTogether(list string) error {
	if err := w.Needs("handler.permission"); err != nil {
		return err
	}
	var all []json.RawMessage
	if err := json.Unmarshal([]byte(list), &all); err != nil {
		return fmt.Errorf("the permission requests are not a JSON list: %w", err)
	}
	if played, err := w.playsTogether("permission.requested", all); played {
		return err
	}
	if _, err := w.StandIn("runtime.script.request"); err != nil {
		return err
	}
	w.Turn.Steps = append(w.Turn.Steps, standin.ModelStep{PermissionsTogether: all})
	return nil
}

// permissionsAnsweredEach checks that every permission.requested the runtime sent got exactly
// one session.permissions.handlePendingPermissionRequest naming its requestId, and that every
// request went out before the first answer.
func (w *world) permissionsAnsweredEach() error {
	const answer = "session.permissions.handlePendingPermissionRequest"
	w.Check(answer, "requestId")
	var asked []string
	lastAsked := -1
	for _, e := range w.runtimeEvents() {
		if e.typ == "permission.requested" {
			id, _ := e.data["requestId"].(string)
			asked = append(asked, id)
			lastAsked = e.seq
		}
	}
	if len(asked) < 2 {
		return fmt.Errorf("the runtime sent %d permission requests; the check needs two or more at once", len(asked))
	}
	answers := map[string]int{}
	firstAnswer := -1
	for _, e := range w.Entries() {
		var m struct {
			Method string `json:"method"`
			Params struct {
				RequestID string `json:"requestId"`
			} `json:"params"`
		}
		if e.Dir == transcript.SDKToRuntime && json.Unmarshal(e.Frame, &m) == nil && m.Method == answer {
			answers[m.Params.RequestID]++
			if firstAnswer < 0 {
				firstAnswer = e.Seq
			}
		}
	}
	var problems []string
	if firstAnswer >= 0 && firstAnswer < lastAsked {
		if err := w.pacedByRuntime("a permission request"); err != nil {
			return err
		}
		problems = append(problems, "a permission request went out after the first answer: they were not pending together")
	}
	for _, id := range asked {
		if n := answers[id]; n != 1 {
			problems = append(problems, fmt.Sprintf("%s answered %d times", id, n))
		}
		delete(answers, id)
	}
	for id, n := range answers {
		problems = append(problems, fmt.Sprintf("%d answers name %q, which the runtime never asked", n, id))
	}
	sort.Strings(problems)
	if len(problems) > 0 {
		return fmt.Errorf("%s", strings.Join(problems, "; "))
	}
	return nil
}
