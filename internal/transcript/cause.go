package transcript

import (
	"encoding/json"
	"fmt"

	"github.com/copilot-sdk-conformance/conformance/internal/wire"
)

// Blame is an earlier request a failed call most likely failed because of, with its place in
// the transcript.
type Blame struct {
	Seq    int // the request's entry: its line in the transcript file
	Conn   string
	Dir    string
	Method string
	ID     string
	Why    string // what was wrong with it, in words
}

func (b Blame) String() string {
	return fmt.Sprintf("%s request %s (id %s, conn %s, transcript line %d) %s", b.Dir, b.Method, b.ID, b.Conn, b.Seq, b.Why)
}

// Cause finds, in the entries recorded up to a call's failure, the earlier request the call most
// likely failed because of. since is the seq of the first entry the failed call recorded: a
// request sent from then on is the call's own, not an earlier one. In order, the first found:
//
//  1. a request that named a session before the request that opened it was answered (the
//     runtime did not know the session yet), at any point up to the failure;
//  2. a runtime-to-SDK request sent before the call that the SDK had not answered when the call
//     failed (the runtime was still waiting on it);
//  3. an SDK-to-runtime request sent before the call that the runtime had not answered (a pending
//     request the call queued behind).
//
// Everything is read from the frames (ids, answers, the params' and results' sessionId), not
// from a list of methods: a session's opening is the first SDK request on the connection whose
// params or answer name it. ok is false when nothing earlier explains the failure.
func Cause(entries []Entry, since int) (b Blame, ok bool) {
	type req struct {
		Blame
		session  string // the params' sessionId
		answered int    // seq of its answer; 0 while unanswered
	}
	var reqs []*req
	open := map[string]*req{} // conn + id + dir of the request -> the request
	key := func(conn, dir string, id json.RawMessage) string { return conn + "\x00" + dir + "\x00" + string(id) }
	for _, e := range entries {
		if (e.Dir != SDKToRuntime && e.Dir != RuntimeToSDK) || len(e.Frame) == 0 {
			continue
		}
		var m wire.Message
		if json.Unmarshal(e.Frame, &m) != nil {
			continue
		}
		var s struct {
			SessionID string `json:"sessionId"`
		}
		switch {
		case m.IsRequest():
			_ = json.Unmarshal(m.Params, &s)
			r := &req{Blame: Blame{Seq: e.Seq, Conn: e.Conn, Dir: e.Dir, Method: m.Method, ID: string(m.ID)}, session: s.SessionID}
			reqs = append(reqs, r)
			open[key(e.Conn, e.Dir, m.ID)] = r
		case m.IsResponse():
			asked := RuntimeToSDK
			if e.Dir == RuntimeToSDK {
				asked = SDKToRuntime
			}
			r := open[key(e.Conn, asked, m.ID)]
			if r == nil || r.answered != 0 {
				continue
			}
			r.answered = e.Seq
			if r.session == "" && r.Dir == SDKToRuntime && m.Result != nil {
				_ = json.Unmarshal(m.Result, &s)
				r.session = s.SessionID
			}
		}
	}
	// 1. A session named before its opening was answered. The opening is the first SDK request on
	// the connection naming the session in its params or its answer.
	opening := map[string]*req{}
	for _, r := range reqs {
		if r.Dir != SDKToRuntime || r.session == "" {
			continue
		}
		k := r.Conn + "\x00" + r.session
		o := opening[k]
		if o == nil {
			opening[k] = r
			continue
		}
		if o.answered == 0 || o.answered > r.Seq {
			r.Why = fmt.Sprintf("named session %s before its opening %s (id %s, transcript line %d) was answered", r.session, o.Method, o.ID, o.Seq)
			if o.answered != 0 {
				r.Why += fmt.Sprintf(" (line %d)", o.answered)
			}
			return r.Blame, true
		}
	}
	// 2 and 3. The earliest request from before the call still unanswered, the runtime's first.
	for _, dir := range []string{RuntimeToSDK, SDKToRuntime} {
		for _, r := range reqs {
			if r.Dir != dir || r.Seq >= since || r.answered != 0 {
				continue
			}
			if dir == RuntimeToSDK {
				r.Why = "was still waiting for the SDK's answer when the call failed"
			} else {
				r.Why = "was still waiting for the runtime's answer when the call failed"
			}
			return r.Blame, true
		}
	}
	return Blame{}, false
}
