package standin

import (
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/wire"
)

// ModelStep is one model round of a scripted turn: call a tool, or reply with text.
type ModelStep struct {
	Tool      string          // call this tool …
	Arguments map[string]any  // … with these arguments
	Reply     string          // or answer with this text, which ends the turn
	ReplyJSON json.RawMessage // or with this JSON string literal, written as is (framing.go)
	// Permission, when set, makes this step a permission request (permissions.go) instead.
	Permission json.RawMessage
	// PermissionsTogether, when set, makes this step several permission requests made at once:
	// every permission.requested goes out before any answer is awaited.
	PermissionsTogether []json.RawMessage
	// Elicitation, when set, makes this step an elicitation request (permissions.go) instead.
	Elicitation json.RawMessage
	// Ask, when set, makes this step a request to the SDK (calls.go) with these params.
	Ask       string
	AskParams json.RawMessage
	// AskTogether, with Ask, makes this step several such requests made at once: every one
	// goes out before any answer is awaited, so the SDK has them all pending together.
	AskTogether []json.RawMessage
	// Together, when set, makes this step these tool calls made at once, as a model asking for
	// several tools in one message does: every external_tool.requested goes out before any
	// answer is awaited, so an SDK that serves one call at a time cannot answer the second
	// while the first is pending.
	Together []string
	// TogetherArguments, when set, are the arguments of each Together call, in order: the real
	// runtime's scripted model asks for calls with arguments (the runtime's ask_user tool); the
	// stand-in's calls take none.
	TogetherArguments []map[string]any
	// Pause, when set, makes this step the model thinking that long before the next one: the
	// turn goes on, and ends, only after it (an application that gives up waiting for the
	// reply meanwhile sees the turn end late).
	Pause time.Duration
	// UntilNextPrompt, with Pause, makes the model think until the SDK sends the next
	// session.send (an application that gave up waiting sends again), Pause being only the
	// backstop: the turn then ends late while the next one is under way, whatever the load.
	UntilNextPrompt bool
	// UntilReleased, with Pause, makes the model think until the scenario calls ReleaseHeld
	// (the application's call returned), Pause being only the backstop: an SDK that returns
	// before this turn ended certainly returns before its reply, however late its own goroutines
	// run; one that waits for the turn gets it at the backstop.
	UntilReleased bool
}

// Turn is what the scripted model does in answer to one session.send. The runtime's rules
// decide when the turn ends: a reply ends it; a successful call to a tool the session registered
// with isTerminal ends it with no further model round; a failed call, or a call to a
// non-terminal tool, lets the loop go on with the next step. A turn whose steps run out replies
// DefaultReply.
type Turn struct{ Steps []ModelStep }

// DefaultReply is the model's answer when nothing else is scripted.
const DefaultReply = "ok"

// Script is what the runtime does in a scenario.
type Script struct {
	Turns          []Turn   // consumed one per session.send
	RejectToolsSet []string // the next session.tools.set calls are rejected with these messages
	// ToolsSetDelay delays each session.tools.set answer while the connection keeps reading, so
	// that an SDK sending replacements without waiting for the previous answer shows on the wire.
	ToolsSetDelay time.Duration
	// OpenDelay delays each session.create and session.resume, the opening and its answer,
	// while the connection keeps reading: the session does not exist until then (a request
	// naming it is answered "Session not found"), so an SDK that sends one before the answer
	// arrives shows on the wire, as it would against a runtime slow to load a session.
	OpenDelay time.Duration
	// AnswerDelays delays each answer to a method (a session.send, a generated method) while
	// the connection keeps reading: the SDK's call waits that long, and an application that
	// gave up on it meanwhile gets the answer late.
	AnswerDelays map[string]time.Duration
	// QueueTurns makes a session play one turn at a time, as the real runtime does: a
	// session.send that arrives while a turn runs is answered at once and its turn (its
	// user.message first) begins after the running one's session.idle. The runtime's schema says
	// so of session.send's mode: "`enqueue` (default) appends to the message queue. `immediate`
	// interjects during an in-progress turn." Without it the stand-in plays the turns side by side.
	QueueTurns      bool
	Framing         Framing // how frames are written (framing.go)
	LegacyHandshake bool    // connect is unknown, as before protocol 3 (framing.go)
	// GeneratedAnswers answers every public schema method with its generated result
	// (Options.Answers), scripted answers included: the schema sweep checks that the application
	// receives exactly what the runtime sent, and a scripted answer (session.send starting a
	// turn) is not what the sweep is about.
	GeneratedAnswers bool
	queued           map[string][]json.RawMessage // QueueAnswers
	turnsTaken       int
	// heldPrompts: the prompts read are a cancelled call's (Server.HoldPrompts), each taking the
	// next turn without consuming it; heldTaken: one took it, and EndHeldPrompts consumes it.
	heldPrompts, heldTaken bool
	rejectionsTaken        int
}

