// Package fidelity measures the stand-in runtime against the real one: the same suite run on
// both (conformance fidelity), compared per scenario (statuses, with the cause of each
// difference) and per method (the shapes of the answers, the notifications and event types each
// runtime sent), plus the schema/runtime skew the real runtime shows (methods the published
// schema lists that it does not implement, results that do not validate against the schema).
package fidelity

import (
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/schema"
	"github.com/copilot-sdk-conformance/conformance/internal/text"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/copilot-sdk-conformance/conformance/internal/wire"
)

// Diff is one scenario on one SDK whose status differs between the runtimes.
type Diff struct {
	Feature  string `json:"feature"`
	Scenario string `json:"scenario"`
	SDK      string `json:"sdk"`
	StandIn  string `json:"standIn"`
	Real     string `json:"real"`
	Cause    string `json:"cause"` // the message of the side that did not pass
}

// Count is how many results of an SDK had the same status on both runtimes.
type Count struct {
	Same  int `json:"same"`
	Total int `json:"total"`
}

// MethodShape is one method whose answers differ in shape: the JSON paths (with their types)
// only one runtime's answers had.
type MethodShape struct {
	Method      string   `json:"method"`
	OnlyStandIn []string `json:"onlyStandIn,omitempty"`
	OnlyReal    []string `json:"onlyReal,omitempty"`
}

// Skew is what the real runtime shows about its own published schema.
type Skew struct {
	// NotImplemented are methods the schema lists that the real runtime answered "method not
	// found" (-32601) when an SDK sent them.
	NotImplemented []string `json:"notImplemented,omitempty"`
	// ResultViolations are "method: pointer: message" for real answers that do not validate
	// against the schema's result of their method, with how often.
	ResultViolations map[string]int `json:"resultViolations,omitempty"`
	// Checked is how many real answers were validated.
	Checked int `json:"checked"`
}

// Report is the comparison.
type Report struct {
	StandIn string           `json:"standIn"` // report folders
	Real    string           `json:"real"`
	Runtime string           `json:"runtime"`
	Counts  map[string]Count `json:"counts"` // per SDK (report.Target)
	Same    int              `json:"same"`
	Total   int              `json:"total"`
	Diffs   []Diff           `json:"diffs,omitempty"`
	Shapes  []MethodShape    `json:"shapes,omitempty"`
	// OnlyReal / OnlyStandIn are the notifications ("session.lifecycle"), event types
	// ("session.event session.start") and runtime->SDK requests only one runtime sent.
	OnlyReal    []string `json:"onlyReal,omitempty"`
	OnlyStandIn []string `json:"onlyStandIn,omitempty"`
	Skew        *Skew    `json:"skew,omitempty"`
	// Incompatible are the SDKs (report.Target) that never connected to the real runtime, with
	// why: no real result passed, and every one is unsupported or an expected failure of one
	// manifest entry. Their differences measure that SDK × runtime incompatibility (a finding
	// of the compatibility matrix), not the stand-in, so Connected leaves them out.
	Incompatible map[string]string `json:"incompatible,omitempty"`
	// Connected is Same / Total over the SDKs that are not Incompatible.
	Connected Count `json:"connected"`
}

