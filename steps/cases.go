package steps

import (
	"encoding/json"
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

// caseMark is where a case of a runtime-to-SDK sweep began: the seq of the first transcript
// entry it may have made.
type caseMark struct {
	since int
	key   string
}

// caseStarts marks that the runtime's frames from here on are the case key's ("": no case's),
// until the next mark; noteCases later gives each request the SDK sent its case.
func (w *world) caseStarts(key string) {
	w.caseMarks = append(w.caseMarks, caseMark{since: w.rec.Len() + 1, key: key})
}

// noteCases ends the marked cases: each SDK request since the first mark gets the case of the
// runtime frame that first carried an id it names (a top-level param named like requestId or
// toolCallId: the answer to that request, event or call, whenever the SDK sent it), else, with
// spans (a sweep that waits for each case before the next), the case marked last before it.
// A request of no case is noted as none, so it is paired by value.
func (w *world) noteCases(spans bool) {
	marks := w.caseMarks
	w.caseMarks = nil
	if len(marks) == 0 {
		return
	}
	entries := w.entries()
	caseAt := func(seq int) string {
		key := ""
		for _, m := range marks {
			if m.since > seq {
				break
			}
			key = m.key
		}
		return key
	}
	var reqs []transcript.Request
	var named []map[string]string
	wanted := map[string]bool{}
	for _, r := range transcript.Requests(entries, "") {
		if r.Seq < marks[0].since {
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
		key, at := "", -1
		for _, id := range named[i] {
			fi, ok := first[id]
			if seq := entries[fi].Seq; ok && seq >= marks[0].since && seq > at {
				key, at = caseAt(seq), seq // the latest id the runtime gave: the most specific
			}
		}
		if at < 0 && spans {
			key = caseAt(r.Seq)
		}
		keys[i] = key
	}
	w.noteRequestCases(reqs, keys)
}

// noteRequestCases notes reqs[i] as the case keys[i]: a note on its connection from its seq and
// one ending the case after it, so what the SDK sent between cases belongs to none.
func (w *world) noteRequestCases(reqs []transcript.Request, keys []string) {
	order := make([]int, len(reqs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return reqs[a].Seq - reqs[b].Seq })
	for _, i := range order {
		if keys[i] == "" {
			continue
		}
		w.rec.Case(reqs[i].Conn, reqs[i].Seq, keys[i])
		w.rec.Case(reqs[i].Conn, reqs[i].Seq+1, "")
	}
}
