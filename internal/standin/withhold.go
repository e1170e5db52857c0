package standin

import (
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/wire"
)

// Withholding an answer until the SDK sends another request of its kind
// (features/behaviour/application_cancels.feature): an application that gave up on a call makes
// it again, and the late answer to the first must arrive while the second waits. The wait ends
// on that event, not after a fixed time, so a loaded machine that is slow to cancel does not see
// the late answer come first; a backstop ends it for an SDK whose cancelled call never ends (it
// then gets its answer, late, and is judged by that).

// withholding is the state of one kind of request whose next answer is withheld.
type withholding struct {
	backstop time.Duration
	queue    []func() // the withheld answers, in the order their requests were read
	done     bool     // released: every later request of the kind is answered as usual
}

// WithholdNext withholds the answer to the next request of any of methods (one kind: a session's
// opening is session.create or session.resume) until the SDK sends another request of the kind,
// or backstop passes; then the withheld answer is written, and the request that released it is
// answered after it as usual. A model step with UntilNextPrompt waits the same way for the
// session's next session.send.
func (s *Server) WithholdNext(backstop time.Duration, methods ...string) {
	w := &withholding{backstop: backstop}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.withholds == nil {
		s.withholds = map[string]*withholding{}
	}
	for _, m := range methods {
		s.withholds[m] = w
	}
}

// withhold queues the answer to m when its kind is withheld and nothing is queued yet (true:
// the caller answers nothing now). A later request of the kind releases the queue first, writing
// each withheld answer before the caller answers it.
func (s *Server) withhold(c *conn, m wire.Message) bool {
	s.mu.Lock()
	w := s.withholds[m.Method]
	if w == nil || w.done {
		s.mu.Unlock()
		return false
	}
	if len(w.queue) > 0 {
		s.mu.Unlock()
		s.release(w)
		return false
	}
	w.queue = append(w.queue, func() { s.answer(c, m) })
	s.mu.Unlock()
	time.AfterFunc(w.backstop, func() {
		s.rec.Notef(c.name, "the withheld answer to %s released after %s: the SDK sent no other request of its kind", m.Method, w.backstop)
		s.release(w)
	})
	return true
}

// release writes every withheld answer of w in order, once.
func (s *Server) release(w *withholding) {
	s.mu.Lock()
	q := w.queue
	w.queue, w.done = nil, true
	s.mu.Unlock()
	for _, f := range q {
		f()
	}
}

// ReleaseWithheld ends every withholding: an answer withheld is written now, later requests
// are answered as usual, and a model step UntilNextPrompt no longer waits. For a call that
// ended before the SDK sent the request its next call would otherwise be withheld in its place.
func (s *Server) ReleaseWithheld() {
	s.mu.Lock()
	seen := map[*withholding]bool{}
	var ws []*withholding
	for _, w := range s.withholds {
		if !seen[w] {
			seen[w] = true
			ws = append(ws, w)
		}
	}
	s.promptsFree = true
	if s.nextPrompt != nil {
		close(s.nextPrompt)
	}
	s.nextPrompt = make(chan struct{})
	s.mu.Unlock()
	for _, w := range ws {
		s.release(w)
	}
}

// A cancelled call's prompts (HoldPrompts, EndHeldPrompts). An application that cancels a
// send-and-wait before the SDK wrote its prompt can still see the prompt go out after the call
// ended: Python 1.0.27 hands the write to a thread (copilot/_jsonrpc.py _send_message), which
// writes it once the task was cancelled. The scenario then makes the call again, so the runtime
// may read the first prompt late, beside or after the second. Each of them must start the turn
// scripted for the cancelled call, and none may count as the application's next prompt (the one
// a step UntilNextPrompt waits for): otherwise the late prompt takes the withheld turn and the
// next attempt's prompt ends it, and that attempt's send-and-wait returns at once.

// HoldPrompts makes every prompt read from now on one of the cancelled call's: each takes the
// next scripted turn without consuming it, and none counts as a next prompt.
func (s *Server) HoldPrompts() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script.heldPrompts, s.script.heldTaken = true, false
}

// EndHeldPrompts ends HoldPrompts: the turn the cancelled call's prompts took is consumed (when
// one took it: otherwise the next prompt takes it), and the next prompt read counts again. A
// cancelled call's prompt read later still is an ordinary prompt.
func (s *Server) EndHeldPrompts() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.script.heldTaken {
		s.script.turnsTaken++
	}
	s.script.heldPrompts, s.script.heldTaken = false, false
}

// promptRead counts a session.send read, waking the model steps that wait for the next one; a
// cancelled call's prompt (HoldPrompts) is not counted.
func (s *Server) promptRead() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.script.heldPrompts {
		return
	}
	s.prompts++
	if s.nextPrompt != nil {
		close(s.nextPrompt)
	}
	s.nextPrompt = make(chan struct{})
}

// promptsRead is how many session.send requests were read so far.
func (s *Server) promptsRead() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.prompts
}

// awaitPromptAfter waits until more than n session.send requests were read, or backstop passes
// (false).
func (s *Server) awaitPromptAfter(n int, backstop time.Duration) bool {
	timer := time.NewTimer(backstop)
	defer timer.Stop()
	for {
		s.mu.Lock()
		if s.prompts > n || s.promptsFree {
			s.mu.Unlock()
			return true
		}
		if s.nextPrompt == nil {
			s.nextPrompt = make(chan struct{})
		}
		ch := s.nextPrompt
		s.mu.Unlock()
		select {
		case <-ch:
		case <-timer.C:
			return false
		}
	}
}

// heldChan is the channel ReleaseHeld closes, made on first use.
func (s *Server) heldChan() chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held == nil {
		s.held = make(chan struct{})
	}
	return s.held
}

// ReleaseHeld ends every model step UntilReleased, now and later (the application's call
// returned). It may be called more than once.
func (s *Server) ReleaseHeld() {
	ch := s.heldChan()
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-ch:
	default:
		close(ch)
	}
}

// awaitRelease waits until ReleaseHeld is called, or backstop passes (false).
func (s *Server) awaitRelease(backstop time.Duration) bool {
	timer := time.NewTimer(backstop)
	defer timer.Stop()
	select {
	case <-s.heldChan():
		return true
	case <-timer.C:
		return false
	}
}
