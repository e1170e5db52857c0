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
// entry it may have made; spans says that the sweep waited for each case before the next, so a
// request that names no id is the case it came in.
type caseMark struct {
	since int
	key   string
	spans bool
}

// caseStarts marks that the runtime's frames from here on are the case key's, until the next
// mark.
func (w *world) caseStarts(key string) {
	w.caseMarks = append(w.caseMarks, caseMark{since: w.rec.Len() + 1, key: key})
}

// casesEnd ends a sweep's cases (what follows is no case's) and says whether it waited for each
// case before the next (spans). The requests are noted when the scenario ends (noteCases): an
// SDK may answer an event or call after the sweep, even while its client is stopped.
func (w *world) casesEnd(spans bool) {
	for i := w.casesFrom; i < len(w.caseMarks); i++ {
		w.caseMarks[i].spans = spans
	}
	w.caseMarks = append(w.caseMarks, caseMark{since: w.rec.Len() + 1})
	w.casesFrom = len(w.caseMarks)
}

// noteCases notes the marked cases' requests, once the SDK's clients are stopped: each SDK
// request since the first mark, not noted yet, gets the case of the runtime frame that first
// carried an id it names (a top-level param named like requestId or toolCallId: the answer to
// that request, event or call, whenever the SDK sent it), else, in a sweep that waited for each
// case (spans), the case it came in. A request of no case is left so, and paired by value.
func (w *world) noteCases() {
	marks := w.caseMarks
	w.caseMarks, w.casesFrom = nil, 0
	if len(marks) == 0 {
		return
	}
	entries := w.entries()
	markAt := func(seq int) caseMark {
		var at caseMark
		for _, m := range marks {
			if m.since > seq {
				break
			}
			at = m
		}
		return at
	}
	var reqs []transcript.Request
	var named []map[string]string
	wanted := map[string]bool{}
	for _, r := range transcript.Requests(entries, "") {
		if r.Seq < marks[0].since || r.Case != "" {
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
				key, at = markAt(seq).key, seq // the latest id the runtime gave: the most specific
			}
		}
		if m := markAt(r.Seq); at < 0 && m.spans {
			key = m.key
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
