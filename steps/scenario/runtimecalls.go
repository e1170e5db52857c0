package scenario

import (
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/schemagen"
	"github.com/copilot-sdk-conformance/conformance/internal/standin"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
)

// What the sweeps that play runtime-to-SDK calls share (the handler sweep, the model-request
// exchanges, the reached-handler sweep): the schema and a scriptable runtime to start, what a
// failed call ends, and the calls read back from the transcript with the SDK's answers.

// RuntimeCall is one request or notification the runtime sent the SDK, in the transcript, with
// the SDK's answer paired by JSON-RPC id.
type RuntimeCall struct {
	Seq    int
	Method string
	Params json.RawMessage
	Answer map[string]any // the SDK's response frame (nil for a notification or no answer)
}

// RuntimeCalls are the runtime's calls of the methods keep takes, in transcript order, each with
// the SDK's first response of its id. A frame whose params do not decode into P is left out, as
// is its answer.
func RuntimeCalls[P any](entries []transcript.Entry, keep func(method string) bool) []*RuntimeCall {
	var calls []*RuntimeCall
	byID := map[string]*RuntimeCall{}
	for _, e := range entries {
		var f struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if len(e.Frame) == 0 || json.Unmarshal(e.Frame, &f) != nil {
			continue
		}
		if len(f.Params) > 0 {
			var p P
			if json.Unmarshal(f.Params, &p) != nil {
				continue
			}
		}
		switch {
		case e.Dir == transcript.RuntimeToSDK && f.Method != "" && keep(f.Method):
			c := &RuntimeCall{Seq: e.Seq, Method: f.Method, Params: f.Params}
			calls = append(calls, c)
			if len(f.ID) > 0 {
				byID[string(f.ID)] = c
			}
		case e.Dir == transcript.SDKToRuntime && f.Method == "" && len(f.ID) > 0:
			if c := byID[string(f.ID)]; c != nil && c.Answer == nil {
				_ = json.Unmarshal(e.Frame, &c.Answer)
			}
		}
	}
	return calls
}

// DecodedParams are a call's params decoded into P (runtimeCalls kept only those that decode).
func DecodedParams[P any](c *RuntimeCall) P {
	var p P
	_ = json.Unmarshal(c.Params, &p)
	return p
}

// ScriptedSweep is what a sweep of runtime-to-SDK calls starts from: the runtime's schema and a
// runtime that can be scripted to send requests; why is the sweep's reason a runtime that only
// asks of its own accord (the real one) cannot play it.
func (s *Scenario) ScriptedSweep(why string) (*schemagen.Doc, *standin.Server, error) {
	doc, err := s.Schemas()
	if err != nil {
		return nil, nil, err
	}
	rt, err := s.ScriptedOnly(why)
	if err != nil {
		return nil, nil, err
	}
	return doc, rt, nil
}

// CallFailed notes a runtime call that failed with err (what names the call) and returns what
// ends the sweep: the lost connection or an unresponsive driver; nil when the sweep goes on.
func (s *Scenario) CallFailed(err error, what string) error {
	s.Rec.Notef("", "%s: %v", what, err)
	if errors.Is(err, standin.ErrClosed) {
		return s.ConnectionLost(err)
	}
	return s.Responsive(err)
}

// DriverEvent is a driver-to-harness event line of the transcript: its name and args.
func DriverEvent(e transcript.Entry) (string, map[string]any, bool) {
	if e.Dir != transcript.DriverToHarness || len(e.Frame) == 0 {
		return "", nil, false
	}
	var ev struct {
		Event string         `json:"event"`
		Args  map[string]any `json:"args"`
	}
	if json.Unmarshal(e.Frame, &ev) != nil || ev.Event == "" {
		return "", nil, false
	}
	return ev.Event, ev.Args, true
}

// HandlerMethods are the runtime-to-SDK methods of the schema, in the schema's order.
func HandlerMethods(doc *schemagen.Doc) []schemagen.Method {
	var out []schemagen.Method
	for _, m := range doc.Methods {
		if !m.FromSDK {
			out = append(out, m)
		}
	}
	return out
}

