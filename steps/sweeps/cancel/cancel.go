package cancel

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/driver"
	"github.com/copilot-sdk-conformance/conformance/internal/standin"
	"github.com/copilot-sdk-conformance/conformance/steps/rpccall"
	"github.com/copilot-sdk-conformance/conformance/steps/scenario"
)

// The application cancels a call (features/behaviour/application_cancels.feature): while the
// runtime withholds its answer, the application cancels the SDK call the language's way
// (drivers/PROTOCOL.md "The application cancels a call"); the call must end within the bound the
// scenario states with the language's cancellation error, and the connection must serve the next
// call, the late answer dropped without harm. Every public call that waits on the runtime is
// one case: createSession, resumeSession, send, sendAndWait, and the generated layer (one method
// per schema group: each driver reaches every method of a group through one path).

// cancelled is what the When step saw of the cancelled call.
type cancelled struct {
	call    string // the capability's last part: createSession, resumeSession, send, sendAndWait, rpc
	after   time.Duration
	took    time.Duration
	outcome string
	errType string
	message string
	flagged bool // the driver recognised the language's cancellation error
}

// cancelRPC is the generated method a scenario withholds and cancels, and how it is called.
type cancelRPC struct {
	method string
	params map[string]any
	target map[string]any // {"client"} or {"session"}
}

// engine is the cancel sweep's own state over the scenario's core.
type engine struct {
	*scenario.Scenario
	cancel    *cancelled // the call the application cancelled
	cancelRPC *cancelRPC // the generated method the runtime withholds
}

// Register binds the sweep's phrases on sc for the scenario s.
func Register(sc scenario.Binder, s *scenario.Scenario) {
	w := &engine{Scenario: s}
	sc.Step(`^the runtime takes (\d+) ms to answer each session opening$`, w.slowOpenings)
	sc.Step(`^the runtime takes (\d+) ms to answer each prompt$`, w.slowPrompts)
	sc.Step(`^the model takes (\d+) ms to reply to each of the next (\d+) prompts$`, w.slowReplies)
	scenario.Needing(sc, scenario.Needs("rpc.generated")).Step(`^the runtime takes (\d+) ms to answer each call of the first (server|session) method of its schema that the SDK's generated layer has$`, w.slowMethod)
	scenario.Needing(sc, scenario.Needs("call.cancel.createSession")).Step(`^the application creates a session and cancels the call after (\d+) ms$`, w.createCancelled)
	scenario.Needing(sc, scenario.Needs("call.cancel.resumeSession", "session.resume")).Step(`^the application resumes the session on another client and cancels the call after (\d+) ms$`, w.resumeCancelled)
	scenario.Needing(sc, scenario.Needs("call.cancel.send")).Step(`^the application sends a prompt and cancels the call after (\d+) ms$`, w.sendCancelled(false))
	scenario.Needing(sc, scenario.Needs("call.cancel.sendAndWait")).Step(`^the application sends a prompt, waits for the reply and cancels the call after (\d+) ms$`, w.sendCancelled(true))
	scenario.Needing(sc, scenario.Needs("call.cancel.rpc", "rpc.generated")).Step(`^the application calls that method through the generated layer and cancels the call after (\d+) ms$`, w.rpcCancelled)
	sc.Step(`^the call ended within (\d+) ms with the language's cancellation error$`, w.cancelledWithin)
	sc.Step(`^a session created next on the same client is opened$`, w.createdAfterCancel)
	scenario.Needing(sc, scenario.Needs("session.resume")).Step(`^the session resumed next on the same client is opened$`, w.resumedAfterCancel)
	sc.Step(`^a prompt sent next on the same session is answered$`, w.answeredAfterCancel)
	sc.Step(`^the runtime plays each session's turns one at a time, each after the one before it went idle$`, w.queuedTurns)
	sc.Step(`^the model replies "([^"]*)" to the next prompt after (\d+) ms$`, w.replyAfter)
	sc.Step(`^a prompt sent next on the same session is answered with "([^"]*)", its own turn's reply$`, w.answeredWithOwnReply)
	scenario.Needing(sc, scenario.Needs("rpc.generated")).Step(`^that method called next on the same client is answered$`, w.calledAfterCancel)
}

