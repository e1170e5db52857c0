package steps

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/runtime"
	"github.com/copilot-sdk-conformance/conformance/internal/schemagen"
)

// The event sweep: every event type of session-events.schema.json, generated (every field, only
// the required ones, or every field plus one the schema does not know), sent by the runtime to
// the session; the driver reports what the application's typed event callback received.

// unknownField is the key the schema does not know, added to each event's data.
const unknownField = "conformanceUnknownField"

type sentEvent struct {
	et   schemagen.EventType
	data any
}

// sendEveryEvent sends each event type of the schema once, in the order of their type names.
func (w *world) sendEveryEvent(variant string) error {
	doc, err := w.schemas()
	if err != nil {
		return err
	}
	if has, note := w.t.Capability("rpc.generated"); !has {
		return &ErrUnsupported{Reason: fmt.Sprintf("%s driver does not report typed event data (rpc.generated): %s", w.t.SDK(), note), Capability: "rpc.generated"}
	}
	s, err := w.current()
	if err != nil {
		return err
	}
	rt, err := w.standIn("runtime.script.events")
	if err != nil {
		return err
	}
	rt.SetGeneratedAnswers() // requests an event makes the SDK send get generated answers
	// A driver's lines are recorded while its sink is set, which w.call does only for the length
	// of a command: the events come between commands, so the sink is held for the sweep.
	d, err := w.t.Driver(w.ctx)
	if err != nil {
		return err
	}
	d.SetSink(w.driverLine)
	defer d.SetSink(nil)
	w.events = nil
	w.expect(len(doc.EventTypes))
	for _, et := range doc.EventTypes {
		if err := w.gone(); err != nil {
			return cutShort(err, len(w.events), len(doc.EventTypes), et.Type)
		}
		ev, err := doc.Event(et, "event/"+et.Type+"/"+variant, variant != "with only the required fields")
		if err != nil {
			w.rec.Notef("", "generator: %v", err)
			continue
		}
		if variant == "with a field the schema does not know" {
			if data, ok := ev["data"].(map[string]any); ok {
				data[unknownField] = "from a newer runtime"
			}
		}
		if err := rt.Emit(s.id, ev); err != nil {
			// Not fatal: what the application received is checked next, and a replayed
			// scenario's runtime has no live session (its recording holds the frames).
			w.rec.Notef("", "the runtime did not send the %s event: %v", et.Type, err)
			if errors.Is(err, runtime.ErrClosed) {
				return cutShort(w.connectionLost(err), len(w.events), len(doc.EventTypes), et.Type)
			}
		}
		w.events = append(w.events, sentEvent{et: et, data: asAny(ev["data"])})
	}
	return w.awaitEvents(len(w.events))
}

func asAny(v any) any {
	m, _ := v.(map[string]any)
	if m == nil {
		return v
	}
	return asJSON(m)
}

// awaitEvents waits until as many session.event reports as events sent have arrived, or five
// seconds have passed (an SDK that drops events then shows them missing).
func (w *world) awaitEvents(n int) error {
	deadline := time.Now().Add(5 * time.Second)
	for len(w.driverEvents("session.event")) < n && time.Now().Before(deadline) {
		if err := w.gone(); err != nil {
			return err
		}
		time.Sleep(20 * time.Millisecond)
	}
	return nil
}

// eventsReceived compares, type by type, the data the application received with what was sent,
// up to the representation rules of the results (a date-time's textual form, a number's form, a
// null left out of a typed object). A field the schema does not know may be kept or dropped
// (an observation says which); every other field must arrive as sent.
func (w *world) eventsReceived() error {
	if len(w.events) == 0 {
		return fmt.Errorf("no generated events were sent in this scenario")
	}
	got := map[string][]any{}
	for _, ev := range w.driverEvents("session.event") {
		t, _ := ev["type"].(string)
		got[t] = append(got[t], ev["data"])
	}
	fails := sweepFailures{}
	kept, dropped := 0, 0
	for _, s := range w.events {
		c := &sweepCall{method: schemagen.Method{Name: s.et.Type, Namespace: "event " + s.et.Type}, name: s.et.Definition}
		received := got[s.et.Type]
		if len(received) == 0 {
			fails.add(c, "the application never received it")
			continue
		}
		data := received[0]
		got[s.et.Type] = received[1:]
		for _, d := range diffJSON(s.data, data, "") {
			if d.kind == "missing" && d.want == nil {
				continue
			}
			if d.path == "/"+unknownField && d.kind == "missing" {
				dropped++
				continue
			}
			fails.add(c, "data %s", d.say("sent by the runtime", "the application received it"))
		}
		if m, ok := data.(map[string]any); ok {
			if _, ok := m[unknownField]; ok {
				kept++
			}
		}
	}
	if kept+dropped > 0 {
		w.observe("events: a field the schema does not know", fmt.Sprintf("kept in %d, dropped from %d", kept, dropped))
	}
	w.observe("events received", fmt.Sprintf("%d of %d types", len(w.events)-countMissing(fails), len(w.events)))
	return fails.err("events", "did not reach the application as the runtime sent them")
}

func countMissing(f sweepFailures) int {
	n := 0
	for _, l := range f {
		for _, s := range l {
			if strings.Contains(s, "never received") {
				n++
			}
		}
	}
	return n
}
