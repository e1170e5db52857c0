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

// ToldWait bounds the resolved sweep's wait for a report an SDK may never make: that the
// handler was told the runtime resolved its request (what the sweep judges; the SDKs of the
// known divergences never tell). A fixed wait is right there: the judgement is that the report
// followed the resolving event within the step's bound (1000 ms), so a report later than this
// fails the same whether it was awaited or not.
const ToldWait = 5 * time.Second

// Backstop bounds a wait for a report known to come (a held handler reached, an event given to
// the application): scenario.Backstop.
func Backstop(s *scenario.Scenario) time.Duration { return s.Backstop() }

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

// Reached waits until the held kind's handler reported its call (rpc.handled, tool.invoked)
// after the transcript entry since, Backstop at most. answered (nil: none) is closed when the
// held request was answered or given up on: a request answered while its handler is held never
// reached it (an SDK that answers the kind without the application's handler), so the wait
// ends there rather than at the backstop.
func Reached(s *scenario.Scenario, k Kind, since int, answered <-chan struct{}) bool {
	deadline := time.Now().Add(Backstop(s))
	for time.Now().Before(deadline) {
		over := false
		select {
		case <-answered:
			over = true // one more look: the handler, held, cannot have answered it
		default:
		}
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
		if over || s.Gone() != nil {
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
