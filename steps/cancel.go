package steps

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/driver"
)

// The application cancels a call (features/behaviour/application_cancels.feature): while the
// runtime withholds its answer, the application cancels the SDK call the language's way
// (drivers/PROTOCOL.md "The application cancels a call"); the call must end within the bound the
// scenario states with the language's cancellation error, and the connection must serve the next
// call, the late answer dropped without harm.

// cancelled is what the When step saw of the cancelled call.
type cancelled struct {
	after   time.Duration
	took    time.Duration
	outcome string
	errType string
	message string
	flagged bool // the driver recognised the language's cancellation error
}

func (w *world) registerCancel(sc binder) {
	sc.Step(`^the runtime takes (\d+) ms to answer each session opening$`, w.slowOpenings)
	needing(sc, needs("call.cancel.createSession")).Step(`^the application creates a session and cancels the call after (\d+) ms$`, w.createCancelled)
	sc.Step(`^the call ended within (\d+) ms with the language's cancellation error$`, w.cancelledWithin)
	sc.Step(`^a session created next on the same client is opened$`, w.createdAfterCancel)
}

// slowOpenings makes the runtime answer every session.create and session.resume that long after
// it read them.
func (w *world) slowOpenings(ms int) error {
	rt, err := w.scriptedOnly("the scenario has the runtime withhold its answer to a session's opening; the real runtime answers at once")
	if err != nil {
		return err
	}
	rt.SetOpenDelay(time.Duration(ms) * time.Millisecond)
	return nil
}

// createCancelled is the When step: createSession with cancelAfterMs, its outcome kept as seen.
func (w *world) createCancelled(ms int) error {
	c, err := w.client()
	if err != nil {
		return err
	}
	args := w.withHandlers(map[string]any{"tools": w.toolList(), "cancelAfterMs": ms})
	args["client"], args["session"] = c, fmt.Sprintf("s%d", len(w.sessions)+1)
	if err := w.lacking("createSession", args); err != nil {
		return err
	}
	start := time.Now()
	r, err := w.call("createSession", args)
	if err != nil {
		return err
	}
	got := &cancelled{after: time.Duration(ms) * time.Millisecond, took: time.Since(start), outcome: r.Outcome}
	switch r.Outcome {
	case driver.Unsupported:
		return w.unsupported("createSession", args, r)
	case driver.OK:
		var res struct {
			SessionID string `json:"sessionId"`
		}
		_ = json.Unmarshal(r.Result, &res)
		w.sessions = append(w.sessions, session{handle: args["session"].(string), id: res.SessionID, client: c})
	case driver.Error:
		if r.Error != nil {
			got.errType, got.message, got.flagged = r.Error.Type, r.Error.Message, r.Error.Cancelled
		}
	}
	w.cancel = got
	w.observe("cancelled createSession", fmt.Sprintf("%s after %d ms (cancelled at %d ms)", r.Outcome, got.took.Milliseconds(), ms))
	return nil
}

// cancelledWithin checks the bound and the error.
func (w *world) cancelledWithin(ms int) error {
	if w.cancel == nil {
		return fmt.Errorf("no call was cancelled in this scenario")
	}
	w.check("createSession cancelled after "+w.cancel.after.String(), "")
	return judgeCancelled(*w.cancel, time.Duration(ms)*time.Millisecond)
}

func judgeCancelled(c cancelled, bound time.Duration) error {
	switch {
	case c.outcome == driver.OK:
		return fmt.Errorf("the call returned a session although the application cancelled it after %s and the runtime withheld its answer (it ended after %s)", c.after, c.took.Round(time.Millisecond))
	case c.outcome != driver.Error:
		return fmt.Errorf("the call ended %s", c.outcome)
	case !c.flagged:
		return fmt.Errorf("the call ended after %s with %s %q, not the language's cancellation error", c.took.Round(time.Millisecond), c.errType, c.message)
	case c.took > bound:
		return fmt.Errorf("the call ended %s after it began, beyond the bound of %s (cancelled after %s): %s %q", c.took.Round(time.Millisecond), bound, c.after, c.errType, c.message)
	}
	return nil
}

// createdAfterCancel opens another session on the same client: the connection still serves, and
// the withheld answer to the cancelled call, arriving meanwhile, did no harm.
func (w *world) createdAfterCancel() error {
	return w.create()
}
