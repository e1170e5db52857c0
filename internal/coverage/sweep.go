package coverage

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
)

// sdkAccount is what one SDK's transcripts say about the schema.
type sdkAccount struct {
	sent, answered, events map[string]bool
	notGenerated           map[string]string // method -> the driver's unsupported reason
	gated                  string            // why the generated sweep was unsupported, if it was
	swept                  bool              // a generated batch ran
	eventsSent             map[string]bool   // event types the runtime sent
	handled                map[string]bool   // runtime-to-SDK methods an application handler reported receiving
	unhandled              map[string]string // runtime-to-SDK method -> why the SDK has no public handler for it
	capGated               map[string]string // capability -> why a scenario needing it was unsupported
	handlersGated          string            // why the handler sweep was unsupported, if it was
	// answers: runtime-to-SDK method -> how the SDK answered the first call of it ("error CODE
	// MESSAGE" or "a result"), read for the methods no application handler received.
	answers map[string]string
}

// sweep accounts for every item of the catalog, per SDK: covered (sent, answered, received), or
// the reason it is not, read from the transcripts (the driver's unsupported answers inside
// rpcBatch, a scenario gated on rpc.generated) and from the catalog (visibility internal).
func sweep(catalog []report.SchemaItem, order []string, acct map[string]*sdkAccount) []report.SweepCoverage {
	if len(catalog) == 0 {
		return nil
	}
	var out []report.SweepCoverage
	for _, sdk := range order {
		a := acct[sdk]
		s := report.SweepCoverage{SDK: sdk}
		for _, it := range catalog {
			covered, reason := false, ""
			switch it.Kind {
			case "event":
				s.EventTypes++
				covered = a.events[it.Name]
				switch {
				case covered:
				case a.eventsSent[it.Name]:
					reason = "sent by the runtime; the application's event callback never received it"
				case a.gated != "":
					reason = a.gated
				default:
					reason = "no scenario of this run sent it (features/schema/generated_events.feature not run)"
				}
			case "handler":
				s.Methods++
				s.Handlers++
				covered = a.handled[it.Name]
				if covered {
					s.HandlersCovered++
				} else if a.answers[it.Name] != "" {
					s.HandlersCalled++
				}
				switch {
				case covered:
				case a.unhandled[it.Name] != "" && a.answers[it.Name] != "":
					reason = "unsupported: " + a.unhandled[it.Name] + "; " + CalledWithoutHandler + a.answers[it.Name]
				case a.unhandled[it.Name] != "":
					reason = "unsupported: " + a.unhandled[it.Name]
				case it.Capability != "" && a.capGated[it.Capability] != "":
					reason = a.capGated[it.Capability]
				case it.Capability == "" && a.handlersGated != "":
					reason = a.handlersGated
				case a.answered[it.Name]:
					reason = "runtime-to-SDK method: sent to the SDK and answered, but no application handler reported receiving it"
				default:
					reason = "runtime-to-SDK method: no scenario of this run sent it to a handler the application registered (features/schema/generated_handlers.feature not run)"
				}
			default:
				s.Methods++
				covered = a.sent[it.Name]
				switch {
				case covered:
				case it.Internal:
					reason = "visibility internal in api.schema.json: SDK plumbing, not called by applications, so the sweep leaves it out"
				case a.notGenerated[it.Name] != "":
					reason = "unsupported: " + a.notGenerated[it.Name]
				case a.gated != "":
					reason = a.gated
				case a.swept:
					reason = "the sweep called it; the SDK raised before sending it (see the scenario's failure)"
				default:
					reason = "no scenario of this run called it (features/schema/generated_rpc.feature not run)"
				}
			}
			if covered {
				if it.Kind == "event" {
					s.Events++
				} else {
					s.Covered++
				}
				continue
			}
			s.Uncovered = append(s.Uncovered, report.Uncovered{Name: it.Name, Kind: it.Kind, Reason: reason})
		}
		out = append(out, s)
	}
	return out
}

// CalledWithoutHandler starts the part of a runtime-to-SDK method's reason that says what the
// SDK answered the runtime's call of a method the application registered no handler for: it is
// exercised on the wire (and its answer compared across SDKs) but not covered, as no
// application handler received it.
const CalledWithoutHandler = "called without a handler, the SDK answered: "

func newAccount() *sdkAccount {
	return &sdkAccount{sent: map[string]bool{}, answered: map[string]bool{}, events: map[string]bool{},
		notGenerated: map[string]string{}, eventsSent: map[string]bool{}, handled: map[string]bool{}, unhandled: map[string]string{}, capGated: map[string]string{},
		answers: map[string]string{}}
}

