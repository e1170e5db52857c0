package events

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/schemagen"
	"github.com/copilot-sdk-conformance/conformance/internal/standin"
	"github.com/copilot-sdk-conformance/conformance/steps/encodings"
	"github.com/copilot-sdk-conformance/conformance/steps/jsondiff"
	"github.com/copilot-sdk-conformance/conformance/steps/scenario"
	"github.com/copilot-sdk-conformance/conformance/steps/sweepcheck"
)

// The event sweep: every event type of session-events.schema.json, generated (every field, only
// the required ones, null wherever nullable, every field plus one the schema does not know in
// every object, or each alternative of each discriminated union), sent by the runtime to the
// session; the driver reports what the application's typed event callback received.

// engine is the sweep's own state over the scenario's core.
type engine struct {
	*scenario.Scenario
	events  []sentEvent     // the generated events sent
	encoded encodings.Tally // what the sweep sent in another legal encoding
}

// Register binds the sweep's phrases on sc for the scenario s.
func Register(sc scenario.Binder, s *scenario.Scenario) {
	w := &engine{Scenario: s}
	scenario.Needing(sc, scenario.Needs("rpc.generated", "events")).Step(`^the runtime sends every event type of the schema (with every field|with only the required fields|with a field the schema does not know|with every nullable field null|with every discriminator value|with every integer written as a float|with every number in exponent form|with every string escaped and its keys reversed)$`, w.sendEveryEvent)
	sc.Step(`^the application received every generated event as the runtime sent it$`, w.eventsReceived)
}

// sentEvent is one event the runtime sent, and its case.
type sentEvent struct {
	et   schemagen.EventType
	name string // the case: the event's definition, and the shape when a type has several
	data any
}

// eventCase files a finding about one event sent (sweepcheck.Case): under the namespace
// "event <type>", as "<type> [<case>]".
type eventCase struct{ typ, name string }

func (c eventCase) Namespace() string { return "event " + c.typ }
func (c eventCase) ID() string        { return c.typ + " [" + c.name + "]" }

// eventShapes are the event variants the schema's shapes make (the first two keep the one event
// per type of doc.Event they began with).
var eventShapes = map[string]schemagen.Shape{
	"with every nullable field null":        schemagen.Nulls,
	"with a field the schema does not know": schemagen.Unknown,
	"with every discriminator value":        schemagen.Unions,
}

