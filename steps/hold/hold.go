// Package hold is what the pending and resolved sweeps share about holding the application's
// handler of a runtime request (drivers/PROTOCOL.md "Holding a handler": it answers only once
// released): the kinds of request, the gate a kind is held by, the wait until its handler is
// reached, and the heads of the transcript's frames both sweeps judge by. No sweep itself.
package hold

import (
	"encoding/json"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/schemagen"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/copilot-sdk-conformance/conformance/steps/scenario"
)

// EnterWait bounds the wait for a held handler to be reached (and, in the resolved sweep, for
// what the application reports after the runtime's move).
const EnterWait = 5 * time.Second

// Kind is one kind of request: a runtime-to-SDK method with the params of one of its generated
// cases, or a call of one of the session's tools.
type Kind struct {
	Method *schemagen.Method // nil for a tool call
	Params map[string]any
	Tool   string
}

func (k Kind) String() string {
	if k.Method == nil {
		return "tool call " + k.Tool
	}
	return k.Method.Name
}

// Args names the gate of a kind (the hold and release commands): every handle the handler may
// report under.
func Args(s scenario.Session, k Kind) map[string]any {
	a := map[string]any{"session": s.Handle}
	if k.Method == nil {
		a["tool"] = k.Tool
		return a
	}
	a["method"] = k.Method.Name
	if s.Client != "" {
		a["client"] = s.Client
	}
	return a
}

// Reached waits (EnterWait at most) until the held kind's handler reported its call
// (rpc.handled, tool.invoked) after the transcript entry since.
func Reached(s *scenario.Scenario, k Kind, since int) bool {
	deadline := time.Now().Add(EnterWait)
	for time.Now().Before(deadline) {
		for _, e := range s.Entries() {
			if e.Seq <= since || e.Dir != transcript.DriverToHarness {
				continue
			}
			var ev struct {
				Event string         `json:"event"`
				Args  map[string]any `json:"args"`
			}
			if json.Unmarshal(e.Frame, &ev) != nil {
				continue
			}
			if k.Method != nil && ev.Event == "rpc.handled" && ev.Args["method"] == k.Method.Name ||
				k.Method == nil && ev.Event == "tool.invoked" && ev.Args["tool"] == k.Tool {
				return true
			}
		}
		if s.Gone() != nil {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

// FrameHead is what the sweeps read of one transcript frame, decoded once for every judgement.
type FrameHead struct {
	Seq       int
	Dir       string
	ID        string
	Method    string
	Event     string // a session.event's type
	RequestID string // an external_tool.requested's or a handlePendingToolCall's requestId
}

// FrameHeads are the heads of the frames between the SDK and the runtime, in order.
func FrameHeads(entries []transcript.Entry) []FrameHead {
	var out []FrameHead
	for _, e := range entries {
		if len(e.Frame) == 0 || e.Dir != transcript.RuntimeToSDK && e.Dir != transcript.SDKToRuntime {
			continue
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				RequestID string `json:"requestId"`
				Event     struct {
					Type string `json:"type"`
					Data struct {
						RequestID string `json:"requestId"`
					} `json:"data"`
				} `json:"event"`
			} `json:"params"`
		}
		if json.Unmarshal(e.Frame, &m) != nil {
			continue
		}
		h := FrameHead{Seq: e.Seq, Dir: e.Dir, ID: string(m.ID), Method: m.Method, RequestID: m.Params.RequestID}
		if m.Method == "session.event" {
			h.Event, h.RequestID = m.Params.Event.Type, m.Params.Event.Data.RequestID
		}
		out = append(out, h)
	}
	return out
}
