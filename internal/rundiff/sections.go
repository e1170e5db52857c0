package rundiff

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/text"
)

// The diff says the change first: what was compared (each SDK's version and source on both
// sides, or why it was unavailable), the capabilities each SDK gained or lost, the regressions,
// the new divergences, the fixes, then the payload changes grouped by field across SDKs, and last
// each scenario's payload changes. The text and the pull-request comment are rendered from the
// same sections; the comment is cut from the least important end to fit a size budget.

// Compared is one SDK as the two runs had it (nil: not in that run).
type Compared struct {
	SDK             string
	Base, Candidate *report.SDK
}

// CapabilityChange is a capability an SDK's driver advertised in one run and not the other.
type CapabilityChange struct {
	SDK, Capability string
	Gained          bool
}

// FieldChange is one field (a request's JSON path, array indexes folded: tools[].isTerminal)
// changed the same way in the scenarios of one or more SDKs.
type FieldChange struct {
	Method, Field string
	How           string   // FieldNowSent, FieldNoLongerSent or FieldChanged
	SDKs          []string // sorted
	Scenarios     int      // scenario × SDK
	Values        []string // the changes seen ("base → candidate"), at most maxValues
}

// How a field changed.
const (
	FieldNowSent      = "now sent"
	FieldNoLongerSent = "no longer sent"
	FieldChanged      = "changed"
)

const maxValues = 2

func compared(base, cand *report.Results) []Compared {
	byName := map[string]*Compared{}
	var names []string
	add := func(res *report.Results, candidate bool) {
		label := report.Labels(res)
		for i := range res.SDKs {
			s := &res.SDKs[i]
			name := label(s.Name, s.Version)
			c := byName[name]
			if c == nil {
				c = &Compared{SDK: name}
				byName[name] = c
				names = append(names, name)
			}
			if candidate {
				c.Candidate = s
			} else {
				c.Base = s
			}
		}
	}
	add(base, false)
	add(cand, true)
	sort.Strings(names)
	out := make([]Compared, 0, len(names))
	for _, n := range names {
		out = append(out, *byName[n])
	}
	return out
}

func capabilities(base, cand *report.Results) []CapabilityChange {
	var out []CapabilityChange
	for _, c := range compared(base, cand) {
		if c.Base == nil || c.Candidate == nil || c.Base.Status != report.Available || c.Candidate.Status != report.Available {
			continue // no hello on a side: COMPARED says why
		}
		keys := map[string]bool{}
		for k := range c.Base.Capabilities {
			keys[k] = true
		}
		for k := range c.Candidate.Capabilities {
			keys[k] = true
		}
		for _, k := range slices.Sorted(maps.Keys(keys)) {
			if was, is := c.Base.Capabilities[k], c.Candidate.Capabilities[k]; was != is {
				out = append(out, CapabilityChange{SDK: c.SDK, Capability: k, Gained: is})
			}
		}
	}
	return out
}

var arrayIndex = regexp.MustCompile(`\[\d+\]`)

// fields groups every payload change by method, field (array indexes folded) and how it changed.
func fields(changes []Change) []FieldChange {
	type key struct{ method, field, how string }
	type acc struct {
		sdks      map[string]bool
		scenarios map[string]bool
		values    []string
	}
	groups := map[key]*acc{}
	for _, c := range changes {
		for _, p := range c.Payload {
			method, caseKey, _ := strings.Cut(p.Request, "#")
			if _, rest, ok := strings.Cut(caseKey, " ["); ok {
				caseKey = "[" + rest // the case, when a sweep named one
			} else {
				caseKey = ""
			}
			k := key{method: method, field: arrayIndex.ReplaceAllString(p.Path, "[]")}
			value := p.Base + " → " + p.Candidate
			switch {
			case p.Path == "": // the whole request, sent on one side only
				k.how = FieldNowSent
				if p.Base == "sent" {
					k.how = FieldNoLongerSent
				}
				k.field, value = "(request)", ""
				if caseKey != "" { // a case one run has: one line for all its requests
					k.method, k.field, value = "case", caseKey, method
				}
			case p.Base == "<absent>":
				k.how, value = FieldNowSent, p.Candidate
			case p.Candidate == "<absent>":
				k.how, value = FieldNoLongerSent, p.Base
			default:
				k.how = FieldChanged
			}
			a := groups[k]
			if a == nil {
				a = &acc{sdks: map[string]bool{}, scenarios: map[string]bool{}}
				groups[k] = a
			}
			a.sdks[c.SDK] = true
			a.scenarios[c.SDK+"\x00"+c.Feature+"\x00"+c.Scenario] = true
			if value != "" && (len(a.values) < maxValues || k.method == "case") && !slices.Contains(a.values, value) {
				a.values = append(a.values, value)
			}
		}
	}
	out := make([]FieldChange, 0, len(groups))
	for k, a := range groups {
		out = append(out, FieldChange{Method: k.method, Field: k.field, How: k.how, SDKs: slices.Sorted(maps.Keys(a.sdks)), Scenarios: len(a.scenarios), Values: a.values})
	}
	sort.Slice(out, func(i, j int) bool {
		a, z := out[i], out[j]
		if len(a.SDKs) != len(z.SDKs) {
			return len(a.SDKs) > len(z.SDKs) // a change several SDKs share first
		}
		if a.Scenarios != z.Scenarios {
			return a.Scenarios > z.Scenarios
		}
		return a.Method+" "+a.Field+" "+a.How < z.Method+" "+z.Field+" "+z.How
	})
	return out
}