// sendEveryEvent sends each event type of the schema once, in the order of their type names.
func (w *engine) sendEveryEvent(variant string) error {
	doc, err := w.Schemas()
	if err != nil {
		return err
	}
	if has, note := w.T.Capability("rpc.generated"); !has {
		return &scenario.ErrUnsupported{Reason: fmt.Sprintf("%s driver does not report typed event data (rpc.generated): %s", w.T.SDK(), note), Capability: "rpc.generated"}
	}
	s, err := w.Current()
	if err != nil {
		return err
	}
	rt, err := w.StandIn("runtime.script.events")
	if err != nil {
		return err
	}
	rt.SetGeneratedAnswers() // requests an event makes the SDK send get generated answers
	// A driver's lines are recorded while its sink is set, which w.call does only for the length
	// of a command: the events come between commands, so the sink is held for the sweep.
	d, err := w.T.Driver(w.Ctx)
	if err != nil {
		return err
	}
	d.SetSink(w.DriverLine)
	defer d.SetSink(nil)
	w.events = nil
	type outgoing struct {
		et   schemagen.EventType
		name string
		ev   map[string]any
		wire any // what the runtime writes: ev, or ev in another legal encoding
	}
	var out []outgoing
	form, encoded := encodings.Forms[variant]
	for _, et := range doc.EventTypes {
		seed := "event/" + et.Type + "/" + variant
		if encoded {
			seed = "event/" + et.Type + "/with every field" // the every-field events, written otherwise
		}
		shape, shaped := eventShapes[variant]
		if !shaped {
			ev, err := doc.Event(et, seed, variant != "with only the required fields")
			if err != nil {
				w.Rec.Notef("", "generator: %v", err)
				continue
			}
			var wire any = ev
			if encoded {
				raw, changed, err := w.encoded.Encode(form, ev)
				if err != nil {
					return err
				}
				if !changed {
					continue
				}
				wire = raw
			}
			out = append(out, outgoing{et, et.Definition, ev, wire})
			continue
		}
		shapes, dropped := doc.EventShapes(et, seed, shape)
		for _, d := range dropped {
			w.Rec.Notef("", "generator: %s event %s left out", et.Type, d)
		}
		for _, sh := range shapes {
			ev, _ := sh.Value.(map[string]any)
			name := et.Definition
			if shape == schemagen.Unions {
				name += " " + sh.Name
			}
			out = append(out, outgoing{et, name, ev, ev})
		}
	}
	w.Expect(len(out))
	// The requests an event makes the SDK send (an answer naming its requestId) are its case's.
	for i, o := range out {
		if err := w.Gone(); err != nil {
			return scenario.CutShort(err, i, len(out), o.et.Type)
		}
		key := o.et.Type + " " + o.name
		if encoded {
			key += " " + string(form)
		}
		w.CaseSends(key, o.ev)
		if err := rt.Emit(s.ID, o.wire); err != nil {
			// Not fatal: what the application received is checked next, and a replayed
			// scenario's runtime has no live session (its recording holds the frames).
			w.Rec.Notef("", "the runtime did not send the %s event: %v", o.et.Type, err)
			if errors.Is(err, standin.ErrClosed) {
				return scenario.CutShort(w.ConnectionLost(err), i, len(out), o.et.Type)
			}
		}
		w.events = append(w.events, sentEvent{et: o.et, name: o.name, data: asAny(o.ev["data"])})
	}
	if encoded {
		w.encoded.Observe(w, "events")
	}
	return w.awaitEvents(len(w.events))
}

func asAny(v any) any {
	m, _ := v.(map[string]any)
	if m == nil {
		return v
	}
	return scenario.AsJSON(m)
}

// awaitEvents waits until as many session.event reports as events sent have arrived, or none
// has arrived for five seconds (an SDK that drops events then shows them missing): a driver
// still reporting on a loaded machine is waited for, up to a minute.
func (w *engine) awaitEvents(n int) error {
	return awaitProgress(func() int { return len(w.DriverEvents("session.event")) }, n, 5*time.Second, time.Minute, w.Gone)
}

// awaitProgress polls count until it reaches n, or it has not grown for quiet, or limit has
// passed; gone ends the wait with its error (the driver lost).
func awaitProgress(count func() int, n int, quiet, limit time.Duration, gone func() error) error {
	last, since, end := -1, time.Now(), time.Now().Add(limit)
	for time.Now().Before(end) {
		got := count()
		if got >= n {
			return nil
		}
		if got != last {
			last, since = got, time.Now()
		} else if time.Since(since) > quiet {
			return nil
		}
		if err := gone(); err != nil {
			return err
		}
		time.Sleep(20 * time.Millisecond)
	}
	return nil
}