// Compare reads two runs' results.json and transcripts. schemaDoc, when given, is the
// runtime's api.schema.json, for the skew.
func Compare(standInDir, realDir string, schemaDoc []byte) (*Report, error) {
	si, err := report.ReadResults(filepath.Join(standInDir, "results.json"))
	if err != nil {
		return nil, err
	}
	re, err := report.ReadResults(filepath.Join(realDir, "results.json"))
	if err != nil {
		return nil, err
	}
	r := &Report{StandIn: standInDir, Real: realDir, Runtime: re.Harness.Runtime, Counts: map[string]Count{}}
	type key struct{ f, s, sdk string }
	byKey := map[key]report.Result{}
	for _, x := range si.Results {
		byKey[key{x.Feature, x.Scenario, report.Target(x.SDK, x.Version)}] = x
	}
	for _, x := range re.Results {
		t := report.Target(x.SDK, x.Version)
		y, ok := byKey[key{x.Feature, x.Scenario, t}]
		if !ok || x.Status == report.Unavailable {
			continue
		}
		c := r.Counts[t]
		c.Total++
		r.Total++
		if y.Status == x.Status {
			c.Same++
			r.Same++
		} else {
			side := x
			if x.Status == report.Passed || x.Status == report.XFail && y.Status != report.Passed {
				side = y
			}
			cause := brief(side.Message)
			if side.Status == report.XFail && side.Expected != "" {
				// The manifest entry says why it holds on one runtime only (runtime: stand-in | real).
				cause += " (expected failure " + side.Expected + ")"
			}
			r.Diffs = append(r.Diffs, Diff{Feature: x.Feature, Scenario: x.Scenario, SDK: t, StandIn: y.Status, Real: x.Status, Cause: cause})
		}
		r.Counts[t] = c
	}
	r.Incompatible = incompatible(re.Results)
	for t, c := range r.Counts {
		if _, out := r.Incompatible[t]; !out {
			r.Connected.Same += c.Same
			r.Connected.Total += c.Total
		}
	}
	var results *schema.Results
	if len(schemaDoc) > 0 {
		if results, err = schema.CompileResults(schemaDoc); err != nil {
			return nil, fmt.Errorf("the runtime schema: %w", err)
		}
		r.Skew = &Skew{ResultViolations: map[string]int{}}
	}
	siObs, reObs := observe(standInDir, si, nil, nil), observe(realDir, re, results, r.Skew)
	for m := range union(siObs.shapes, reObs.shapes) {
		a, b := siObs.shapes[m], reObs.shapes[m]
		if a == nil || b == nil {
			continue // answered on one runtime only: no shape to compare
		}
		ms := MethodShape{Method: m, OnlyStandIn: minus(a, b), OnlyReal: minus(b, a)}
		if len(ms.OnlyStandIn)+len(ms.OnlyReal) > 0 {
			r.Shapes = append(r.Shapes, ms)
		}
	}
	sort.Slice(r.Shapes, func(i, j int) bool { return r.Shapes[i].Method < r.Shapes[j].Method })
	r.OnlyReal, r.OnlyStandIn = minus(reObs.sent, siObs.sent), minus(siObs.sent, reObs.sent)
	if r.Skew != nil {
		r.Skew.NotImplemented = slices.Sorted(maps.Keys(reObs.notFound))
	}
	return r, nil
}

