package pending

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/standin"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/copilot-sdk-conformance/conformance/steps/handlerset"
	"github.com/copilot-sdk-conformance/conformance/steps/hold"
	"github.com/copilot-sdk-conformance/conformance/steps/jsondiff"
	"github.com/copilot-sdk-conformance/conformance/steps/scenario"
)

// No pending request blocks another (features/behaviour/pending_requests.feature): the kinds of
// request the runtime makes of the application are the runtime-to-SDK methods of the schema the
// application registered a handler for, and a call of each of the session's tools. While the
// application's handler for one kind is held (drivers/PROTOCOL.md "Holding a handler": it answers
// only once released), the runtime sends every other kind on the same session; each must be
// answered before the held one is released, which is then answered under its own id.

// engine is the pending sweep's state over the scenario's core: the handlers the application
// registered (shared with the handler sweep and the plain phrases) and each held phase.
type engine struct {
	*scenario.Scenario
	handlers *handlerset.Set
	holds    []*holdPhase // each kind held with the others sent meanwhile
}

// Register binds the pending sweep's phrases on sc for the scenario s, over the scenario's
// handlers hs.
func Register(sc scenario.Binder, s *scenario.Scenario, hs *handlerset.Set) {
	w := &engine{Scenario: s, handlers: hs}
	scenario.Needing(sc, scenario.Needs("handler.hold")).Step(`^the runtime holds each kind of request in turn and sends every other kind while it is held$`, w.holdEachKind)
	sc.Step(`^the SDK answered every other kind while the held one was pending$`, w.othersAnsweredWhileHeld)
	sc.Step(`^the SDK answered each held request under its own id once released$`, w.heldAnsweredOnRelease)
}

// pendingCall is one request of a kind the runtime sent in a phase, found in the transcript.
type pendingCall struct {
	requestSeq, answerSeq int // 0: not found / never answered
	id                    string
	answers               int // answers naming its id
}

// holdPhase is one held kind with the others sent while it was held.
type holdPhase struct {
	held       hold.Kind
	start      int // the transcript's length when the phase began
	release    int // and when the release was sent (every later entry came after it)
	reached    bool
	others     []hold.Kind
	heldToolID string            // the requestId of a held tool call
	toolIDs    map[string]string // the requestId of each other tool call, by tool
}

// pendingKinds are the kinds this scenario can hold and send: each registered runtime-to-SDK
// method that answers (not a notification, not the exchange of the request handler), with its
// first generated case the SDK's handler API can receive, and each tool of the session.
func (w *engine) pendingKinds() ([]hold.Kind, error) {
	doc, err := w.Schemas()
	if err != nil {
		return nil, err
	}
	var out []hold.Kind
	for _, m := range scenario.HandlerMethods(doc) {
		h := w.handlers.Specs[m.Name]
		if h == nil || !h.Registered || h.Exchange || m.Notification {
			continue
		}
		for _, p := range h.Params {
			if h.Lacks(p) == nil {
				m := m
				out = append(out, hold.Kind{Method: &m, Params: p})
				break
			}
		}
	}
	for _, t := range w.Tools {
		if name, _ := t["name"].(string); name != "" {
			out = append(out, hold.Kind{Tool: name})
		}
	}
	return out, nil
}

// send makes one request of the kind and waits for its answer (the runtime's own bound); for a
// tool it returns the call's requestId.
func (w *engine) sendKind(rt *standin.Server, s scenario.Session, k hold.Kind, created map[string]any) (string, error) {
	if k.Method == nil {
		return rt.CallTool(s.ID, k.Tool, map[string]any{})
	}
	_, err := rt.Ask(s.ID, k.Method.Name, w.AsTheRuntimeSends(*k.Method, k.Params, s.ID, created), false)
	return "", err
}