// slowOpenings makes the runtime answer every session.create and session.resume that long after
// it read them.
func (w *engine) slowOpenings(ms int) error {
	rt, err := w.ScriptedOnly("the scenario has the runtime withhold its answer to a session's opening; the real runtime answers at once")
	if err != nil {
		return err
	}
	rt.SetOpenDelay(time.Duration(ms) * time.Millisecond)
	return nil
}

// slowPrompts makes the runtime answer every session.send that long after it read it (the turn
// starts then).
func (w *engine) slowPrompts(ms int) error {
	rt, err := w.ScriptedOnly("the scenario has the runtime withhold its answer to session.send; the real runtime answers at once")
	if err != nil {
		return err
	}
	rt.SetAnswerDelay("session.send", time.Duration(ms)*time.Millisecond)
	return nil
}

// slowReplies scripts the next n turns: session.send is answered at once, the model then takes
// ms before its reply ends the turn.
func (w *engine) slowReplies(ms, n int) error {
	rt, err := w.ScriptedOnly("the scenario has the model take its time over a turn; the real runtime's scripted model answers at once")
	if err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		rt.AddTurn(standin.Turn{Steps: []standin.ModelStep{{Pause: time.Duration(ms) * time.Millisecond}}})
	}
	return nil
}

// slowMethod picks the group's first public SDK-to-runtime method, by name, that the SDK's
// generated layer has (each candidate called once, answered at once, until one is ok), and
// makes the runtime answer each later call of it that long after it read it.
func (w *engine) slowMethod(ms int, group string) error {
	doc, rt, target, err := rpccall.Setup(w.Scenario, group)
	if err != nil {
		return err
	}
	var lacking, failed []string
	for _, m := range doc.Methods {
		if m.Group != group || m.Internal || !m.FromSDK {
			continue
		}
		cases, _ := doc.CasesOnce(m)
		if len(cases) == 0 {
			continue
		}
		c := cancelRPC{method: m.Name, params: rpccall.Params(doc, m, cases[0]), target: target}
		r, err := w.Call("rpc", c.args())
		if err != nil {
			return err
		}
		switch r.Outcome {
		case driver.OK:
			rt.SetAnswerDelay(m.Name, time.Duration(ms)*time.Millisecond)
			w.cancelRPC = &c
			w.Observe("cancelled generated method", fmt.Sprintf("%s (before it, the generated layer lacks %d methods, %d failed)", m.Name, len(lacking), len(failed)))
			return nil
		case driver.Unsupported:
			lacking = append(lacking, m.Name)
		default:
			// Judged by the generated sweep; here only a method the SDK calls cleanly will do.
			failed = append(failed, m.Name+": "+r.ErrorText())
		}
	}
	return fmt.Errorf("none of the public %s methods of the schema went through the SDK's generated layer when answered at once: %d it lacks, %d failed %v", group, len(lacking), len(failed), failed)
}

func (c cancelRPC) args() map[string]any {
	args := map[string]any{"method": c.method, "params": c.params}
	for k, v := range c.target {
		args[k] = v
	}
	return args
}

// createCancelled is the When step: createSession with cancelAfterMs, its outcome kept as seen.
func (w *engine) createCancelled(ms int) error {
	c, err := w.Client()
	if err != nil {
		return err
	}
	return w.cancelOpening("createSession", c, w.WithHandlers(map[string]any{"tools": w.ToolList()}), ms)
}

// resumeCancelled resumes the scenario's session from a new client with cancelAfterMs.
func (w *engine) resumeCancelled(ms int) error {
	prev, err := w.Current()
	if err != nil {
		return err
	}
	c, err := w.Connect()
	if err != nil {
		return err
	}
	return w.cancelOpening("resumeSession", c, map[string]any{"sessionId": prev.ID, "tools": w.ToolList()}, ms)
}

