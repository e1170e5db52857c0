package standin

import (
	"encoding/json"
	"fmt"

	"github.com/copilot-sdk-conformance/conformance/internal/wire"
)

// Recording is a replayed scenario's recording (conformance replay, Options.Recording). No SDK
// connects to a replay's runtime, so what the steps have it send (Emit, EmitTogether, Ask,
// CallTool) is not sent: the recorded frame is played, with what the SDK and its driver did
// after it, and the runtime's own state (the sessions open, the requests awaited, a tool call's
// requestId, the SDK's answer) is what the recording shows.
type Recording interface {
	// Play finds the first frame the recorded runtime sent for the steps (Entry.ByStep) that
	// match accepts and that no step has played yet, writes it into the transcript with what
	// the recording holds after it up to the steps' next move, and returns it with every frame
	// the SDK sent after it. ok is false when the recording holds none.
	Play(match func(frame json.RawMessage) bool) (sent json.RawMessage, later []json.RawMessage, ok bool)
}

// frameFacts is what a replay matches a recorded frame by.
type frameFacts struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params FrameParams     `json:"params"`
}

// FrameParams is what a replay and the real runtime's proxy read of a frame's params: the
// session, a request's id, and a session.event's type, requestId and toolName. One definition
// for both, so a field the wire renames is renamed once.
type FrameParams struct {
	SessionID string `json:"sessionId"`
	RequestID string `json:"requestId"`
	Event     struct {
		Type string `json:"type"`
		Data struct {
			RequestID string `json:"requestId"`
			ToolName  string `json:"toolName"`
		} `json:"data"`
	} `json:"event"`
}

func factsOf(frame json.RawMessage) (f frameFacts) {
	_ = json.Unmarshal(frame, &f)
	return f
}

func notRecorded(what string) error {
	return fmt.Errorf("the recording holds no further %s that the steps had the runtime send (the steps differ from the recorded run's, or a run of an older harness recorded it: rerun the scenario)", what)
}

// playEvent is Emit in a replay: the recorded session.event of the same type and requestId on
// the session.
func playEvent(r Recording, sessionID string, event any) error {
	raw, err := json.Marshal(event)
	if err != nil {
		return err
	}
	var ev struct {
		Type string `json:"type"`
		Data struct {
			RequestID string `json:"requestId"`
		} `json:"data"`
	}
	_ = json.Unmarshal(raw, &ev)
	_, _, ok := r.Play(func(frame json.RawMessage) bool {
		f := factsOf(frame)
		return f.Method == "session.event" && f.Params.SessionID == sessionID && f.Params.Event.Type == ev.Type &&
			f.Params.Event.Data.RequestID == ev.Data.RequestID
	})
	if !ok {
		return notRecorded(fmt.Sprintf("session event %s on session %s", ev.Type, sessionID))
	}
	return nil
}

// playAsk is Ask in a replay: the recorded call of method and the SDK's recorded answer to it.
func playAsk(r Recording, method string, notification bool) (wire.Message, error) {
	sent, later, ok := r.Play(func(frame json.RawMessage) bool {
		f := factsOf(frame)
		return f.Method == method && (len(f.ID) == 0) == notification
	})
	if !ok {
		return wire.Message{}, notRecorded("call of " + method)
	}
	if notification {
		return wire.Message{}, nil
	}
	id := string(factsOf(sent).ID)
	for _, frame := range later {
		if f := factsOf(frame); f.Method == "" && string(f.ID) == id {
			var m wire.Message
			if err := json.Unmarshal(frame, &m); err != nil {
				return wire.Message{}, err
			}
			return m, nil
		}
	}
	return wire.Message{}, fmt.Errorf("%w %s within %s", ErrUnanswered, method, callWait)
}

// playToolCall is CallTool in a replay: the recorded external_tool.requested of the tool on the
// session, its requestId, and whether the SDK's handlePendingToolCall named it.
func playToolCall(r Recording, sessionID, tool string) (string, error) {
	sent, later, ok := r.Play(func(frame json.RawMessage) bool {
		f := factsOf(frame)
		return f.Method == "session.event" && f.Params.SessionID == sessionID &&
			f.Params.Event.Type == "external_tool.requested" && f.Params.Event.Data.ToolName == tool
	})
	if !ok {
		return "", notRecorded("call of the tool " + tool)
	}
	reqID := factsOf(sent).Params.Event.Data.RequestID
	for _, frame := range later {
		if f := factsOf(frame); f.Method == "session.tools.handlePendingToolCall" && f.Params.RequestID == reqID {
			return reqID, nil
		}
	}
	return reqID, fmt.Errorf("%w tool %s %s within %s", ErrUnanswered, tool, reqID, callWait)
}
