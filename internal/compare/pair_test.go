package compare

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestPairs(t *testing.T) {
	create := func(field string, v any) any {
		return map[string]any{"tools": []any{}, field: float64(0) + v.(float64)}
	}
	tests := []struct {
		name       string
		base, cand []any
		want       []int // for each candidate request, the base request it is compared with (-1: none)
	}{
		{"one request added in the middle", []any{create("a", 1.0), create("c", 3.0)},
			[]any{create("a", 1.0), create("b", 2.0), create("c", 3.0)}, []int{0, -1, 1}},
		{"reordered and changed: paired by shared members", []any{create("a", 1.0), create("b", 2.0), create("c", 3.0)},
			[]any{create("c", 30.0), create("a", 1.0), create("d", 4.0), create("b", 2.0)}, []int{2, 0, -1, 1}},
		{"one request gone", []any{create("a", 1.0), create("b", 2.0)}, []any{create("b", 2.0)}, []int{1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, pairs(tt.base, tt.cand))
		})
	}
}

func TestAligned(t *testing.T) {
	req := func(method, field string) Request {
		return Request{Method: method, Params: map[string]any{field: true}}
	}
	base := []Request{req("session.create", "a"), req("session.create", "c"), req("session.destroy", "x")}
	cand := []Request{req("session.create", "a"), req("session.create", "b"), req("session.create", "c"), req("session.destroy", "x")}
	bp, cp := Aligned(base, cand)
	assert.Equal(t, cp["session.create#2"], bp["session.create#2"], "c is compared with c")
	assert.Equal(t, map[string]any{"b": true}, cp["session.create#3"], "b, sent anew, gets a key past the base's")
	assert.NotContains(t, bp, "session.create#3")
	assert.Equal(t, cp["session.destroy#1"], bp["session.destroy#1"], "equal counts: in order")
}

// payloadLines diffs two request lists as diff does and lists "key path: base → candidate".
func payloadLines(base, cand []Request) []string {
	bp, cp := Aligned(base, cand)
	var out []string
	for _, d := range Payloads(map[string]map[string]any{"base": bp, "candidate": cp}, nil) {
		out = append(out, fmt.Sprintf("%s %s: %s → %s", d.Request, d.Path, d.Values["base"], d.Values["candidate"]))
	}
	return out
}

// A hand-written scenario's requests of one method, sent in another order and one of them
// changed, are paired by what they carry (the id that names each), not by position: the one
// change is the only difference.
func TestAlignedPairsByValuesNotPosition(t *testing.T) {
	answer := func(id string, result any) Request {
		return Request{Method: "session.permissions.handlePendingPermissionRequest", Params: map[string]any{"requestId": id, "result": result}}
	}
	base := []Request{answer("p1", "approved"), answer("p2", "approved"), answer("p3", "denied")}
	cand := []Request{answer("p3", "denied"), answer("p2", "denied"), answer("p1", "approved")}
	assert.Equal(t, []string{`session.permissions.handlePendingPermissionRequest#2 result: "approved" → "denied"`}, payloadLines(base, cand))
}

// A sweep's cases run at once go out in no fixed order; each request carries its case (the
// transcript's case notes), and two runs pair by case: a case only one run has is one "sent"
// or "not sent", never a field moved from one case's request to another's.
func TestAlignedPairsSweptCasesByKey(t *testing.T) {
	open := func(caseKey, field string, v any) Request {
		return Request{Method: "session.create", Case: caseKey, Params: map[string]any{"tools": []any{}, field: v}}
	}
	connect := func(caseKey string) Request {
		return Request{Method: "connect", Case: caseKey, Params: map[string]any{}}
	}
	base := []Request{
		connect("a"), connect("b"), connect("c"),
		open("b", "systemMessage", "x"), open("a", "contextTier", "default"), open("c", "hooks", true),
	}
	cand := []Request{
		connect("c"), connect("e"), connect("a"),
		open("e", "requestUserInput", true), open("c", "hooks", true), open("a", "contextTier", "large"),
	}
	assert.Equal(t, []string{
		`connect#1 [b] : sent → not sent`,
		`connect#1 [e] : not sent → sent`,
		`session.create#1 [a] contextTier: "default" → "large"`,
		`session.create#1 [b] : sent → not sent`,
		`session.create#1 [e] : not sent → sent`,
	}, payloadLines(base, cand))
}