// eventsReceived compares, event by event, the data the application
// received with what was sent, up to the representation rules of the results (a date-time's
// textual form, a number's form, a null left out of a typed object). A field the schema does not
// know may be kept or dropped (an observation says which); every other field must arrive as
// sent, and a field left out must stay out (no default, no null filled in).
func (w *engine) eventsReceived() error {
	if len(w.events) == 0 {
		return fmt.Errorf("no generated events were sent in this scenario")
	}
	got := map[string][]any{}
	for _, ev := range w.DriverEvents("session.event") {
		t, _ := ev["type"].(string)
		got[t] = append(got[t], ev["data"])
	}
	// Several events of a type (a union's alternatives) are paired in order, by content: the SDK
	// delivers them in the order sent, so the received ones are aligned with the sent ones
	// (fewest differences, an event missing only where that fits best), and an event the SDK
	// dropped does not shift every later one onto the next.
	pair := map[int]any{}
	byType := map[string][]int{}
	for i, s := range w.events {
		byType[s.et.Type] = append(byType[s.et.Type], i)
	}
	for t, sent := range byType {
		received := got[t]
		want := make([]any, len(sent))
		for k, i := range sent {
			want[k] = w.events[i].data
		}
		// An event received exactly as sent is its own, wherever it came; the rest are aligned.
		used := make([]bool, len(received))
		var restSent, restRecv []int
		for k := range want {
			found := false
			for r := range received {
				if !used[r] && len(jsondiff.Diff(want[k], received[r], "")) == 0 {
					used[r], found = true, true
					pair[sent[k]] = received[r]
					break
				}
			}
			if !found {
				restSent = append(restSent, k)
			}
		}
		for r := range received {
			if !used[r] {
				restRecv = append(restRecv, r)
			}
		}
		rs, rr := make([]any, len(restSent)), make([]any, len(restRecv))
		for i, k := range restSent {
			rs[i] = want[k]
		}
		for i, r := range restRecv {
			rr[i] = received[r]
		}
		for i, j := range alignInOrder(rs, rr) {
			pair[sent[restSent[i]]] = received[restRecv[j]]
		}
	}
	fails := sweepcheck.Failures{}
	unknown := sweepcheck.Unknown{}
	for i, s := range w.events {
		c := eventCase{typ: s.et.Type, name: s.name}
		data, ok := pair[i]
		if !ok {
			fails.Add(c, "the application never received it")
			continue
		}
		unknown.Seen(s.data, data)
		for _, d := range jsondiff.Diff(s.data, data, "") {
			if d.Kind == "missing" && d.Want == nil {
				continue
			}
			if unknown.Dropped(d) {
				continue
			}
			fails.Add(c, "data %s", d.Say("sent by the runtime", "the application received it"))
		}
	}
	unknown.Observe(w, "events")
	w.Observe("events received", fmt.Sprintf("%d of %d", len(w.events)-countMissing(fails), len(w.events)))
	return fails.Err("events", "did not reach the application as the runtime sent them")
}

func countMissing(f sweepcheck.Failures) int {
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

// pairCost is how unlike two values are: a field lost costs least (a lossy SDK loses many), a
// field added more, a value changed most (a discriminator or an id that differs is another event).
func pairCost(sent, received any) int {
	n := 0
	for _, d := range jsondiff.Diff(sent, received, "") {
		switch d.Kind {
		case "missing":
			n++
		case "added":
			n += 2
		default:
			n += 4
		}
	}
	return n
}

// alignInOrder pairs sent values with received ones, both in order, at the least cost: a pair
// costs its differences, a value left unpaired (dropped, or received twice) costs more than any
// pair. It returns the index of each paired sent value's received one.
func alignInOrder(sent, received []any) map[int]int {
	const unpaired = 1 << 20
	n, m := len(sent), len(received)
	cost := make([][]int, n+1)
	for i := range cost {
		cost[i] = make([]int, m+1)
		for j := range cost[i] {
			switch {
			case i == 0:
				cost[i][j] = j * unpaired
			case j == 0:
				cost[i][j] = i * unpaired
			default:
				cost[i][j] = min(cost[i-1][j]+unpaired, cost[i][j-1]+unpaired,
					cost[i-1][j-1]+pairCost(sent[i-1], received[j-1]))
			}
		}
	}
	out := map[int]int{}
	for i, j := n, m; i > 0 && j > 0; {
		switch {
		case cost[i][j] == cost[i-1][j-1]+pairCost(sent[i-1], received[j-1]):
			out[i-1] = j - 1
			i, j = i-1, j-1
		case cost[i][j] == cost[i-1][j]+unpaired:
			i--
		default:
			j--
		}
	}
	return out
}
