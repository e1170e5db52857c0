package compare

import (
	"encoding/json"
	"sort"
)

// Aligned keys two lists of requests of one scenario (Key: "method#occurrence", with the case
// it belongs to when a sweep named one) so that like is compared with like; Align says how.
// base is keyed as sent; a candidate request is keyed as the base request it is paired with.
func Aligned(base, cand []Request) (map[string]any, map[string]any) {
	return AlignedKeeping(base, cand, nil)
}

// AlignedKeeping is Aligned with the methods whose order is part of the contract (ordered):
// their requests are paired by position (Align).
func AlignedKeeping(base, cand []Request, ordered map[string]bool) (map[string]any, map[string]any) {
	bk, ck := Align(base, cand, ordered)
	bp, cp := map[string]any{}, map[string]any{}
	for i, k := range bk {
		bp[k] = base[i].Params
	}
	for j, k := range ck {
		cp[k] = cand[j].Params
	}
	return bp, cp
}

// Align returns the key of every request of base (bk[i] for base[i]) and of cand (ck[j]), two
// runs' or two SDKs' requests of one scenario. Requests are grouped by method and case (a swept
// case's requests are only ever compared with the same case's, wherever the case ran in the
// sweep), and within a group paired by what they carry, never by position alone (pairs): the
// requests equal on both sides first, wherever each was sent, then the others in order, most
// alike first, then what is left across the whole group (a request moved and changed). A
// candidate request left unpaired gets a key of its own past the base's, so it is one "now
// sends" rather than a change in every later request. Requests that answer several pending
// calls of the runtime, or that an SDK sends several at a time, go out in no fixed order, and a
// version that probes one more field sends one more request in the middle: neither is a
// difference. Only the methods in ordered (a feature checks the order they are sent in:
// report.RequestOrder) are paired by position, so that another order shows as a difference.
func Align(base, cand []Request, ordered map[string]bool) (bk, ck []string) {
	type group struct {
		method, caseKey string
		idx             []int // into the list
	}
	byGroup := func(rs []Request) map[string]*group {
		m := map[string]*group{}
		for i, r := range rs {
			g, ok := m[r.Group()]
			if !ok {
				g = &group{method: r.Method, caseKey: r.Case}
				m[r.Group()] = g
			}
			g.idx = append(g.idx, i)
		}
		return m
	}
	params := func(rs []Request, idx []int) []any {
		out := make([]any, len(idx))
		for i, x := range idx {
			out[i] = rs[x].Params
		}
		return out
	}
	bm, cm := byGroup(base), byGroup(cand)
	bk, ck = make([]string, len(base)), make([]string, len(cand))
	for _, g := range bm {
		for i, x := range g.idx {
			bk[x] = Key(g.method, g.caseKey, i)
		}
	}
	for k, g := range cm {
		var b []int
		if bg := bm[k]; bg != nil {
			b = bg.idx
		}
		var paired []int
		if ordered[g.method] {
			paired = make([]int, len(g.idx))
			for j := range paired {
				paired[j] = j
				if j >= len(b) {
					paired[j] = -1
				}
			}
		} else {
			paired = pairs(params(base, b), params(cand, g.idx))
		}
		extra := len(b)
		for ci, bi := range paired {
			if bi < 0 {
				bi, extra = extra, extra+1
			}
			ck[g.idx[ci]] = Key(g.method, g.caseKey, bi)
		}
	}
	return bk, ck
}

// pairs maps each index of c to the index of b it is compared with (-1: none): equal values
// first, the k-th occurrence of a value in c with its k-th in b wherever each stands (requests
// sent several at a time come in any order), then the rest by a longest common subsequence of
// what is left and within each gap between its matches, most alike first (pairGap), then what
// is still unpaired across gaps.
func pairs(b, c []any) []int {
	bs, cs := make([]string, len(b)), make([]string, len(c))
	for i, v := range b {
		bs[i] = show(v)
	}
	for i, v := range c {
		cs[i] = show(v)
	}
	out := make([]int, len(c))
	for j := range out {
		out[j] = -1
	}
	// Equal values, in order of occurrence.
	free := map[string][]int{}
	for i, s := range bs {
		free[s] = append(free[s], i)
	}
	usedB := make([]bool, len(b))
	for j, s := range cs {
		if q := free[s]; len(q) > 0 {
			out[j], usedB[q[0]], free[s] = q[0], true, q[1:]
		}
	}
	// What is left, in order on each side.
	var restB, restC []int
	for i := range b {
		if !usedB[i] {
			restB = append(restB, i)
		}
	}
	for j := range c {
		if out[j] < 0 {
			restC = append(restC, j)
		}
	}
	// No two of restB and restC are equal, so the gaps between the matched requests are
	// where the rest stands: pair within each gap, then across.
	var gapB, gapC []int
	flush := func() {
		pairGap(b, c, gapB, gapC, out, false)
		gapB, gapC = nil, nil
	}
	// A gap is delimited by the matched pairs that keep their order on both sides: walk c in
	// order and cut wherever a matched request is met whose base index grows.
	nextB := 0
	ri := 0
	for j := range c {
		if out[j] < 0 {
			gapC = append(gapC, j)
			continue
		}
		if out[j] < nextB {
			continue // a matched request out of order delimits nothing
		}
		for ri < len(restB) && restB[ri] < out[j] {
			gapB = append(gapB, restB[ri])
			ri++
		}
		flush()
		nextB = out[j] + 1
	}
	gapB = append(gapB, restB[ri:]...)
	flush()
	// What is left unpaired on both sides, across gaps: a request moved and changed.
	used := map[int]bool{}
	restC = restC[:0]
	for j, bi := range out {
		if bi >= 0 {
			used[bi] = true
		} else {
			restC = append(restC, j)
		}
	}
	restB = restB[:0]
	for i := range b {
		if !used[i] {
			restB = append(restB, i)
		}
	}
	pairGap(b, c, restB, restC, out, true)
	return out
}

// pairGap pairs the unmatched requests of one gap: the two most alike first (two points per
// top-level member equal on both, one per key both have), then in order. A version that
// reorders its probes (one session.create per field) still has each field's request compared
// with the same field's. With sameKeys, only requests with the same keys are paired (the pass
// over what is left unpaired across gaps: a request moved and changed).
func pairGap(b, c []any, gapB, gapC []int, out []int, sameKeys bool) {
	members := func(v any) map[string]string {
		m := map[string]string{}
		if o, ok := v.(map[string]any); ok {
			for k, x := range o {
				m[k] = show(x)
			}
		}
		return m
	}
	type cand struct{ score, bi, ci int }
	var all []cand
	for _, bi := range gapB {
		mb := members(b[bi])
		for _, ci := range gapC {
			score, mc := 0, members(c[ci])
			for k, v := range mc {
				if w, ok := mb[k]; ok {
					score++
					if w == v {
						score += 2
					}
				}
			}
			if sameKeys && (len(mb) != len(mc) || score < len(mc)) {
				continue // a key only one has (score counts each shared key at least once)
			}
			all = append(all, cand{score, bi, ci})
		}
	}
	// Stable: among equal scores the earlier pair (in order) wins.
	sort.SliceStable(all, func(i, j int) bool { return all[i].score > all[j].score })
	usedB, usedC := map[int]bool{}, map[int]bool{}
	for _, p := range all {
		if !usedB[p.bi] && !usedC[p.ci] {
			out[p.ci], usedB[p.bi], usedC[p.ci] = p.bi, true, true
		}
	}
}

// show is a value's canonical JSON (object keys sorted), for equality.
func show(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