// String is the field change as one line: "session.create tools[].isTerminal: now sent by go,
// python (3 scenarios; true)".
func (f FieldChange) String() string {
	by := "by"
	if f.How == FieldChanged {
		by = "on"
	}
	s := fmt.Sprintf("%s %s: %s %s %s (%s", f.Method, f.Field, f.How, by, strings.Join(f.SDKs, ", "), plural(f.Scenarios, "scenario"))
	if len(f.Values) > 0 {
		s += "; " + strings.Join(f.Values, "; ")
	}
	return s + ")"
}

func plural(n int, what string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", what)
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// section is one part of the diff: a title, and each entry's lines (a block may stand for
// several scenarios: weights, nil for one each).
type section struct {
	title, tally, note string // tally: its name in the closing count ("" for none)
	blocks             []string
	weights            []int
}

// countOf is how many entries the first n blocks stand for.
func (s section) countOf(n int) int {
	if s.weights == nil {
		return n
	}
	c := 0
	for _, w := range s.weights[:n] {
		c += w
	}
	return c
}

func (s section) count() int { return s.countOf(len(s.blocks)) }

// add appends a block standing for w entries.
func (s *section) add(block string, w int) {
	if w != 1 && s.weights == nil {
		s.weights = make([]int, len(s.blocks))
		for i := range s.weights {
			s.weights[i] = 1
		}
	}
	s.blocks = append(s.blocks, block)
	if s.weights != nil {
		s.weights = append(s.weights, w)
	}
}

// sections are the diff's parts, most important first.
func (r *Report) sections() []section {
	var out []section
	if len(r.Compared) > 0 {
		s := section{title: "COMPARED", note: "base → candidate"}
		for _, c := range r.Compared {
			s.blocks = append(s.blocks, fmt.Sprintf("  %s  %s\n", c.SDK, c.line()))
		}
		out = append(out, s)
	}
	if len(r.Capabilities) > 0 {
		s := section{title: "CAPABILITIES", note: "the driver's hello"}
		var sdks []string
		per := map[string][2][]string{}
		for _, c := range r.Capabilities {
			p, ok := per[c.SDK]
			if !ok {
				sdks = append(sdks, c.SDK)
			}
			if c.Gained {
				p[0] = append(p[0], c.Capability)
			} else {
				p[1] = append(p[1], c.Capability)
			}
			per[c.SDK] = p
		}
		for _, sdk := range sdks {
			var parts []string
			if g := per[sdk][0]; len(g) > 0 {
				parts = append(parts, "gained "+strings.Join(g, ", "))
			}
			if l := per[sdk][1]; len(l) > 0 {
				parts = append(parts, "lost "+strings.Join(l, ", "))
			}
			s.blocks = append(s.blocks, fmt.Sprintf("  %s  %s\n", sdk, strings.Join(parts, "; ")))
		}
		out = append(out, s)
	}
	changes := []section{
		secRegression: {title: "REGRESSIONS", tally: "regressions", note: "fail the gate"},
		secDivergence: {title: "NEW DIVERGENCES", tally: "new divergences", note: "now an expected failure"},
		secFixed:      {title: "FIXED", tally: "fixed"},
		secSupported:  {title: "NOW SUPPORTED", tally: "now supported", note: "unsupported → passed"},
		secAllowed:    {title: "ALLOWED", tally: "allowed", note: "by flag"},
		secStatus:     {title: "OTHER STATUS CHANGES", tally: "other status changes"},
		secPayload:    {title: "PAYLOAD CHANGES PER SCENARIO", tally: "payload changes", note: "same status"},
	}
	// An SDK unavailable on one side changes every scenario of it the same way: one block per
	// SDK and change, with its count, rather than one per scenario.
	type same struct {
		rank                   int
		sdk, from, to, message string
	}
	groups := map[same][]Change{}
	for _, c := range r.Changes {
		if len(c.Payload) == 0 && c.Was == "" && (c.To == report.Unavailable || c.From == report.Unavailable) {
			k := same{c.rank(), c.SDK, c.From, c.To, c.Message}
			groups[k] = append(groups[k], c)
		}
	}
	done := map[same]bool{}
	for _, c := range r.Changes {
		k := same{c.rank(), c.SDK, c.From, c.To, c.Message}
		if g := groups[k]; len(g) > 1 && len(c.Payload) == 0 && c.Was == "" {
			if !done[k] {
				done[k] = true
				changes[k.rank].add(sameBlock(g), len(g))
			}
			continue
		}
		changes[c.rank()].add(c.block(), 1)
	}
	fieldSec := section{title: "PAYLOAD CHANGES BY FIELD", note: "across SDKs"}
	for _, f := range r.Fields {
		fieldSec.blocks = append(fieldSec.blocks, "  "+f.String()+"\n")
	}
	out = append(out, changes[secRegression], changes[secDivergence], changes[secFixed], changes[secSupported], changes[secAllowed],
		changes[secStatus], fieldSec, changes[secPayload])
	kept := out[:0]
	for _, s := range out {
		if len(s.blocks) > 0 {
			kept = append(kept, s)
		}
	}
	return kept
}

// sameBlock is one block for scenarios of one SDK changed alike (its availability).
func sameBlock(g []Change) string {
	c := g[0]
	from := c.From
	if from == "" {
		from = "(new)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "  %s  %d scenarios: %s → %s", c.SDK, len(g), from, c.To)
	if c.Message != "" {
		b.WriteString(": " + c.Message)
	}
	b.WriteString("\n")
	var names []string
	for _, x := range g[:min(len(g), 3)] {
		names = append(names, x.Feature+": "+x.Scenario)
	}
	if len(g) > 3 {
		names = append(names, fmt.Sprintf("and %d more", len(g)-3))
	}
	fmt.Fprintf(&b, "    %s\n", strings.Join(names, "; "))
	if c.AllowedBy != "" {
		fmt.Fprintf(&b, "    allowed by %s\n", c.AllowedBy)
	}
	return b.String()
}

// line says what ran on both sides.
func (c Compared) line() string {
	side := func(s *report.SDK) string {
		switch {
		case s == nil:
			return "not in the run"
		case s.Status == report.Unavailable:
			return "unavailable: " + oneLine(s.Reason, 160)
		}
		v := s.Version
		if v == "" {
			v = "(no version)"
		}
		if s.Source != "" {
			v += " (" + s.Source + ")"
		}
		return v
	}
	b, c2 := side(c.Base), side(c.Candidate)
	if c.Base != nil && c.Candidate != nil && c.Base.Status == report.Unavailable && c.Candidate.Status == report.Unavailable {
		if c.Base.Reason == c.Candidate.Reason {
			return "unavailable in both runs: " + oneLine(c.Base.Reason, 160)
		}
		return "unavailable in both runs: base: " + oneLine(c.Base.Reason, 160) + "; candidate: " + oneLine(c.Candidate.Reason, 160)
	}
	return b + " → " + c2
}

func oneLine(s string, n int) string {
	s = text.FirstLine(s)
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}

// block is one changed scenario's lines.
func (c Change) block() string {
	var b strings.Builder
	fmt.Fprintf(&b, "  %s  %s: %s\n", c.SDK, c.Feature, c.Scenario)
	if c.Was != "" {
		fmt.Fprintf(&b, "    renamed from %s\n", c.Was)
	}
	from := c.From
	if from == "" {
		from = "(new)"
	}
	line := fmt.Sprintf("    %s → %s", from, c.To)
	if c.From == c.To {
		line = "    " + c.To
	}
	if c.Message != "" && c.To != report.Passed {
		line += ": " + c.Message
	}
	b.WriteString(line + "\n")
	if c.AllowedBy != "" {
		fmt.Fprintf(&b, "    allowed by %s\n", c.AllowedBy)
	}
	for _, p := range c.Payload {
		fmt.Fprintf(&b, "    payload %s: base=%s, candidate=%s\n", p.Where, p.Base, p.Candidate)
	}
	if c.Regression && c.Rerun != "" {
		fmt.Fprintf(&b, "    rerun: %s\n", c.Rerun)
	}
	return b.String()
}

func (s section) header() string {
	h := fmt.Sprintf("%s (%d", s.title, s.count())
	if s.note != "" {
		h += "; " + s.note
	}
	return h + ")"
}

// Tally counts the changed scenarios per section: "2 regressions, 1 fixed (scenario × SDK)",
// or "no changes".
func (r *Report) Tally() string {
	var parts []string
	for _, s := range r.sections() {
		if s.tally != "" {
			parts = append(parts, fmt.Sprintf("%d %s", s.count(), s.tally))
		}
	}
	if len(parts) == 0 {
		return "no changes"
	}
	return strings.Join(parts, ", ") + " (scenario × SDK)"
}

// Text renders the diff for a terminal or a CI log: what was compared, the capabilities, then
// one block per changed scenario grouped by section, each section counted, and the tally.
func (r *Report) Text() string {
	var b strings.Builder
	for i, s := range r.sections() {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(s.header() + "\n")
		for _, bl := range s.blocks {
			b.WriteString(bl)
		}
	}
	if b.Len() > 0 {
		b.WriteString("\n")
	}
	b.WriteString(r.Tally() + "\n")
	return b.String()
}

// Markdown renders the diff as a pull-request comment of at most budget bytes (0: no limit):
// title, the tally, then the sections in the text's order, each in a code block. When the whole
// does not fit, it is cut from the least important end (each scenario's payload changes first,
// then the payload changes by field, and so on up): every section that does not fit whole
// is shown as far as it fits, the ones after it not at all, and a closing line names what was
// cut and where the full diff is (full, e.g. the uploaded artifact).
func (r *Report) Markdown(title string, budget int, full string) string {
	var head strings.Builder
	if title != "" {
		head.WriteString(title + "\n\n")
	}
	head.WriteString("**" + r.Tally() + "**\n")
	secs := r.sections()
	render := func(s section, n int) string {
		h := s.header()
		if n < len(s.blocks) {
			h = fmt.Sprintf("%s (%d of %d shown", s.title, s.countOf(n), s.count())
			if s.note != "" {
				h += "; " + s.note
			}
			h += ")"
		}
		return "\n#### " + h + "\n\n```text\n" + fence(strings.Join(s.blocks[:n], "")) + "```\n"
	}
	var cut []string
	cutNote := func() string {
		if len(cut) == 0 {
			return ""
		}
		where := full
		if where == "" {
			where = "`conformance diff` of the two results.json"
		}
		return "\n_Cut to stay within " + fmt.Sprint(budget) + " bytes: " + strings.Join(cut, "; ") + ". The full diff: " + where + "._\n"
	}
	// The note's room is reserved before anything is cut: at most every section named once.
	reserve := 0
	if budget > 0 {
		var all []string
		for _, s := range secs {
			all = append(all, fmt.Sprintf("%s (%d of %d entries)", strings.ToLower(s.title), s.count(), s.count()))
		}
		cut = all
		reserve = len(cutNote())
		cut = nil
	}
	var b strings.Builder
	b.WriteString(head.String())
	fits := true
	for _, s := range secs {
		if !fits {
			cut = append(cut, fmt.Sprintf("%s (%d entries)", strings.ToLower(s.title), s.count()))
			continue
		}
		whole := render(s, len(s.blocks))
		if budget <= 0 || b.Len()+len(whole)+reserve <= budget {
			b.WriteString(whole)
			continue
		}
		fits = false
		n := len(s.blocks)
		for n > 0 && b.Len()+len(render(s, n))+reserve > budget {
			n--
		}
		if n > 0 {
			b.WriteString(render(s, n))
		}
		cut = append(cut, fmt.Sprintf("%s (%d of %d entries)", strings.ToLower(s.title), s.count()-s.countOf(n), s.count()))
	}
	b.WriteString(cutNote())
	return b.String()
}

// fence keeps a value that holds a code fence from closing the block.
func fence(s string) string { return strings.ReplaceAll(s, "```", "`\u200b``") }
