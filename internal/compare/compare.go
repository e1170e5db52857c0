// Package compare builds the cross-SDK comparison: for each scenario, the requests every SDK
// sent, normalized by package canon, set side by side, with each difference listed per JSON path
// and classified as normative (a feature's assertion checks that path, so the difference breaks
// a feature) or informational (the SDKs differ where the features allow it).
package compare

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/canon"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/surface"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
)

// executed are the statuses whose transcripts hold a complete scenario.
var executed = map[string]bool{report.Passed: true, report.Failed: true, report.XFail: true, report.XPass: true}

// Scenarios compares every scenario that ran on at least two SDKs, reading their transcripts
// from ts (transcript paths in results are relative to its folder).
func Scenarios(ts *transcript.Store, results []report.Result) ([]report.Comparison, error) {
	type key struct{ feature, scenario string }
	groups := map[key][]report.Result{}
	var order []key
	for _, r := range results {
		if !executed[r.Status] || r.Transcript == "" {
			continue
		}
		k := key{r.Feature, r.Scenario}
		if groups[k] == nil {
			order = append(order, k)
		}
		groups[k] = append(groups[k], r)
	}
	var out []report.Comparison
	for _, k := range order {
		rs := groups[k]
		if len(rs) < 2 || notCompared(rs) {
			continue
		}
		if d, fields, ok := surfaceDifferences(rs); ok {
			var sdks []string
			for _, r := range rs {
				sdks = append(sdks, r.SDK)
			}
			sort.Strings(sdks)
			out = append(out, report.Comparison{Feature: k.feature, Scenario: k.scenario, SDKs: sdks, Differences: d, Fields: fields})
			continue
		}
		lists := map[string][]Request{}
		checked := map[report.Check]bool{}
		var sdks []string
		for _, r := range rs {
			entries, err := ts.Read(r.Transcript)
			if err != nil {
				return nil, fmt.Errorf("%s on %s: %w", r.Scenario, r.SDK, err)
			}
			lists[r.SDK] = RequestList(entries)
			sdks = append(sdks, r.SDK)
			for _, c := range r.Checked {
				checked[c] = true
			}
		}
		sort.Strings(sdks)
		// Every SDK's requests paired with the first SDK's by case and value (Align), the
		// order kept only for the methods a feature checks the order of.
		payloads := map[string]map[string]any{} // sdk -> "method#n" -> params
		for _, sdk := range sdks[1:] {
			payloads[sdks[0]], payloads[sdk] = AlignedKeeping(lists[sdks[0]], lists[sdk], Ordered(checked))
		}
		out = append(out, report.Comparison{Feature: k.feature, Scenario: k.scenario, SDKs: sdks,
			Differences: Payloads(payloads, checked)})
	}
	return out, nil
}

// notCompared says whether a scenario asked to be left out of the payload comparison
// (report.NotCompared): pairing its requests by order would compare different cases.
func notCompared(rs []report.Result) bool {
	for _, r := range rs {
		if r.Observations[report.NotCompared] != "" {
			return true
		}
	}
	return false
}

// FieldPrefix starts the path of a surface scenario's difference ("field customagents").
const FieldPrefix = "field "

// CrossSDK judges the surface scenarios' differences: the same field must reach the same key on
// every SDK that has it. A difference is known when a known difference names the request and
// field and the key of every SDK that differs (it may name SDKs that did not run); any other is
// a failure of the run. A known difference whose SDKs all ran with keys it says differ, and
// which was not observed, is fixed: it fails too (like an unexpected pass), until it is removed.
func CrossSDK(comps []report.Comparison, known []report.KnownDifference) []report.CrossSDK {
	var out []report.CrossSDK
	for _, c := range comps {
		if !c.Fields {
			continue
		}
		seen := map[string]bool{}
		differs := map[string]bool{} // request and field with a difference (judged above)
		for _, d := range c.Differences {
			field, ok := strings.CutPrefix(d.Path, FieldPrefix)
			if !ok || d.Class != report.Normative {
				continue
			}
			differs[d.Request+" "+field] = true
			j := report.CrossSDK{Feature: c.Feature, Scenario: c.Scenario, Request: d.Request, Field: field, Keys: d.Values, Status: report.Failed}
			for _, k := range known {
				if k.Request == d.Request && k.Field == field && sameKeys(k.Keys, d.Values) {
					j.Status, j.Known, j.Reason = report.XFail, k.Where, k.Reason
					seen[k.Where] = true
					break
				}
			}
			out = append(out, j)
		}
		ran := map[string]bool{}
		for _, s := range c.SDKs {
			ran[s] = true
		}
		for _, k := range known {
			if seen[k.Where] || differs[k.Request+" "+k.Field] {
				continue
			}
			// Judged only when every SDK it names ran: how the others compare without the one
			// that differs is not what the entry recorded (a run without Java cannot see Java's
			// difference, and the keys the others share may be what Java's variants made them).
			keys, all := map[string]string{}, true
			for s, v := range k.Keys {
				keys[s] = v
				all = all && ran[s]
			}
			if all && distinct(keys) > 1 {
				out = append(out, report.CrossSDK{Feature: c.Feature, Scenario: c.Scenario, Request: k.Request, Field: k.Field,
					Keys: keys, Status: report.XPass, Known: k.Where, Reason: k.Reason})
			}
		}
	}
	return out
}