// cancelOpening opens a session with cancelAfterMs under a new handle, kept only when the call
// returned one.
func (w *engine) cancelOpening(cmd, client string, args map[string]any, ms int) error {
	args["client"], args["session"] = client, fmt.Sprintf("s%d", len(w.Sessions)+1)
	r, err := w.cancelCall(cmd, cmd, args, ms)
	if err != nil || r.Outcome != driver.OK {
		return err
	}
	var res struct {
		SessionID string `json:"sessionId"`
	}
	_ = json.Unmarshal(r.Result, &res)
	w.Sessions = append(w.Sessions, scenario.Session{Handle: args["session"].(string), ID: res.SessionID, Client: client})
	return nil
}

// sendCancelled sends a prompt on the current session with cancelAfterMs: send alone, or
// send-and-wait.
func (w *engine) sendCancelled(wait bool) func(int) error {
	return func(ms int) error {
		s, err := w.Current()
		if err != nil {
			return err
		}
		call := "send"
		if wait {
			call = "sendAndWait"
		}
		_, err = w.cancelCall(call, "send", map[string]any{"session": s.Handle, "prompt": "cancelled", "wait": wait}, ms)
		return err
	}
}

// rpcCancelled calls the withheld generated method (slowMethod) with cancelAfterMs.
func (w *engine) rpcCancelled(ms int) error {
	if w.cancelRPC == nil {
		return fmt.Errorf("no generated method was withheld in this scenario")
	}
	_, err := w.cancelCall("rpc", "rpc", w.cancelRPC.args(), ms)
	return err
}

// cancelCall sends cmd with cancelAfterMs, timing it from the harness's side, and keeps what it
// ended with for the Then steps; an unsupported answer is the scenario's (its capability).
func (w *engine) cancelCall(call, cmd string, args map[string]any, ms int) (*driver.Response, error) {
	args["cancelAfterMs"] = ms
	if err := w.Lacking(cmd, args); err != nil {
		return nil, err
	}
	start := time.Now()
	r, err := w.Call(cmd, args)
	if err != nil {
		return nil, err
	}
	got := &cancelled{call: call, after: time.Duration(ms) * time.Millisecond, took: time.Since(start), outcome: r.Outcome}
	switch r.Outcome {
	case driver.Unsupported:
		return r, w.Unsupported(cmd, args, r)
	case driver.Error:
		if r.Error != nil {
			got.errType, got.message, got.flagged = r.Error.Type, r.Error.Message, r.Error.Cancelled
		}
	}
	w.cancel = got
	w.Observe("cancelled "+call, fmt.Sprintf("%s after %d ms (cancelled at %d ms)", r.Outcome, got.took.Milliseconds(), ms))
	return r, nil
}

// cancelledWithin checks the bound and the error.
func (w *engine) cancelledWithin(ms int) error {
	if w.cancel == nil {
		return fmt.Errorf("no call was cancelled in this scenario")
	}
	w.Check(w.cancel.call+" cancelled after "+w.cancel.after.String(), "")
	return judgeCancelled(*w.cancel, time.Duration(ms)*time.Millisecond)
}

func judgeCancelled(c cancelled, bound time.Duration) error {
	switch {
	case c.outcome == driver.OK:
		return fmt.Errorf("%s returned although the application cancelled it after %s and the runtime withheld its answer (it ended after %s)", c.call, c.after, c.took.Round(time.Millisecond))
	case c.outcome != driver.Error:
		return fmt.Errorf("%s ended %s", c.call, c.outcome)
	case !c.flagged:
		return fmt.Errorf("%s ended after %s with %s %q, not the language's cancellation error", c.call, c.took.Round(time.Millisecond), c.errType, c.message)
	case c.took > bound:
		return fmt.Errorf("%s ended %s after it began, beyond the bound of %s (cancelled after %s): %s %q", c.call, c.took.Round(time.Millisecond), bound, c.after, c.errType, c.message)
	}
	return nil
}