// incompatible finds the SDKs that never connected to the real runtime (Report.Incompatible):
// nothing passed, and every result is unsupported or an expected failure, all of one entry.
func incompatible(real []report.Result) map[string]string {
	type tally struct {
		other   bool            // a result that is neither xfail nor unsupported
		entries map[string]bool // the manifest entries behind the xfails
		cause   string
	}
	by := map[string]*tally{}
	for _, x := range real {
		t := report.Target(x.SDK, x.Version)
		if by[t] == nil {
			by[t] = &tally{entries: map[string]bool{}}
		}
		switch x.Status {
		case report.XFail:
			by[t].entries[x.Expected] = true
			if by[t].cause == "" {
				by[t].cause = brief(x.Message)
			}
		case report.Unsupported, report.Unavailable:
		default:
			by[t].other = true
		}
	}
	out := map[string]string{}
	for t, c := range by {
		if !c.other && len(c.entries) == 1 && !c.entries[""] {
			for e := range c.entries {
				out[t] = fmt.Sprintf("every result is unsupported or the expected failure %s: %s", e, c.cause)
			}
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

type observed struct {
	shapes   map[string]map[string]bool // method -> "path: type"
	answers  map[string]*methodAnswers  // method -> its successful answers' paths, counted (answers.go)
	versions map[string]bool            // the versions connect answered
	sent     map[string]bool            // notifications, event types, runtime->SDK requests
	notFound map[string]bool
}

// observe reads every transcript of a run: the shape of each answer by method, what the runtime
// sent unasked, and (with results) the skew.
func observe(dir string, res *report.Results, results *schema.Results, skew *Skew) observed {
	o := observed{shapes: map[string]map[string]bool{}, answers: map[string]*methodAnswers{}, versions: map[string]bool{}, sent: map[string]bool{}, notFound: map[string]bool{}}
	seen := map[string]bool{}
	for _, x := range res.Results {
		if x.Transcript == "" || seen[x.Transcript] {
			continue
		}
		seen[x.Transcript] = true
		entries, err := transcript.Read(filepath.Join(dir, x.Transcript))
		if err != nil {
			continue
		}
		asked := map[string]string{} // conn + id -> method
		for _, e := range entries {
			if len(e.Frame) == 0 || e.Dir == transcript.Note {
				continue
			}
			var m wire.Message
			if json.Unmarshal(e.Frame, &m) != nil {
				continue
			}
			switch {
			case e.Dir == transcript.SDKToRuntime && m.IsRequest():
				asked[e.Conn+" "+string(m.ID)] = m.Method
			case e.Dir == transcript.RuntimeToSDK && m.IsResponse():
				method := asked[e.Conn+" "+string(m.ID)]
				if method == "" {
					continue
				}
				if o.shapes[method] == nil {
					o.shapes[method] = map[string]bool{}
				}
				o.answer(method, m)
				if m.Error != nil {
					o.shapes[method][fmt.Sprintf("error %d", m.Error.Code)] = true
					if m.Error.Code == wire.CodeMethodNotFound {
						o.notFound[method] = true
					}
					continue
				}
				var v any
				if json.Unmarshal(m.Result, &v) == nil {
					for _, p := range paths(v, "") {
						o.shapes[method][p] = true
					}
				}
				if results != nil && results.Has(method) {
					skew.Checked++
					for _, viol := range results.Check(method, m.Result) {
						skew.ResultViolations[method+": "+viol.Pointer+": "+viol.Message]++
					}
				}
			case e.Dir == transcript.RuntimeToSDK && m.Method != "":
				name := m.Method
				if m.Method == "session.event" {
					var p struct {
						Event struct {
							Type string `json:"type"`
						} `json:"event"`
					}
					_ = json.Unmarshal(m.Params, &p)
					name += " " + p.Event.Type
				} else if m.IsRequest() {
					name = "request " + name
				}
				o.sent[name] = true
			}
		}
	}
	// Only methods the schema lists count as not implemented.
	if results != nil {
		for m := range o.notFound {
			if !results.Listed(m) {
				delete(o.notFound, m)
			}
		}
	}
	return o
}

// paths flattens a JSON value into "path: type" entries; array elements share the path "[]".
func paths(v any, at string) []string {
	switch t := v.(type) {
	case map[string]any:
		out := []string{label(at) + ": object"}
		for k, c := range t {
			p := k
			if at != "" {
				p = at + "." + k
			}
			out = append(out, paths(c, p)...)
		}
		return out
	case []any:
		out := []string{label(at) + ": array"}
		for _, c := range t {
			out = append(out, paths(c, at+"[]")...)
		}
		return out
	case string:
		return []string{label(at) + ": string"}
	case float64:
		return []string{label(at) + ": number"}
	case bool:
		return []string{label(at) + ": boolean"}
	case nil:
		return []string{label(at) + ": null"}
	}
	return nil
}

func label(p string) string {
	if p == "" {
		return "(result)"
	}
	return p
}

func union(a, b map[string]map[string]bool) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

func minus(a, b map[string]bool) []string {
	var out []string
	for k := range a {
		if !b[k] {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// brief is a message's first line, clipped: a cause in the fidelity report.
func brief(s string) string {
	s = text.FirstLine(strings.TrimSpace(s))
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// Markdown renders the report for a reader.
func Markdown(r *Report) string {
	var b strings.Builder
	b.WriteString("# Fidelity of the stand-in runtime\n\n")
	fmt.Fprintf(&b, "Stand-in run: `%s`; real run: `%s` (%s).\n\n", r.StandIn, r.Real, r.Runtime)
	pct := func(c Count) float64 { return 100 * float64(c.Same) / float64(max(c.Total, 1)) }
	all := Count{Same: r.Same, Total: r.Total}
	if len(r.Incompatible) == 0 {
		fmt.Fprintf(&b, "**%d of %d results (%.1f%%) have the same status on both runtimes.**\n\n", r.Same, r.Total, pct(all))
	} else {
		fmt.Fprintf(&b, "**%d of %d results (%.1f%%) have the same status on both runtimes, on the SDKs that connect to the real runtime**; "+
			"%d of %d (%.1f%%) with the %d that do not (below).\n\n", r.Connected.Same, r.Connected.Total, pct(r.Connected),
			r.Same, r.Total, pct(all), len(r.Incompatible))
	}
	b.WriteString("| SDK | same | of | % | connects to the real runtime |\n|---|---|---|---|---|\n")
	var sdks []string
	for s := range r.Counts {
		sdks = append(sdks, s)
	}
	sort.Strings(sdks)
	for _, s := range sdks {
		connects := "yes"
		if _, out := r.Incompatible[s]; out {
			connects = "no"
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %.1f | %s |\n", s, r.Counts[s].Same, r.Counts[s].Total, pct(r.Counts[s]), connects)
	}
	if len(r.Incompatible) > 0 {
		b.WriteString("\n## SDKs that do not connect to the real runtime\n\nTheir differences are that SDK × runtime " +
			"incompatibility (see the compatibility matrix), not the stand-in's; each is listed in fidelity.json.\n\n")
		for _, s := range slices.Sorted(maps.Keys(r.Incompatible)) {
			n := 0
			for _, d := range r.Diffs {
				if d.SDK == s {
					n++
				}
			}
			fmt.Fprintf(&b, "- %s (%d scenarios differ): %s\n", s, n, cell(r.Incompatible[s]))
		}
	}
	connected := 0
	for _, d := range r.Diffs {
		if _, out := r.Incompatible[d.SDK]; !out {
			connected++
		}
	}
	if connected > 0 {
		b.WriteString("\n## Scenarios whose status differs\n\n| SDK | scenario | stand-in | real | cause |\n|---|---|---|---|---|\n")
		for _, d := range r.Diffs {
			if _, out := r.Incompatible[d.SDK]; out {
				continue
			}
			fmt.Fprintf(&b, "| %s | %s: %s | %s | %s | %s |\n", d.SDK, d.Feature, cell(d.Scenario), d.StandIn, d.Real, cell(d.Cause))
		}
	}
	if len(r.Shapes) > 0 {
		b.WriteString("\n## Answers whose shape differs, per method\n\n")
		for _, s := range r.Shapes {
			fmt.Fprintf(&b, "- `%s`: only the real runtime: %s; only the stand-in: %s\n", s.Method, list(s.OnlyReal), list(s.OnlyStandIn))
		}
	}
	b.WriteString("\n## What only one runtime sent unasked\n\n")
	fmt.Fprintf(&b, "- only the real runtime: %s\n- only the stand-in: %s\n", list(r.OnlyReal), list(r.OnlyStandIn))
	if r.Skew != nil {
		b.WriteString("\n## Schema/runtime skew (the real runtime against its own published schema)\n\n")
		fmt.Fprintf(&b, "- methods the schema lists that the real runtime answered \"method not found\": %s\n", list(r.Skew.NotImplemented))
		fmt.Fprintf(&b, "- real answers checked against the schema's result: %d; violations: %d kinds\n", r.Skew.Checked, len(r.Skew.ResultViolations))
		var vs []string
		for v := range r.Skew.ResultViolations {
			vs = append(vs, v)
		}
		sort.Strings(vs)
		for _, v := range vs {
			fmt.Fprintf(&b, "  - %s (×%d)\n", v, r.Skew.ResultViolations[v])
		}
	}
	return b.String()
}

func cell(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, "|", "\\|"), "\n", " ") }

func list(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return "`" + strings.Join(xs, "`, `") + "`"
}
