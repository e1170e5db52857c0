package transcript

import (
	"encoding/json"
	"sort"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/wire"
)

// Request is one SDK-to-runtime request found in a transcript.
type Request struct {
	Seq    int
	Conn   string
	Method string
	Params json.RawMessage
	ID     json.RawMessage
	// Case is the key of the generated or swept case the request belongs to (a KindCase note
	// names its connection), "" outside one.
	Case string
}

// Requests returns the requests the SDK sent, in order; an empty method means every method.
func Requests(entries []Entry, method string) []Request {
	var out []Request
	cases := caseNotes(entries)
	for _, e := range entries {
		if e.Dir != SDKToRuntime || len(e.Frame) == 0 {
			continue
		}
		var m wire.Message
		if json.Unmarshal(e.Frame, &m) != nil || !m.IsRequest() {
			continue
		}
		if method == "" || m.Method == method {
			out = append(out, Request{Seq: e.Seq, Conn: e.Conn, Method: m.Method, Params: m.Params, ID: m.ID, Case: cases.of(e.Conn, e.Seq)})
		}
	}
	return out
}

// caseSpans are each connection's case notes, by Since; "" holds the notes of no connection
// (a sequential sweep's: every connection from Since on).
type caseSpans map[string][]Entry

// caseNotes collects the case notes; a note may come after the requests it covers (a sweep
// learns which connection a case's client got once the case has run).
func caseNotes(entries []Entry) caseSpans {
	var out caseSpans
	for _, e := range entries {
		if e.Kind != KindCase {
			continue
		}
		if out == nil {
			out = caseSpans{}
		}
		out[e.Conn] = append(out[e.Conn], e)
	}
	for _, l := range out {
		sort.SliceStable(l, func(i, j int) bool { return l[i].Since < l[j].Since })
	}
	return out
}

// of is the case of conn's entry seq: a note on conn for the whole connection (Since 0) holds;
// else the latest note, on conn or on no connection, whose span starts at or before seq ("" when
// none does, or when that note ends the cases with an empty key).
func (c caseSpans) of(conn string, seq int) string {
	own := c[conn]
	if conn != "" && len(own) > 0 && own[0].Since == 0 {
		key := own[0].Case
		for _, e := range own[1:] {
			if e.Since == 0 {
				key = e.Case // several for the whole connection: the last
			}
		}
		return key
	}
	key, since := "", -1
	for _, l := range [][]Entry{c[""], own} {
		for _, e := range l {
			if e.Since > seq {
				break
			}
			if e.Since >= since {
				key, since = e.Case, e.Since
			}
		}
	}
	return key
}

// Answers indexes the results the runtime answered requests with, exactly as they went on the
// wire, by connection and request id (Of looks one up).
type Answers map[string]json.RawMessage

// AnswersOf indexes the runtime's answers in entries.
func AnswersOf(entries []Entry) Answers {
	out := Answers{}
	for _, e := range entries {
		if e.Dir != RuntimeToSDK || len(e.Frame) == 0 {
			continue
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"` // "null" for a null result (UnmarshalJSON sees it)
		}
		if json.Unmarshal(e.Frame, &m) != nil || m.Method != "" || len(m.ID) == 0 || len(m.Result) == 0 {
			continue
		}
		out[e.Conn+"\x00"+string(m.ID)] = m.Result
	}
	return out
}

// Of is the result request r was answered with ("null" for a null result); ok is false when
// the runtime answered an error or nothing.
func (a Answers) Of(r Request) (result json.RawMessage, ok bool) {
	result, ok = a[r.Conn+"\x00"+string(r.ID)]
	return result, ok
}

// Notifications returns the runtime-to-SDK notifications of a method, in order.
func Notifications(entries []Entry, method string) []json.RawMessage {
	var out []json.RawMessage
	for _, e := range entries {
		if e.Dir != RuntimeToSDK || len(e.Frame) == 0 {
			continue
		}
		var m wire.Message
		if json.Unmarshal(e.Frame, &m) == nil && m.IsNotification() && m.Method == method {
			out = append(out, m.Params)
		}
	}
	return out
}

// IDParams are the values of the top-level string params named like an id (requestId,
// toolCallId, sessionId): what ties a request of the SDK's to the runtime's frame it answers.
func IDParams(params map[string]any) map[string]string {
	var out map[string]string
	for k, v := range params {
		if s, ok := v.(string); ok && s != "" && strings.HasSuffix(k, "Id") {
			if out == nil {
				out = map[string]string{}
			}
			out[k] = s
		}
	}
	return out
}

// FirstSent maps each string keep accepts to the index in entries of the runtime's first frame
// that carried it, anywhere in the frame: where an id an SDK request names was given.
func FirstSent(entries []Entry, keep func(string) bool) map[string]int {
	first := map[string]int{}
	for i, e := range entries {
		if e.Dir != RuntimeToSDK || len(e.Frame) == 0 {
			continue
		}
		var v any
		if json.Unmarshal(e.Frame, &v) != nil {
			continue
		}
		EachString(v, func(s string) {
			if _, seen := first[s]; !seen && keep(s) {
				first[s] = i
			}
		})
	}
	return first
}

// EachString calls fn with every string in a decoded JSON value, keys left out.
func EachString(v any, fn func(string)) {
	switch x := v.(type) {
	case string:
		fn(x)
	case map[string]any:
		for _, e := range x {
			EachString(e, fn)
		}
	case []any:
		for _, e := range x {
			EachString(e, fn)
		}
	}
}