// holdEachKind is the When step: first every kind once with nothing held (a kind the SDK does
// not answer even then is left out, named: the handler sweep judges it), then each kind held in
// turn with every other kind sent meanwhile.
func (w *engine) holdEachKind() error {
	rt, err := w.ScriptedOnly("the scenario has the runtime send every kind of runtime-to-SDK request on demand, each while another is held; the real runtime sends a request only when its model's step makes it, and most kinds (file system, canvas, providers) not at all offline")
	if err != nil {
		return err
	}
	s, err := w.Current()
	if err != nil {
		return err
	}
	all, err := w.pendingKinds()
	if err != nil {
		return err
	}
	// The handlers' reports come while no command is in flight (as in the handler sweep).
	release, err := w.HoldDriverLines()
	if err != nil {
		return err
	}
	defer release()
	created := w.CreateParams()
	w.Expect(len(all) * 6) // a held kind costs, for an SDK that answers nothing while it is held, one callWait
	var kinds, unanswered []string
	var usable []hold.Kind
	for i, k := range all {
		if err := w.Gone(); err != nil {
			return scenario.CutShort(err, i, len(all), k.String())
		}
		if _, err := w.sendKind(rt, s, k, created); err != nil {
			if errors.Is(err, standin.ErrClosed) {
				return scenario.CutShort(w.ConnectionLost(err), i, len(all), k.String())
			}
			if errors.Is(err, standin.ErrUnanswered) {
				unanswered = append(unanswered, k.String())
				continue
			}
		}
		usable = append(usable, k)
		kinds = append(kinds, k.String())
	}
	if len(unanswered) > 0 {
		w.Observe("kinds not answered even with nothing held (not judged here)", strings.Join(unanswered, ", "))
	}
	if len(usable) < 2 {
		return fmt.Errorf("the SDK answered %d kinds of runtime request with nothing held (%s); the check needs two or more", len(usable), strings.Join(kinds, ", "))
	}
	w.Observe("pending-request pairs (held, other)", fmt.Sprintf("%d: %d kinds (%s)", len(usable)*(len(usable)-1), len(usable), strings.Join(kinds, ", ")))
	for i, h := range usable {
		if err := w.Gone(); err != nil {
			return scenario.CutShort(err, i, len(usable), h.String())
		}
		// A phase begins with its hold command, so its requests are the phase's by their place
		// (the first pass, which no command separates, is no case's).
		w.CaseStarts(h.String() + " held, every other kind sent")
		p, err := w.holdOne(rt, s, h, usable, created)
		if p != nil {
			w.holds = append(w.holds, p)
		}
		if err != nil {
			return scenario.CutShort(err, i, len(usable), h.String())
		}
	}
	w.CasesEnd()
	return w.RoundTrip()
}

// holdOne runs one phase: hold the kind, send it, wait until its handler is reached, send every
// other kind at once, wait until each is answered, release, and wait for the held call to end.
// The wait is for the answers themselves, not a time: a loaded machine's slow SDK is waited for,
// and only the runtime's own bound on an unanswered request (standin's callWait, 10 s) ends the
// wait for an SDK that answers nothing while one kind is held (those answers then come after
// the release, which the Then step names).
func (w *engine) holdOne(rt *standin.Server, s scenario.Session, h hold.Kind, kinds []hold.Kind, created map[string]any) (*holdPhase, error) {
	// The phase starts before the hold: a replay writes the recorded phase's frames when the
	// hold is answered (the recorded driver answers with its stretch of the recording), and
	// they must count as the phase's, as they do live.
	p := &holdPhase{held: h, start: len(w.Rec.Entries()), toolIDs: map[string]string{}}
	if _, err := w.Do("hold", hold.Args(s, h)); err != nil {
		return nil, err
	}
	var mu sync.Mutex
	var lost error
	run := func(k hold.Kind, wg *sync.WaitGroup, held bool) {
		defer wg.Done()
		id, err := w.sendKind(rt, s, k, created)
		mu.Lock()
		defer mu.Unlock()
		if held {
			p.heldToolID = id
		} else if id != "" {
			p.toolIDs[k.Tool] = id
		}
		if errors.Is(err, standin.ErrClosed) && lost == nil {
			lost = err
		}
	}
	var heldDone, othersDone sync.WaitGroup
	heldDone.Add(1)
	go run(h, &heldDone, true)
	heldAnswered := make(chan struct{})
	go func() { heldDone.Wait(); close(heldAnswered) }()
	p.reached = hold.Reached(w.Scenario, h, p.start, heldAnswered)
	if p.reached {
		for _, k := range kinds {
			if k.String() != h.String() {
				p.others = append(p.others, k)
				othersDone.Add(1)
				go run(k, &othersDone, false)
			}
		}
		othersDone.Wait()
	}
	p.release = len(w.Rec.Entries())
	_, err := w.Do("release", hold.Args(s, h))
	heldDone.Wait()
	if err != nil {
		return p, err
	}
	w.settle(p)
	if lost != nil {
		return p, w.ConnectionLost(lost)
	}
	return p, nil
}

