package scenario

import (
	"encoding/json"
	"maps"
	"slices"

	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
)

// Case keys of the generated and swept cases (transcript.KindCase): each request a case made the
// SDK send is noted with the case's key, so that `diff` and `compare` pair it with the same
// case's request in another run or SDK wherever the case came in the sweep (a version that
// declares one more method, field or event type adds a case in the middle; a sweep that sends
// several at once gets their answers in any order). A key names the method, event type or
// handler and the shape, edge or encoding the case tries, in the schema's or the surface's
// words, never a position, so it is the same across SDKs and versions when the case is.

// caseMark is one case of a runtime-to-SDK sweep. A case the runtime sends without a driver
// command (an event, a call of a handler) is known by what it sent (sends: the strings of its
// event or params): a replay writes the recorded runtime frames when the driver command before
// them is answered, so their place beside the steps' marks is not the run's. A case that a
// driver command opens (a hold, a client) is known by its place: the seq from which the
// transcript's entries are its, up to the next such mark (key "": no case's).
type caseMark struct {
	since int
	key   string
	sends map[string]bool
}

// CaseStarts marks that what follows is the case key's, up to the next CaseStarts or casesEnd:
// only for a case that begins with a driver command.
func (s *Scenario) CaseStarts(key string) {
	s.caseMarks = append(s.caseMarks, caseMark{since: s.Rec.Len() + 1, key: key})
}

// CaseSends notes that the runtime sends payload (an event, a call's params) in the case key:
// a request of the SDK's that names an id the payload holds (its answer) is the case's.
func (s *Scenario) CaseSends(key string, payload any) {
	sends := map[string]bool{}
	transcript.EachString(AsJSONValue(payload), func(s string) { sends[s] = true })
	s.caseMarks = append(s.caseMarks, caseMark{key: key, sends: sends})
}

// CasesEnd ends the cases marked by place: what follows is no case's. The requests are noted
// when the scenario ends (noteCases): an SDK may answer an event or a call after the sweep,
// even while its client is stopped.
func (s *Scenario) CasesEnd() { s.CaseStarts("") }

// noteCases notes the swept cases' requests, once the SDK's clients are stopped. A request not
// noted yet that names an id (a top-level param named like requestId or toolCallId, not the
// sessionId every request names) is the first case that sent that id; else the case whose place
// holds the runtime frame that first carried the id; else the case whose place holds the request.
// A request of no case is left so, and paired by value.
func (s *Scenario) noteCases() {
	marks := s.caseMarks
	s.caseMarks = nil
	var placed []caseMark
	for _, m := range marks {
		if m.sends == nil {
			placed = append(placed, m)
		}
	}
	if len(marks) == 0 {
		return
	}
	entries := s.Entries()
	placeOf := func(seq int) string {
		key := ""
		for _, m := range placed {
			if m.since > seq {
				break
			}
			key = m.key
		}
		return key
	}
	sentBy := func(id string) (string, bool) {
		for _, m := range marks {
			if m.sends[id] {
				return m.key, true
			}
		}
		return "", false
	}
	var reqs []transcript.Request
	var named []map[string]string
	wanted := map[string]bool{}
	for _, r := range transcript.Requests(entries, "") {
		if r.Case != "" {
			continue
		}
		var params map[string]any
		_ = json.Unmarshal(r.Params, &params)
		ids := transcript.IDParams(params)
		delete(ids, "sessionId") // named by every request of the session, whichever case
		for _, id := range ids {
			wanted[id] = true
		}
		reqs, named = append(reqs, r), append(named, ids)
	}
	first := transcript.FirstSent(entries, func(s string) bool { return wanted[s] })
	keys := make([]string, len(reqs))
	for i, r := range reqs {
		key, found, at := "", false, -1
		for _, id := range slices.Sorted(maps.Values(named[i])) {
			if key, found = sentBy(id); found {
				break
			}
			if fi, ok := first[id]; ok && entries[fi].Seq > at {
				at = entries[fi].Seq // the latest id the runtime gave: the most specific
			}
		}
		switch {
		case found:
		case at >= 0:
			key = placeOf(at)
		default:
			key = placeOf(r.Seq)
		}
		keys[i] = key
	}
	s.NoteRequestCases(reqs, keys)
}

// NoteRequestCases notes reqs[i] as the case keys[i]: a note on its connection from its seq and
// one ending the case after it, so what the SDK sent between cases belongs to none.
func (s *Scenario) NoteRequestCases(reqs []transcript.Request, keys []string) {
	order := make([]int, len(reqs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return reqs[a].Seq - reqs[b].Seq })
	for _, i := range order {
		if keys[i] == "" {
			continue
		}
		s.Rec.Case(reqs[i].Conn, reqs[i].Seq, keys[i])
		s.Rec.Case(reqs[i].Conn, reqs[i].Seq+1, "")
	}
}

// AsJSONValue is v as encoding/json reads it back (maps, slices, float64s, strings).
func AsJSONValue(v any) any {
	b, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}

// AsJSON is v as encoding/json decodes it (numbers float64), so that it compares with what the
// transcript holds.
func AsJSON(v map[string]any) map[string]any {
	if v == nil {
		return nil
	}
	b, _ := json.Marshal(v)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return out
}

// RequestID is the JSON-RPC id of the transcript entry seq, as written ("" when it has none).
func RequestID(entries []transcript.Entry, seq int) string {
	for _, e := range entries {
		if e.Seq == seq {
			var m struct {
				ID json.RawMessage `json:"id"`
			}
			_ = json.Unmarshal(e.Frame, &m)
			return string(m.ID)
		}
	}
	return ""
}