// read adds one transcript to the account: the rpcBatch calls whose outcome was unsupported, the
// session events the runtime sent and the ones the driver reported the application received.
func (a *sdkAccount) read(entries []transcript.Entry) {
	batches := map[int][]string{} // command id -> methods called
	type ask struct{ method, sessionID string }
	asked := map[[2]string]ask{} // (connection, request id) -> runtime-to-SDK method
	for _, e := range entries {
		if len(e.Frame) == 0 {
			continue
		}
		switch e.Dir {
		case transcript.SDKToRuntime:
			var f struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Error  *struct {
					Code    any    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if json.Unmarshal(e.Frame, &f) != nil || f.Method != "" || len(f.ID) == 0 {
				continue
			}
			q := asked[[2]string{e.Conn, string(f.ID)}]
			m := q.method
			if m == "" || a.answers[m] != "" {
				continue
			}
			if f.Error != nil {
				msg := f.Error.Message
				if q.sessionID != "" { // the same reason on every run
					msg = strings.ReplaceAll(msg, q.sessionID, "<sessionId>")
				}
				a.answers[m] = fmt.Sprintf("error %v %s", f.Error.Code, msg)
			} else {
				a.answers[m] = "a result"
			}
		case transcript.HarnessToDriver:
			var c struct {
				ID   int    `json:"id"`
				Cmd  string `json:"cmd"`
				Args struct {
					Calls []struct {
						Method string `json:"method"`
					} `json:"calls"`
				} `json:"args"`
			}
			if json.Unmarshal(e.Frame, &c) == nil && c.Cmd == "rpcBatch" && len(c.Args.Calls) > 0 {
				a.swept = true
				for _, call := range c.Args.Calls {
					batches[c.ID] = append(batches[c.ID], call.Method)
				}
			}
		case transcript.DriverToHarness:
			var r struct {
				ID     int    `json:"id"`
				Event  string `json:"event"`
				Result struct {
					Outcomes []struct {
						Outcome string `json:"outcome"`
						Reason  string `json:"reason"`
					} `json:"outcomes"`
					Unhandled map[string]string `json:"unhandled"`
				} `json:"result"`
				Args struct {
					Type   string `json:"type"`
					Method string `json:"method"`
				} `json:"args"`
			}
			if json.Unmarshal(e.Frame, &r) != nil {
				continue
			}
			if r.Event == "session.event" && r.Args.Type != "" {
				a.events[r.Args.Type] = true
			}
			if r.Event == "rpc.handled" && r.Args.Method != "" {
				a.handled[r.Args.Method] = true
			}
			for m, why := range r.Result.Unhandled { // connect / createSession: no public handler API
				a.unhandled[m] = why
			}
			if methods, ok := batches[r.ID]; ok {
				for i, o := range r.Result.Outcomes {
					if i < len(methods) && o.Outcome == "unsupported" {
						a.notGenerated[methods[i]] = o.Reason
					}
				}
			}
		case transcript.RuntimeToSDK:
			var n struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params struct {
					SessionID string `json:"sessionId"`
					Event     struct {
						Type string `json:"type"`
					} `json:"event"`
				} `json:"params"`
			}
			if json.Unmarshal(e.Frame, &n) != nil {
				continue
			}
			if n.Method == "session.event" && n.Params.Event.Type != "" {
				a.eventsSent[n.Params.Event.Type] = true
			}
			if n.Method != "" && len(n.ID) > 0 {
				asked[[2]string{e.Conn, string(n.ID)}] = ask{n.Method, n.Params.SessionID}
			}
		}
	}
}

// gate records why a result that needed the generated layer was unsupported on this SDK.
func (a *sdkAccount) gate(r report.Result) {
	if r.Status == report.Unsupported && r.Capability == "rpc.generated" && a.gated == "" {
		a.gated = fmt.Sprintf("unsupported: %s", r.Message)
	}
	if r.Status == report.Unsupported && r.Capability == "rpc.handlers" && a.handlersGated == "" {
		a.handlersGated = fmt.Sprintf("unsupported: %s", r.Message)
	}
	if r.Status == report.Unsupported && r.Capability != "" && a.capGated[r.Capability] == "" {
		a.capGated[r.Capability] = fmt.Sprintf("unsupported: %s", r.Message)
	}
}

// SortCatalog orders a catalog by kind, then name.
func SortCatalog(c []report.SchemaItem) {
	sort.Slice(c, func(i, j int) bool {
		if c[i].Kind != c[j].Kind {
			return c[i].Kind < c[j].Kind
		}
		return c[i].Name < c[j].Name
	})
}
