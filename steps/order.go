package steps

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/copilot-sdk-conformance/conformance/internal/wire"
	"github.com/copilot-sdk-conformance/conformance/steps/scenario"
)

// The order of the startup requests: a session exists for the runtime only once its
// session.create / session.resume has been answered, so nothing may name it before.

func (w *world) registerOrder(sc scenario.Binder) {
	sc.Step(`^no request naming the session was sent before its "([^"]*)" was answered$`, w.nothingBeforeOpened)
	sc.Step(`^the runtime answered no request with "([^"]*)"$`, w.noAnswerMentioning)
}

// opening finds the last create/resume request of method, the session id it opened, and the
// sequence number of its answer.
func (w *world) opening(method string) (transcript.Request, string, int, error) {
	reqs := transcript.Requests(w.Entries(), method)
	if len(reqs) == 0 {
		return transcript.Request{}, "", 0, fmt.Errorf("the SDK sent no %s request", method)
	}
	req := reqs[len(reqs)-1]
	id := scenario.RequestID(w.Entries(), req.Seq)
	var p struct {
		SessionID string `json:"sessionId"`
	}
	_ = json.Unmarshal(req.Params, &p)
	for _, e := range w.Entries() {
		if e.Seq <= req.Seq || e.Dir != transcript.RuntimeToSDK || e.Conn != req.Conn {
			continue
		}
		var m wire.Message
		if json.Unmarshal(e.Frame, &m) == nil && m.IsResponse() && string(m.ID) == id {
			if p.SessionID == "" {
				var r struct {
					SessionID string `json:"sessionId"`
				}
				_ = json.Unmarshal(m.Result, &r)
				p.SessionID = r.SessionID
			}
			return req, p.SessionID, e.Seq, nil
		}
	}
	return req, p.SessionID, 0, fmt.Errorf("the runtime never answered the %s request (seq %d)", method, req.Seq)
}

func (w *world) nothingBeforeOpened(method string) error {
	req, id, answered, err := w.opening(method)
	if err != nil {
		return err
	}
	w.Check(method, "order")
	var order []string
	var early []string
	for _, r := range w.Naming(req.Conn, id, req.Seq) {
		order = append(order, r.Method)
		if r.Seq < answered {
			early = append(early, fmt.Sprintf("%s (seq %d, id %s)", r.Method, r.Seq, r.ID))
		}
	}
	w.Observe("requests after "+method, strings.Join(order, ", "))
	if len(early) > 0 {
		return fmt.Errorf("%s sent before its %s (seq %d, id %s) was answered (seq %d): the runtime does not know the session yet",
			strings.Join(early, ", "), method, req.Seq, req.ID, answered)
	}
	return nil
}

func (w *world) noAnswerMentioning(text string) error {
	for _, e := range w.Entries() {
		if e.Dir != transcript.RuntimeToSDK {
			continue
		}
		var m wire.Message
		if json.Unmarshal(e.Frame, &m) == nil && m.IsResponse() && m.Error != nil && strings.Contains(m.Error.Message, text) {
			return fmt.Errorf("the runtime answered request %s with %q (seq %d)", m.ID, m.Error.Message, e.Seq)
		}
	}
	return nil
}