// sameKeys says whether every SDK of observed sends the field where the known difference says.
func sameKeys(known, observed map[string]string) bool {
	for s, v := range observed {
		if known[s] != v {
			return false
		}
	}
	return true
}

func distinct(m map[string]string) int {
	vals := map[string]bool{}
	for _, v := range m {
		vals[v] = true
	}
	return len(vals)
}

// surfaceDifferences compares a surface scenario (features/surface) by where each field went
// (its observations, package surface) instead of request by request: the SDKs probe different
// field lists, so their k-th requests carry different fields. A field several SDKs declare
// and send under different keys (or one sends and another does not) is a normative difference;
// a field only one SDK declares is the matrix's business, not a difference. Handlers
// (features/surface/handlers.feature, facts "REQUEST handler KEY") are compared the same way, at
// the path "handler KEY"; fields says whether the scenario probed fields, which the known field
// differences are judged on (CrossSDK).
func surfaceDifferences(rs []report.Result) (diffs []report.Difference, fields, ok bool) {
	facts := map[string]map[string]string{}
	for _, r := range rs {
		for k, v := range r.Observations {
			if rest, ok := strings.CutPrefix(k, surface.ObservationPrefix); ok {
				if facts[rest] == nil {
					facts[rest] = map[string]string{}
				}
				facts[rest][r.SDK] = v
			}
		}
	}
	if len(facts) == 0 {
		return nil, false, false
	}
	keys := slices.Sorted(maps.Keys(facts))
	out := []report.Difference{}
	for _, k := range keys {
		vals := facts[k]
		request, field, _ := strings.Cut(k, " ")
		path := FieldPrefix + field
		if strings.HasPrefix(field, surface.HandlerPrefix) {
			path = field
		} else {
			fields = true
		}
		if len(vals) < 2 {
			continue
		}
		first, same := "", true
		for _, v := range vals {
			if first == "" {
				first = v
			} else if v != first {
				same = false
			}
		}
		if !same && !strings.HasPrefix(field, surface.HandlerPrefix) && covered(vals) {
			same = true
		}
		if !same {
			out = append(out, report.Difference{Request: request, Path: path, Class: report.Normative, Values: vals})
		}
	}
	return out, fields, true
}

// covered says whether one SDK's places for a field ("a | not sent", one per value it was set
// to) hold every other SDK's: an SDK whose type lets fewer values be generated (Go's plain bool
// has no false that differs from "not set", a struct of plain strings no empty one) is compared
// on the values it has.
func covered(vals map[string]string) bool {
	sets := map[string]map[string]bool{}
	for sdk, v := range vals {
		sets[sdk] = map[string]bool{}
		for _, p := range strings.Split(v, " | ") {
			sets[sdk][p] = true
		}
	}
	for _, big := range sets {
		all := true
		for _, small := range sets {
			for p := range small {
				if !big[p] {
					all = false
				}
			}
		}
		if all {
			return true
		}
	}
	return false
}

// Requests returns the normalized params of every request in a transcript, keyed by
// "method#occurrence" so that the k-th request of a method is compared with the k-th of another SDK.
func Requests(entries []transcript.Entry) map[string]any {
	return keyed(RequestList(entries))
}

func keyed(rs []Request) map[string]any {
	out := map[string]any{}
	seen := map[string]int{}
	for _, r := range rs {
		seen[r.Group()]++
		out[Key(r.Method, r.Case, seen[r.Group()]-1)] = r.Params
	}
	return out
}

// Key names the i-th (from 0) request of a method within a case ("" outside one):
// "session.create#2", or "session.create#1 [session.create SessionConfig.model = \"x\"]". The
// method comes first and ends at "#", as Payloads reads it back.
func Key(method, caseKey string, i int) string {
	if caseKey == "" {
		return fmt.Sprintf("%s#%d", method, i+1)
	}
	return fmt.Sprintf("%s#%d [%s]", method, i+1, caseKey)
}

// Group is what the requests compared with one another share: the method and the case.
func (r Request) Group() string {
	if r.Case == "" {
		return r.Method
	}
	return r.Method + "\x00" + r.Case
}

// Request is one request of a transcript with its normalized params, and the key of the
// generated or swept case it belongs to ("" outside one; transcript.KindCase).
type Request struct {
	Method string
	Params any
	Case   string
	Seq    int // the transcript entry that sent it
}

