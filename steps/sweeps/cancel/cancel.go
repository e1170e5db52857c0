package cancel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/driver"
	"github.com/copilot-sdk-conformance/conformance/internal/standin"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
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
	call  string // the capability's last part: createSession, resumeSession, send, sendAndWait, rpc
	after time.Duration
	took  time.Duration // on the transcript's clock, from the SDK's request (course.from) to the driver's answer
	// afterCancel is how long the call took to end after the cancellation took effect, on the
	// driver's clock (nil: a driver or recording that predates it; took is judged instead).
	afterCancel *time.Duration
	course      course
	outcome     string
	errType     string
	message     string
	flagged     bool // the driver recognised the language's cancellation error
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
	withheld  []string   // the methods of the request whose answer the runtime withholds
	rt        *standin.Server
	turnEnd   bool // the turn's end is withheld, not the request's answer
	queued    bool // the stand-in queues the session's turns (queuedTurns)
	held      bool // a turn's reply is held until the application's call returned (replyOnceReturned)
}

// queuedAttempts bounds how often a cancelled send is made again when it was cancelled before
// its prompt went out (cancelCall), its delay doubled each time.
const queuedAttempts = 4

// Register binds the sweep's phrases on sc for the scenario s.
func Register(sc scenario.Binder, s *scenario.Scenario) {
	w := &engine{Scenario: s}
	sc.Step(`^the runtime withholds its answer to the next session opening until the SDK sends another$`, w.withholdOpening)
	sc.Step(`^the runtime withholds its answer to the next prompt until the SDK sends another$`, w.withholdPrompt)
	sc.Step(`^the model withholds its reply to the next prompt until the SDK sends another$`, w.withholdReply)
	scenario.Needing(sc, scenario.Needs("rpc.generated")).Step(`^the runtime withholds its answer to the next call of the first (server|session) method of its schema that the SDK's generated layer has until the SDK sends another$`, w.withholdMethod)
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
	sc.Step(`^the model replies "([^"]*)" to the next prompt once the SDK sends another$`, w.replyOnNextPrompt)
	sc.Step(`^the model replies "([^"]*)" to the next prompt once the application's call returned, at the latest after (\d+) ms$`, w.replyOnceReturned)
	sc.Step(`^a prompt sent next on the same session is answered with "([^"]*)", its own turn's reply$`, w.answeredWithOwnReply)
	scenario.Needing(sc, scenario.Needs("rpc.generated")).Step(`^that method called next on the same client is answered$`, w.calledAfterCancel)
}

// The runtime withholds the answer the cancelled call waits for until the SDK sends the same
// request again (standin.WithholdNext): the next call, which the application makes only once the
// cancelled one ended. So the late answer arrives while the next call waits however slow a
// loaded machine makes the cancellation, and a call that ignores its cancellation waits for the
// answer until the backstop, half the command timeout, and then returns late (judged so).
func (w *engine) backstop() time.Duration { return w.T.CommandTimeout() / 2 }

// withholdOpening withholds the answer to the next session.create or session.resume (the opening:
// the session exists only when it is answered).
func (w *engine) withholdOpening() error {
	rt, err := w.ScriptedOnly("the scenario has the runtime withhold its answer to a session's opening; the real runtime answers at once")
	if err != nil {
		return err
	}
	w.withheld, w.rt = []string{"session.create", "session.resume"}, rt
	rt.WithholdNext(w.backstop(), w.withheld...)
	return nil
}

// withholdPrompt withholds the answer to the next session.send (the turn starts when it is
// answered).
func (w *engine) withholdPrompt() error {
	rt, err := w.ScriptedOnly("the scenario has the runtime withhold its answer to session.send; the real runtime answers at once")
	if err != nil {
		return err
	}
	w.withheld, w.rt = []string{"session.send"}, rt
	rt.WithholdNext(w.backstop(), w.withheld...)
	return nil
}

// withholdReply scripts the next turn: session.send is answered at once, the model then thinks
// until the SDK sends the next prompt before its reply ends the turn.
func (w *engine) withholdReply() error {
	rt, err := w.ScriptedOnly("the scenario has the model take its time over a turn; the real runtime's scripted model answers at once")
	if err != nil {
		return err
	}
	w.withheld, w.turnEnd, w.rt = []string{"session.send"}, true, rt
	rt.AddTurn(standin.Turn{Steps: []standin.ModelStep{{Pause: w.backstop(), UntilNextPrompt: true}}})
	return nil
}