// Settle is a quiet period for what may still follow a report already seen (a handler the SDK
// calls after it gave the application the event), or, where nothing reports the event (a
// driver without the events capability), for the event to reach a handler: a wait for the
// absence of anything more, never the whole wait for something known to come (Backstop).
const Settle = 500 * time.Millisecond

// Backstop bounds a wait for a report or an answer known to come (a handler's report of a
// held call, the application's report of an event its SDK delivers): the wait ends when it
// is read, and only an SDK that stopped answering reaches the backstop, half the command
// timeout (as the stand-in's withheld answer, internal/standin/withhold.go; on a loaded
// machine a handler's report came after 5 s).
func (s *Scenario) Backstop() time.Duration {
	return max(5*time.Second, s.T.CommandTimeout()/2)
}

// EventCursor reads the driver's events from the transcript as they arrive, decoding each entry
// once: the reached sweep looks after each of its ~190 triggers, and reading the whole
// transcript every time made the harness's CPU per scenario grow with the square of its length.
type EventCursor struct {
	rec    *transcript.Recorder
	next   int              // the first transcript entry not read yet
	Counts map[string]int   // events read, per kind
	Called []map[string]any // the surface.handler.called events read, in order
}

// NewEventCursor is a cursor over the scenario's transcript, at its start.
func (s *Scenario) NewEventCursor() *EventCursor {
	return &EventCursor{rec: s.Rec, Counts: map[string]int{}}
}

// Poll reads what was recorded since the last poll and returns how many session.event reports
// were read in all.
func (c *EventCursor) Poll() int {
	entries := c.rec.EntriesSince(c.next)
	c.next += len(entries)
	for _, e := range entries {
		if name, args, ok := DriverEvent(e); ok {
			c.Counts[name]++
			if name == "surface.handler.called" {
				c.Called = append(c.Called, args)
			}
		}
	}
	return c.Counts["session.event"]
}

// CreateParams are the params of the SDK's last session.create or session.resume request.
func (s *Scenario) CreateParams() map[string]any {
	var out map[string]any
	for _, method := range []string{"session.create", "session.resume"} {
		if reqs := transcript.Requests(s.Entries(), method); len(reqs) > 0 {
			_ = json.Unmarshal(reqs[len(reqs)-1].Params, &out)
		}
	}
	return out
}

// AsTheRuntimeSends is a generated case as the runtime sends it: a clientSession method, or one
// whose params carry a sessionId, names the session; a key whose value only the SDK knows, which
// the SDK announced in its session.create request under a name made of the method's namespace
// and the key (the registrationId of gitHubToken.getToken, announced as
// gitHubTokenProviderRegistrationId), takes the SDK's value, as the real runtime refers back to it.
func (s *Scenario) AsTheRuntimeSends(m schemagen.Method, p map[string]any, sessionID string, created map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range p {
		out[k] = v
	}
	if _, has := out["sessionId"]; has || m.Group == "clientSession" {
		out["sessionId"] = sessionID
	}
	for k, ck := range s.SDKAnnounced(m.Name, out, created) {
		out[k] = created[ck]
		s.Rec.Notef("", "%s %s: the value the SDK announced as %s in its session request", m.Name, k, ck)
	}
	return out
}

// SDKAnnounced maps each key of params whose value the SDK announced in its session request
// (params key -> that request's key; see AsTheRuntimeSends).
func (s *Scenario) SDKAnnounced(method string, params, created map[string]any) map[string]string {
	out := map[string]string{}
	ns := method[:max(strings.LastIndex(method, "."), 0)]
	for k := range params {
		if k == "sessionId" || k == "" || ns == "" {
			continue
		}
		suffix := strings.ToUpper(k[:1]) + k[1:]
		for ck, cv := range created {
			if _, ok := cv.(string); ok && strings.HasPrefix(ck, ns) && strings.HasSuffix(ck, suffix) {
				out[k] = ck
			}
		}
	}
	return out
}

// DriverEvents are the args of every driver event line of kind in the transcript so far (the
// handlers' rpc.handled reports, the request handler's reports), in order.
func (s *Scenario) DriverEvents(kind string) []map[string]any {
	var out []map[string]any
	for _, e := range s.Entries() {
		if name, args, ok := DriverEvent(e); ok && name == kind {
			out = append(out, args)
		}
	}
	return out
}