// RequestList is every request of a transcript in the order sent, params normalized as
// Requests normalizes them, except that the requests of one method that each answer a request
// of the runtime's own are put in the order the runtime made those (inRuntimeOrder).
func RequestList(entries []transcript.Entry) []Request {
	var out []Request
	for _, r := range transcript.Requests(entries, "") {
		v, err := canon.Decode(r.Params)
		if err != nil || len(r.Params) == 0 {
			v = map[string]any{}
		}
		out = append(out, Request{Method: r.Method, Params: canon.Value(canon.Defaults(r.Method, v)), Case: r.Case, Seq: r.Seq})
	}
	return inRuntimeOrder(entries, out)
}

// inRuntimeOrder reorders, per method, requests that name an id the runtime sent first (a
// top-level string param named like requestId or toolCallId whose value appeared in an
// earlier frame of the runtime's) by where the runtime sent the latest such id: several
// exchanges in flight at once (HTTP responses streamed in chunks, tool answers) interleave in
// whatever order the SDK's handlers run, differently in every run, while the runtime, the
// harness's script, makes its requests in one order. A method any of whose requests names no
// such id keeps the order sent.
func inRuntimeOrder(entries []transcript.Entry, rs []Request) []Request {
	positions := map[string][]int{}
	for i, r := range rs {
		positions[r.Group()] = append(positions[r.Group()], i)
	}
	ids := map[string]bool{}
	for _, r := range rs {
		if len(positions[r.Group()]) > 1 {
			for _, id := range idParams(r) {
				ids[id] = true
			}
		}
	}
	if len(ids) == 0 {
		return rs
	}
	first := transcript.FirstSent(entries, func(s string) bool { return ids[s] })
	rank := func(r Request) (int, bool) {
		best, ok := -1, false
		for _, id := range idParams(r) {
			if i, found := first[id]; found {
				best, ok = max(best, i), true
			}
		}
		return best, ok
	}
	out := slices.Clone(rs)
	for _, pos := range positions {
		if len(pos) < 2 {
			continue
		}
		ranks := make(map[int]int, len(pos))
		all := true
		for _, p := range pos {
			r, ok := rank(rs[p])
			all = all && ok
			ranks[p] = r
		}
		if !all {
			continue
		}
		sorted := slices.Clone(pos)
		slices.SortStableFunc(sorted, func(a, b int) int { return ranks[a] - ranks[b] })
		for j, p := range pos {
			out[p] = rs[sorted[j]]
		}
	}
	return out
}

// idParams are the values of a request's top-level string params named like an id (requestId,
// toolCallId, sessionId).
func idParams(r Request) []string {
	m, _ := r.Params.(map[string]any)
	return slices.Collect(maps.Values(transcript.IDParams(m)))
}

// Ordered are the methods whose order a feature checked (report.RequestOrder).
func Ordered(checked map[report.Check]bool) map[string]bool {
	out := map[string]bool{}
	for c := range checked {
		if c.Path == report.RequestOrder {
			out[c.Method] = true
		}
	}
	return out
}

// Payloads diffs per request; a request only some SDKs sent is one difference at path "".
func Payloads(bySDK map[string]map[string]any, checked map[report.Check]bool) []report.Difference {
	requests := map[string]bool{}
	for _, reqs := range bySDK {
		for r := range reqs {
			requests[r] = true
		}
	}
	names := slices.Sorted(maps.Keys(requests))
	var out []report.Difference
	for _, req := range names {
		vals, sentBy := map[string]any{}, map[string]string{}
		all := true
		for sdk, reqs := range bySDK {
			v, ok := reqs[req]
			if !ok {
				all = false
				sentBy[sdk] = "not sent"
				continue
			}
			vals[sdk] = v
			sentBy[sdk] = "sent"
		}
		method := strings.SplitN(req, "#", 2)[0]
		if !all {
			out = append(out, report.Difference{Request: req, Path: "", Class: classify(method, "", checked), Values: sentBy})
			continue
		}
		for _, d := range canon.Diff(vals) {
			out = append(out, report.Difference{Request: req, Path: d.Path, Class: classify(method, d.Path, checked), Values: d.Values})
		}
	}
	return out
}

// classify marks a difference normative when an assertion checked that path, a path inside it,
// or a path it contains; "**.key" checks match the key at any depth.
func classify(method, path string, checked map[report.Check]bool) string {
	for c := range checked {
		m, p := c.Method, c.Path
		if m != method {
			continue
		}
		if p == report.WholeParams {
			return report.Normative
		}
		if key, ok := strings.CutPrefix(p, "**."); ok {
			if path == key || strings.HasSuffix(path, "."+key) || strings.Contains(path, "."+key+".") || strings.HasPrefix(path, key+".") {
				return report.Normative
			}
			continue
		}
		if path == "" || p == path || within(path, p) || within(p, path) {
			return report.Normative
		}
	}
	return report.Informational
}

// within reports whether path lies under prefix.
func within(path, prefix string) bool {
	return strings.HasPrefix(path, prefix+".") || strings.HasPrefix(path, prefix+"[")
}