func (sc *Script) nextTurn() Turn {
	if sc.turnsTaken >= len(sc.Turns) {
		return Turn{}
	}
	if sc.heldPrompts {
		sc.heldTaken = true
		return sc.Turns[sc.turnsTaken]
	}
	sc.turnsTaken++
	return sc.Turns[sc.turnsTaken-1]
}

func (sc *Script) takeToolsSetRejection() (string, bool) {
	if sc.rejectionsTaken < len(sc.RejectToolsSet) {
		sc.rejectionsTaken++
		return sc.RejectToolsSet[sc.rejectionsTaken-1], true
	}
	return "", false
}

// SetQueueTurns switches Script.QueueTurns.
func (s *Server) SetQueueTurns(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script.QueueTurns = on
}

// AddTurn appends a turn to the script.
func (s *Server) AddTurn(t Turn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script.Turns = append(s.script.Turns, t)
}

// RejectNextToolsSet makes the next session.tools.set fail with msg.
func (s *Server) RejectNextToolsSet(msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script.RejectToolsSet = append(s.script.RejectToolsSet, msg)
}

// SetToolsSetDelay sets Script.ToolsSetDelay.
func (s *Server) SetToolsSetDelay(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script.ToolsSetDelay = d
}

// SetOpenDelay sets Script.OpenDelay.
func (s *Server) SetOpenDelay(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script.OpenDelay = d
}

// SetAnswerDelay sets method's Script.AnswerDelays entry.
func (s *Server) SetAnswerDelay(method string, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.script.AnswerDelays == nil {
		s.script.AnswerDelays = map[string]time.Duration{}
	}
	s.script.AnswerDelays[method] = d
}

func (s *Server) answerDelay(method string) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.script.AnswerDelays[method]
}

func (s *Server) openDelay() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.script.OpenDelay
}

func (s *Server) toolsSetDelay() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.script.ToolsSetDelay
}

// playTurn emits the events of one turn, following the agent loop's rules.
// prompts is how many session.send requests had been read when this one was.
func (s *Server) playTurn(ss *session, prompt, messageID string, turn Turn, prompts int) {
	defer func() {
		s.mu.Lock()
		ss.busy = false
		s.mu.Unlock()
	}()
	s.mu.Lock()
	c := ss.conn
	ss.messages++
	s.mu.Unlock()
	// Python's send-and-wait starts counting the turn at the user.message carrying the id
	// that session.send returned.
	s.emit(c, ss, "user.message", map[string]any{"content": prompt, "messageId": messageID})
	steps := append(append([]ModelStep(nil), turn.Steps...), ModelStep{Reply: DefaultReply})
	for round, st := range steps {
		if st.Pause > 0 && st.UntilNextPrompt {
			if !s.awaitPromptAfter(prompts, st.Pause) {
				s.rec.Notef(c.name, "the model's withheld reply released after %s: the SDK sent no other prompt", st.Pause)
			}
			continue
		}
		if st.Pause > 0 && st.UntilReleased {
			if !s.awaitRelease(st.Pause) {
				s.rec.Notef(c.name, "the model's held reply released after %s, before the application's call returned", st.Pause)
			}
			continue
		}
		if st.Pause > 0 {
			time.Sleep(st.Pause)
			continue
		}
		if len(st.PermissionsTogether) > 0 {
			s.askPermissionsTogether(c, ss, round, st.PermissionsTogether)
			continue
		}
		if len(st.Permission) > 0 {
			s.askPermission(c, ss, round, st.Permission)
			continue
		}
		if len(st.Elicitation) > 0 {
			s.askElicitation(c, ss, round, st.Elicitation)
			continue
		}
		if st.Ask != "" && len(st.AskTogether) > 0 {
			s.askTogether(c, ss, st.Ask, st.AskTogether)
			continue
		}
		if st.Ask != "" {
			s.askSDK(c, ss, st.Ask, st.AskParams)
			continue
		}
		turnID := fmt.Sprint(round)
		s.emit(c, ss, "assistant.turn_start", map[string]any{"turnId": turnID})
		if len(st.Together) > 0 {
			s.callTogether(c, ss, round, st.Together)
			s.emit(c, ss, "assistant.turn_end", map[string]any{"turnId": turnID})
			continue
		}
		if st.Tool == "" {
			s.mu.Lock()
			ss.messages++
			s.mu.Unlock()
			s.emit(c, ss, "assistant.message", map[string]any{"messageId": fmt.Sprintf("a%d", round), "content": rawReply(st)})
			s.emit(c, ss, "assistant.turn_end", map[string]any{"turnId": turnID})
			break
		}
		out, terminal := s.callTool(c, ss, round, st)
		s.emit(c, ss, "assistant.turn_end", map[string]any{"turnId": turnID})
		if out.ok && terminal {
			break
		}
	}
	s.emit(c, ss, "session.idle", map[string]any{})
}