// withholdMethod picks the group's first public SDK-to-runtime method, by name, that the SDK's
// generated layer has (each candidate called once, answered at once, until one is ok), and
// withholds the answer to the next call of it.
func (w *engine) withholdMethod(group string) error {
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
			w.withheld, w.rt = []string{m.Name}, rt
			rt.WithholdNext(w.backstop(), m.Name)
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

// cancelCall sends cmd with cancelAfterMs and keeps what it ended with for the Then steps,
// timed on the transcript's clock (callCourse); an unsupported answer is the scenario's (its
// capability).
func (w *engine) cancelCall(call, cmd string, args map[string]any, ms int) (*driver.Response, error) {
	if w.queued {
		// Every prompt of the call, an attempt's written after it ended included, starts the
		// turn scripted for it, and none is the application's next prompt (standin.HoldPrompts);
		// the Then step that sends the next prompt ends this (EndHeldPrompts).
		w.rt.HoldPrompts()
	}
	prompt, _ := args["prompt"].(string)
	for attempt := 1; ; attempt++ {
		r, err := w.cancelOnce(call, cmd, args, ms)
		// With queued turns the scenario is about the cancelled prompt's turn running on: a call
		// cancelled before its prompt went out (Python and Rust try session.sendAndWait first, and
		// a loaded machine took over 200 ms over it) leaves no such turn, and its scripted turn
		// unused. It is made again with twice the delay: the turn's reply waits for the next
		// prompt, so a later cancellation still finds it running.
		if err != nil || !w.queued || w.cancel == nil || w.cancel.course.request || attempt == queuedAttempts {
			return r, err
		}
		w.Rec.Notef("", "the cancelled call sent no session.send within %d ms: made again, cancelled after %d ms", ms, 2*ms)
		ms *= 2
		// Its own prompt: the one cancelled may still go out late (an SDK that handed the
		// write to a thread), and this attempt's course is timed from this attempt's.
		args["prompt"] = fmt.Sprintf("%s (made again, attempt %d)", prompt, attempt+1)
	}
}

// cancelOnce makes the call once, cancelled after ms, and records what became of it (w.cancel).
func (w *engine) cancelOnce(call, cmd string, args map[string]any, ms int) (*driver.Response, error) {
	args["cancelAfterMs"] = ms
	if err := w.Lacking(cmd, args); err != nil {
		return nil, err
	}
	since := len(w.Entries())
	r, err := w.Call(cmd, args)
	if err != nil {
		return nil, err
	}
	got := &cancelled{call: call, after: time.Duration(ms) * time.Millisecond, outcome: r.Outcome}
	switch r.Outcome {
	case driver.Unsupported:
		return r, w.Unsupported(cmd, args, r)
	case driver.Error:
		if r.Error != nil {
			got.errType, got.message, got.flagged = r.Error.Type, r.Error.Message, r.Error.Cancelled
			if ms := r.Error.AfterCancelMs; ms != nil {
				d := time.Duration(*ms) * time.Millisecond
				got.afterCancel = &d
			}
		}
	}
	prompt, _ := args["prompt"].(string)
	got.course = callCourse(w.Entries()[min(since, len(w.Entries())):], w.withheld, prompt, w.turnEnd)
	got.took = got.course.took()
	if !got.course.request && w.rt != nil && !w.queued {
		// The SDK gave up before it sent the request (Rust's send-and-wait cancelled while it
		// tried session.sendAndWait first): nothing is withheld, and the next call must not be
		// withheld in its place.
		w.rt.ReleaseWithheld()
		w.Rec.Notef("", "the cancelled call sent no %s: the runtime withholds nothing from the next call", strings.Join(w.withheld, " or "))
	}
	w.cancel = got
	seen := fmt.Sprintf("%s %d %s (cancelled at %d ms)", r.Outcome, got.took.Milliseconds(), got.course.fromWhat(), ms)
	if got.afterCancel != nil {
		seen += fmt.Sprintf("; ended %d ms after the cancellation took effect, on the driver's clock", got.afterCancel.Milliseconds())
	}
	w.Observe("cancelled "+call, seen)
	return r, nil
}

// course is the cancelled call on the transcript's clock: the SDK's request of the withheld
// method (or, when the SDK sent none, the driver's command), the driver's answer, and whether
// the runtime's withheld answer (the turn's end) came before it.
type course struct {
	fromMS, endMS float64
	request       bool // fromMS is the SDK's request, not the command
	ended         bool // the driver's answer was found
	answeredFirst bool
}

func (c course) took() time.Duration {
	if !c.ended {
		return 0
	}
	return time.Duration((c.endMS - c.fromMS) * float64(time.Millisecond))
}

func (c course) fromWhat() string {
	if c.request {
		return "ms from the SDK's request to the driver's answer"
	}
	return "ms from the driver's command to its answer (the SDK sent no request)"
}

// callCourse reads the course of the one command sent in entries; the SDK's request is the
// first of a withheld method, carrying prompt when one is given (an earlier attempt's prompt,
// written late, is not this call's). The times are those the
// transcript recorded as each frame and line arrived: the SDK's request read by the runtime,
// the driver's answer read by the harness. They leave out what the harness's own wait for a
// free driver and the driver's reading of the command cost a loaded machine.
func callCourse(entries []transcript.Entry, withheld []string, prompt string, turnEnd bool) course {
	var c course
	var cmdID, reqID json.RawMessage
	for _, e := range entries {
		var m struct {
			ID      json.RawMessage `json:"id"`
			Cmd     string          `json:"cmd"`
			Outcome string          `json:"outcome"`
			Method  string          `json:"method"`
			Params  struct {
				Prompt *string `json:"prompt"`
				Event  struct {
					Type string `json:"type"`
				} `json:"event"`
			} `json:"params"`
		}
		if len(e.Frame) == 0 || json.Unmarshal(e.Frame, &m) != nil {
			continue
		}
		switch {
		case e.Dir == transcript.HarnessToDriver && m.Cmd != "" && cmdID == nil:
			cmdID, c.fromMS = m.ID, e.TMS
		case e.Dir == transcript.SDKToRuntime && reqID == nil && slices.Contains(withheld, m.Method) && len(m.ID) > 0 &&
			(prompt == "" || m.Params.Prompt != nil && *m.Params.Prompt == prompt):
			reqID, c.fromMS, c.request = m.ID, e.TMS, true
		case e.Dir == transcript.RuntimeToSDK && reqID != nil && !turnEnd && m.Method == "" && bytes.Equal(m.ID, reqID),
			e.Dir == transcript.RuntimeToSDK && reqID != nil && turnEnd && m.Method == "session.event" && m.Params.Event.Type == "session.idle":
			c.answeredFirst = true
		case e.Dir == transcript.DriverToHarness && m.Outcome != "" && cmdID != nil && bytes.Equal(m.ID, cmdID):
			c.endMS, c.ended = e.TMS, true
			return c
		}
	}
	return c
}

// cancelledWithin checks the bound and the error.
func (w *engine) cancelledWithin(ms int) error {
	if w.cancel == nil {
		return fmt.Errorf("no call was cancelled in this scenario")
	}
	w.Check(w.cancel.call+" cancelled after "+w.cancel.after.String(), "")
	return judgeCancelled(*w.cancel, time.Duration(ms)*time.Millisecond)
}

// judgeCancelled: the call must end with the language's cancellation error while the runtime
// still withheld its answer (which it does until the SDK sends the same request again, so only
// a call that ignored its cancellation sees the answer first), and within the bound of the
// cancellation taking effect on the driver's clock (a driver that does not say: of the SDK's
// request, on the transcript's clock). The driver's clock starts when its cancellation fired,
// so a loaded machine that runs the driver late does not count against the SDK.
func judgeCancelled(c cancelled, bound time.Duration) error {
	took := c.took.Round(time.Millisecond)
	switch {
	case c.outcome == driver.OK:
		return fmt.Errorf("%s returned although the application cancelled it after %s and the runtime withheld its answer until the SDK sent the same request again or its backstop passed (it ended %s after the SDK's request)", c.call, c.after, took)
	case c.outcome != driver.Error:
		return fmt.Errorf("%s ended %s", c.call, c.outcome)
	case !c.course.ended:
		return fmt.Errorf("%s: the driver's answer to the cancelled call is not in the transcript", c.call)
	case !c.flagged:
		return fmt.Errorf("%s ended after %s with %s %q, not the language's cancellation error", c.call, took, c.errType, c.message)
	case c.course.answeredFirst:
		return fmt.Errorf("%s ended with the language's cancellation error (%s %q) only after the runtime's withheld answer arrived, %s after the SDK's request: the cancellation did not end the call", c.call, c.errType, c.message, took)
	case c.afterCancel != nil && *c.afterCancel > bound:
		return fmt.Errorf("%s ended %s after its cancellation took effect (the driver's clock; cancelled after %s), beyond the bound of %s: %s %q", c.call, c.afterCancel.Round(time.Millisecond), c.after, bound, c.errType, c.message)
	case c.afterCancel == nil && c.took > bound:
		return fmt.Errorf("%s ended %s after the SDK's request, beyond the bound of %s (cancelled after %s; the transcript's clock, the driver giving no afterCancelMs): %s %q", c.call, took, bound, c.after, c.errType, c.message)
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
	w.endHeldPrompts()
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
	w.queued, w.rt = true, rt
	return nil
}

// endHeldPrompts makes the next prompt the application's own again, once the cancelled call
// ended (cancelCall).
func (w *engine) endHeldPrompts() {
	if w.queued {
		w.rt.EndHeldPrompts()
	}
}

// replyOnNextPrompt scripts the next turn: the model's reply text is withheld until the SDK
// sends another prompt (or the backstop passes), so that turn certainly ends after the next
// prompt went out, however slow the machine: an event, never a time.
func (w *engine) replyOnNextPrompt(text string) error {
	rt, err := w.ScriptedOnly("the scenario has the model take its time over a turn; the real runtime's scripted model answers at once")
	if err != nil {
		return err
	}
	w.withheld, w.turnEnd, w.rt = []string{"session.send"}, true, rt
	rt.AddTurn(standin.Turn{Steps: []standin.ModelStep{{Pause: w.backstop(), UntilNextPrompt: true}, {Reply: text}}})
	return nil
}

// replyOnceReturned scripts the next turn: the model's reply text is held until the
// application's call returned (answeredWithOwnReply releases it), ms being only the backstop. An
// SDK that returns on another turn's session.idle thus returns before this turn's reply reached
// it, however late a loaded machine runs its code after that idle (Go's SendAndWait reads the
// last reply it saw only once its goroutine runs: with a reply 500 ms later, a 500 ms stall of
// the driver under load made it return the right reply by chance). An SDK that waits for its own
// turn gets the reply at the backstop, so the backstop delays only a correct SDK.
func (w *engine) replyOnceReturned(text string, ms int) error {
	rt, err := w.ScriptedOnly("the scenario has the model take its time over a turn; the real runtime's scripted model answers at once")
	if err != nil {
		return err
	}
	w.held, w.rt = true, rt
	rt.AddTurn(standin.Turn{Steps: []standin.ModelStep{{Pause: time.Duration(ms) * time.Millisecond, UntilReleased: true}, {Reply: text}}})
	return nil
}

// answeredWithOwnReply sends a prompt and waits for its reply, which must be its own turn's
// (judgeOwnReply).
func (w *engine) answeredWithOwnReply(want string) error {
	reached := promptReached(w.Entries(), "cancelled")
	w.endHeldPrompts()
	err := w.SendAndWait("next")
	if w.held {
		w.rt.ReleaseHeld()
	}
	if err != nil {
		return err
	}
	err = judgeOwnReply(w.Reply, want, w.T.SDK())
	if err != nil && !reached {
		// The turn scripted for the cancelled prompt went to the next one: no turn of the
		// cancelled call ran (every attempt of cancelCall was cancelled before the SDK sent its
		// prompt), so the reply says nothing about the SDK.
		return fmt.Errorf("the cancelled prompt never reached the runtime (the application cancelled the call before the SDK sent it), so the model's turn scripted for it answered the next prompt: the scenario did not test what it says, after %d attempts with a doubled delay (rerun it on a less loaded machine); %w", queuedAttempts, err)
	}
	return err
}

// promptReached says whether the runtime read a session.send whose prompt is text, or text made
// again (cancelCall).
func promptReached(entries []transcript.Entry, text string) bool {
	for _, e := range entries {
		var m struct {
			Method string `json:"method"`
			Params struct {
				Prompt string `json:"prompt"`
			} `json:"params"`
		}
		if e.Dir == transcript.SDKToRuntime && json.Unmarshal(e.Frame, &m) == nil && m.Method == "session.send" && strings.HasPrefix(m.Params.Prompt, text) {
			return true
		}
	}
	return false
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