// settle waits, after a phase's release, until each of its other requests has been answered
// (or the backstop): an SDK that served them one at a time answers them only now, and the next
// phase must not begin while they are still queued, or the next hold would catch one of them (a
// call of the tool held next, held in place of that phase's own call) and the phases would judge
// each other's frames. An SDK that answers every kind at once has nothing left to wait for.
func (w *engine) settle(p *holdPhase) {
	deadline := time.Now().Add(hold.Backstop(w.Scenario))
	for time.Now().Before(deadline) && w.Gone() == nil {
		frames := hold.FrameHeads(w.Entries())
		open := false
		for _, o := range p.others {
			if c := callIn(frames, p.start, o, p.toolIDs[o.Tool]); c.requestSeq > 0 && c.answerSeq == 0 {
				open = true
				break
			}
		}
		if !open {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// callIn finds the phase's call of a kind: a method's first request after the phase began and
// the SDK's responses with its id; a tool's external_tool.requested with its requestId and the
// SDK's handlePendingToolCall naming it.
func callIn(frames []hold.FrameHead, since int, k hold.Kind, toolID string) pendingCall {
	var c pendingCall
	answer := func(seq int) {
		c.answers++
		if c.answerSeq == 0 {
			c.answerSeq = seq
		}
	}
	for _, f := range frames {
		if f.Seq <= since {
			continue
		}
		switch {
		case k.Method != nil && f.Dir == transcript.RuntimeToSDK && c.requestSeq == 0 && f.Method == k.Method.Name && f.ID != "":
			c.requestSeq, c.id = f.Seq, f.ID
		case k.Method != nil && f.Dir == transcript.SDKToRuntime && c.requestSeq > 0 && f.Method == "" && f.ID == c.id:
			answer(f.Seq)
		case k.Method == nil && toolID == "" && f.Dir == transcript.RuntimeToSDK && f.Event == "external_tool.requested" && strings.HasPrefix(f.RequestID, "held-") && c.requestSeq == 0:
			// The call's requestId is not known (the call went out in no stretch of its own: a
			// replay of a recording from before byStep): the phase's one call of the tool
			// outside a turn (standin.CallTool's "held-N").
			toolID = f.RequestID
			c.requestSeq, c.id = f.Seq, toolID
		case k.Method == nil && toolID != "" && f.Dir == transcript.RuntimeToSDK && f.Event == "external_tool.requested" && f.RequestID == toolID && c.requestSeq == 0:
			c.requestSeq, c.id = f.Seq, toolID
		case k.Method == nil && toolID != "" && f.Dir == transcript.SDKToRuntime && f.Method == "session.tools.handlePendingToolCall" && f.RequestID == toolID:
			answer(f.Seq)
		}
	}
	return c
}

// othersAnsweredWhileHeld checks every (held, other) pair: the other kind's request was answered
// before the held one was released.
func (w *engine) othersAnsweredWhileHeld() error {
	if len(w.holds) == 0 {
		return fmt.Errorf("no kind of runtime request was held in this scenario")
	}
	frames := hold.FrameHeads(w.Entries())
	fails := map[string][]string{}
	var notReached []string
	for _, p := range w.holds {
		if !p.reached {
			notReached = append(notReached, p.held.String())
			continue
		}
		// The held request itself, named with its place in the transcript in each pair it blocked.
		held := callIn(frames, p.start, p.held, p.heldToolID)
		for _, o := range p.others {
			w.Check(o.String()+" while "+p.held.String()+" is held", "")
			c := callIn(frames, p.start, o, p.toolIDs[o.Tool])
			if f := judgeOther(o.String(), c, p.held.String(), held, p.release); f != "" {
				fails[p.held.String()] = append(fails[p.held.String()], f)
			}
		}
	}
	if len(notReached) > 0 {
		sort.Strings(notReached)
		w.Observe("kinds whose handler was not reached when held (their pairs not judged)", strings.Join(notReached, ", "))
	}
	return jsondiff.GroupedError(fails, "requests of another kind were not answered while one was held", "held kinds")
}

// judgeOther is what is wrong with the other kind's call c in a phase whose held call was
// released after the transcript entry release ("" when it was answered before).
func judgeOther(other string, c pendingCall, heldKind string, held pendingCall, release int) string {
	switch {
	case c.requestSeq == 0:
		return fmt.Sprintf("%s: the runtime's request is not in the transcript", other)
	case c.answerSeq == 0:
		return fmt.Sprintf("%s (request #%d, id %s): never answered", other, c.requestSeq, c.id)
	case c.answerSeq > release:
		return fmt.Sprintf("%s (request #%d, id %s): answered (#%d) only after the held %s (request #%d, id %s) was released (after #%d)", other, c.requestSeq, c.id, c.answerSeq, heldKind, held.requestSeq, held.id, release)
	}
	return ""
}

// heldAnsweredOnRelease checks that each held request was answered once, under its own id, after
// its release.
func (w *engine) heldAnsweredOnRelease() error {
	if len(w.holds) == 0 {
		return fmt.Errorf("no kind of runtime request was held in this scenario")
	}
	frames := hold.FrameHeads(w.Entries())
	fails := map[string][]string{}
	for _, p := range w.holds {
		if !p.reached {
			continue
		}
		w.Check(p.held.String()+" (held, answer)", "")
		c := callIn(frames, p.start, p.held, p.heldToolID)
		k := p.held.String()
		switch {
		case c.requestSeq == 0:
			fails[k] = append(fails[k], "the runtime's request is not in the transcript")
		case c.answers == 0:
			fails[k] = append(fails[k], fmt.Sprintf("request #%d (id %s): never answered under its id once released (after #%d)", c.requestSeq, c.id, p.release))
		case c.answers > 1:
			fails[k] = append(fails[k], fmt.Sprintf("request #%d (id %s): answered %d times", c.requestSeq, c.id, c.answers))
		case c.answerSeq < p.release:
			fails[k] = append(fails[k], fmt.Sprintf("request #%d (id %s): answered (#%d) before its release (#%d), while the application's handler was held", c.requestSeq, c.id, c.answerSeq, p.release))
		}
	}
	return jsondiff.GroupedError(fails, "held requests were not answered under their own id once released", "held kinds")
}