// callTool asks the SDK to run a tool and waits for its outcome.
func (s *Server) callTool(c *conn, ss *session, round int, st ModelStep) (toolOutcome, bool) {
	args := st.Arguments
	if args == nil {
		args = map[string]any{}
	}
	reqID, callID := fmt.Sprintf("r%d", round), fmt.Sprintf("call_%d", round)
	s.emit(c, ss, "assistant.message", map[string]any{"messageId": fmt.Sprintf("a%d", round), "content": "",
		"toolRequests": []any{map[string]any{"toolCallId": callID, "name": st.Tool, "arguments": args}}})
	ch, terminal := s.requestTool(c, ss, reqID, callID, st.Tool, args, false)
	return s.awaitTool(c, ss, reqID, st.Tool, ch), terminal
}

// callTogether asks for several tools in one assistant message, sends every request, then
// awaits every outcome (ModelStep.Together).
func (s *Server) callTogether(c *conn, ss *session, round int, tools []string) {
	var requests []any
	for i, t := range tools {
		requests = append(requests, map[string]any{"toolCallId": fmt.Sprintf("call_%d_%d", round, i), "name": t, "arguments": map[string]any{}})
	}
	s.emit(c, ss, "assistant.message", map[string]any{"messageId": fmt.Sprintf("a%d", round), "content": "", "toolRequests": requests})
	chans := make([]chan toolOutcome, len(tools))
	for i, t := range tools {
		chans[i], _ = s.requestTool(c, ss, fmt.Sprintf("r%d_%d", round, i), fmt.Sprintf("call_%d_%d", round, i), t, map[string]any{}, false)
	}
	var wg sync.WaitGroup
	for i, t := range tools {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.awaitTool(c, ss, fmt.Sprintf("r%d_%d", round, i), t, chans[i])
		}()
	}
	wg.Wait()
}

// requestTool registers a pending call and sends external_tool.requested (byStep: for the
// scenario's steps, CallTool).
func (s *Server) requestTool(c *conn, ss *session, reqID, callID, tool string, args map[string]any, byStep bool) (chan toolOutcome, bool) {
	ch := make(chan toolOutcome, 1)
	s.mu.Lock()
	ss.pending[reqID] = ch
	ss.messages++ // the assistant's tool request
	terminal := ss.tools[tool].IsTerminal
	s.mu.Unlock()
	c.write([]wire.Message{eventMessage(ss, "external_tool.requested", map[string]any{"requestId": reqID, "sessionId": ss.id,
		"toolCallId": callID, "toolName": tool, "arguments": args})}, byStep)
	return ch, terminal
}

// awaitTool waits for a pending call's outcome and sends external_tool.completed.
func (s *Server) awaitTool(c *conn, ss *session, reqID, tool string, ch chan toolOutcome) toolOutcome {
	var out toolOutcome
	select {
	case out = <-ch:
	case <-c.gone:
		s.mu.Lock()
		delete(ss.pending, reqID)
		s.mu.Unlock()
		out = toolOutcome{message: "the connection closed before the SDK handled the tool call"}
		s.rec.Notef(c.name, "tool call %s (%s): the connection closed before the SDK answered", reqID, tool)
	case <-time.After(s.opts.ToolTimeout):
		s.mu.Lock()
		delete(ss.pending, reqID)
		s.mu.Unlock()
		out = toolOutcome{message: fmt.Sprintf("no handlePendingToolCall within %s", s.opts.ToolTimeout)}
		s.rec.Notef(c.name, "tool call %s (%s) timed out", reqID, tool)
	}
	s.mu.Lock()
	ss.messages++ // the tool result
	s.mu.Unlock()
	s.emit(c, ss, "external_tool.completed", map[string]any{"requestId": reqID})
	return out
}