// createdAfterCancel opens another session on the same client: the connection still serves, and
// the withheld answer to the cancelled call, arriving meanwhile, did no harm.
func (w *engine) createdAfterCancel() error {
	return w.Create()
}

// resumedAfterCancel resumes the session again on the client whose resume was cancelled, the
// late answer to that one arriving meanwhile.
func (w *engine) resumedAfterCancel() error {
	if len(w.Sessions) == 0 || len(w.Clients) == 0 {
		return fmt.Errorf("no session to resume in this scenario")
	}
	prev := w.Sessions[0]
	return w.Open("resumeSession", w.Clients[len(w.Clients)-1], map[string]any{"sessionId": prev.ID, "tools": w.ToolList()})
}

// answeredAfterCancel sends the next prompt on the session and waits for its reply: the late
// answer (or the late end of the turn) of the cancelled one arrives meanwhile.
func (w *engine) answeredAfterCancel() error {
	if err := w.SendAndWait("next"); err != nil {
		return err
	}
	var r struct {
		Content *string `json:"content"`
	}
	if json.Unmarshal(w.Reply, &r) != nil || r.Content == nil {
		return fmt.Errorf("the prompt sent after the cancelled call returned no reply (result %s)", w.Reply)
	}
	return nil
}

// queuedTurns makes the stand-in queue a session's turns as the real runtime does
// (standin.Script.QueueTurns): a prompt sent while a turn runs is answered at once, its turn
// begins after that one's session.idle.
func (w *engine) queuedTurns() error {
	rt, err := w.ScriptedOnly("the scenario switches the stand-in's turns to the real runtime's queue; the real runtime queues them itself, but its scripted model cannot be told to take its time")
	if err != nil {
		return err
	}
	rt.SetQueueTurns(true)
	return nil
}

// replyAfter scripts the next turn: the model takes ms, then replies text (which tells the
// turns apart).
func (w *engine) replyAfter(text string, ms int) error {
	rt, err := w.ScriptedOnly("the scenario has the model take its time over a turn; the real runtime's scripted model answers at once")
	if err != nil {
		return err
	}
	var steps []standin.ModelStep
	if ms > 0 {
		steps = append(steps, standin.ModelStep{Pause: time.Duration(ms) * time.Millisecond})
	}
	rt.AddTurn(standin.Turn{Steps: append(steps, standin.ModelStep{Reply: text})})
	return nil
}

// answeredWithOwnReply sends a prompt and waits for its reply, which must be its own turn's
// (judgeOwnReply).
func (w *engine) answeredWithOwnReply(want string) error {
	if err := w.SendAndWait("next"); err != nil {
		return err
	}
	return judgeOwnReply(w.Reply, want, w.T.SDK())
}

// judgeOwnReply judges a send-and-wait's result: the reply of the turn its own prompt started
// (want), never another turn's, such as the one a cancelled send-and-wait left running, whose
// session.idle arrives after the new prompt was answered.
func judgeOwnReply(result json.RawMessage, want, sdk string) error {
	var r struct {
		Content *string `json:"content"`
	}
	if json.Unmarshal(result, &r) != nil || r.Content == nil {
		return fmt.Errorf("the send-and-wait after the cancelled one returned no reply (result %s)", result)
	}
	if *r.Content != want {
		return fmt.Errorf("%s's send-and-wait after the cancelled one returned %q, another turn's reply, not its own turn's %q", sdk, *r.Content, want)
	}
	return nil
}

// calledAfterCancel calls the withheld method again, uncancelled: it waits out the delay, the
// late answer to the cancelled call arriving meanwhile.
func (w *engine) calledAfterCancel() error {
	if w.cancelRPC == nil {
		return fmt.Errorf("no generated method was withheld in this scenario")
	}
	_, err := w.Do("rpc", w.cancelRPC.args())
	return err
}
