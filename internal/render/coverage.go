package render

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/coverage"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
)

// schemaCoverage is summary.md's compact view of report.Coverage: per SDK how many of the
// schema's methods it sent and answered, one line per exercised method (who, and from which
// features), and how many methods nothing exercised (their list is results.json's
// coverage.unexercised).
func schemaCoverage(r *report.Results) string {
	c := r.Coverage
	if c == nil || len(c.Exercised) == 0 {
		return ""
	}
	var b strings.Builder
	inSchema := map[string]bool{}
	for _, u := range c.Exercised {
		if u.InSchema {
			inSchema[u.Method] = true
		}
	}
	b.WriteString("\n## Runtime schema coverage\n\n")
	if c.Methods > 0 {
		fmt.Fprintf(&b, "%d of the schema's %d methods exercised (sent by an SDK, or a runtime request an SDK answered); "+
			"**%d never exercised** (listed in results.json, `coverage.unexercised`).\n\n", len(inSchema), c.Methods, len(c.Unexercised))
	} else {
		b.WriteString("No runtime schema was loaded: the methods below are what the SDKs exercised.\n\n")
	}
	b.WriteString("| SDK | methods sent | requests answered |\n|---|---|---|\n")
	for _, s := range c.SDKs {
		fmt.Fprintf(&b, "| %s | %d | %d |\n", cell(s.SDK), s.Sent, s.Answered)
	}
	b.WriteString(sweepTable(c))
	if len(c.Exercised) > maxMethodRows {
		b.WriteString(byNamespace(c))
		return b.String()
	}
	b.WriteString("\n| method | | SDKs | features |\n|---|---|---|---|\n")
	for _, u := range c.Exercised {
		method := "`" + u.Method + "`"
		if !u.InSchema && c.Methods > 0 {
			method += " (not in the schema)"
		}
		sdks := strings.Join(u.SDKs, ", ")
		if len(u.SDKs) == len(c.SDKs) {
			sdks = "all"
		}
		features := strings.Join(u.Features, ", ")
		if len(u.Features) > 2 { // the summary stays short; results.json lists them all
			features = fmt.Sprintf("%d features", len(u.Features))
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", method, u.Direction, cell(sdks), cell(features))
	}
	return b.String()
}

// maxMethodRows: past this many exercised methods (the schema sweep exercises hundreds) the
// summary lists them per namespace, so that it stays under its size bound; results.json lists
// every method.
const maxMethodRows = 40

// byNamespace is the exercised methods grouped by namespace (the method name up to its last dot).
func byNamespace(c *report.Coverage) string {
	type group struct {
		methods                 int
		directions, sdks, feats map[string]bool
	}
	groups := map[string]*group{}
	var order []string
	for _, u := range c.Exercised {
		ns := u.Method
		if i := strings.LastIndex(ns, "."); i > 0 {
			ns = ns[:i]
		}
		if !u.InSchema && c.Methods > 0 {
			ns += " (not in the schema)"
		}
		g := groups[ns]
		if g == nil {
			g = &group{directions: map[string]bool{}, sdks: map[string]bool{}, feats: map[string]bool{}}
			groups[ns] = g
			order = append(order, ns)
		}
		g.methods++
		g.directions[u.Direction] = true
		for _, s := range u.SDKs {
			g.sdks[s] = true
		}
		for _, f := range u.Features {
			g.feats[f] = true
		}
	}
	// One line per kind of use (directions, SDKs, features), naming its namespaces with their
	// method counts: the sweep's hundreds of methods fit in a few lines.
	type line struct {
		use string
		nss []string
		n   int // namespaces, before the cap
	}
	var lines []*line
	byUse := map[string]*line{}
	for _, ns := range order {
		g := groups[ns]
		sdks := strings.Join(slices.Sorted(maps.Keys(g.sdks)), ", ")
		if len(g.sdks) == len(c.SDKs) {
			sdks = "all SDKs"
		}
		feats := strings.Join(slices.Sorted(maps.Keys(g.feats)), ", ")
		if len(g.feats) > 2 {
			feats = fmt.Sprintf("%d features", len(g.feats))
		}
		use := fmt.Sprintf("%s by %s (%s)", strings.Join(slices.Sorted(maps.Keys(g.directions)), ", "), sdks, feats)
		if byUse[use] == nil {
			byUse[use] = &line{use: use}
			lines = append(lines, byUse[use])
		}
		byUse[use].nss = append(byUse[use].nss, fmt.Sprintf("`%s` %d", ns, g.methods))
	}
	for _, l := range lines {
		l.n = len(l.nss)
		if len(l.nss) > maxNamespaces {
			l.nss = append(l.nss[:maxNamespaces:maxNamespaces], fmt.Sprintf("%d more", len(l.nss)-maxNamespaces))
		}
	}
	// The kinds of use with the most namespaces first.
	sort.SliceStable(lines, func(i, j int) bool { return lines[i].n > lines[j].n })
	var b strings.Builder
	b.WriteString("\nExercised methods per namespace (each method is listed in results.json, `coverage.exercised`):\n\n")
	for i, l := range lines {
		if i == maxUseLines {
			fmt.Fprintf(&b, "- %d more kinds of use: `coverage.exercised` in results.json\n", len(lines)-i)
			break
		}
		fmt.Fprintf(&b, "- %s: %s\n", cell(l.use), strings.Join(l.nss, ", "))
	}
	return b.String()
}

// sweepTable is, per SDK, how much of the schemas it covered and, grouped by reason, why not the
// rest (results.json's coverage.sweep names every item).
func sweepTable(c *report.Coverage) string {
	if len(c.Sweep) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\nEvery method and event type, per SDK (uncovered ones by reason; each is named in results.json, `coverage.sweep`):\n\n")
	b.WriteString("| SDK | methods sent or answered | of which runtime-to-SDK handled | event types received | not covered, why |\n|---|---|---|---|---|\n")
	for _, s := range c.Sweep {
		count := map[string]int{}
		var reasons []string
		for _, u := range s.Uncovered {
			if u.Kind == "handler" && s.Handlers > 0 {
				continue // handlerLines
			}
			r := u.Reason
			if i := strings.Index(r, ": "); i > 0 && strings.HasPrefix(r, "unsupported: ") {
				r = "unsupported (not generated, or no rpc.generated)"
			}
			if count[r] == 0 {
				reasons = append(reasons, r)
			}
			count[r]++
		}
		var parts []string
		for _, r := range reasons {
			parts = append(parts, fmt.Sprintf("%d %s", count[r], shortReason(r)))
		}
		handlers := "-"
		if s.Handlers > 0 {
			handlers = fmt.Sprintf("%d of %d", s.HandlersCovered, s.Handlers)
			if s.HandlersCalled > 0 {
				handlers += fmt.Sprintf(" (+%d called without a handler)", s.HandlersCalled)
			}
		}
		fmt.Fprintf(&b, "| %s | %d of %d | %s | %d of %d | %s |\n", cell(s.SDK), s.Covered, s.Methods, handlers, s.Events, s.EventTypes, cell(strings.Join(parts, "; ")))
	}
	b.WriteString(handlerLines(c))
	return b.String()
}

// handlerLines names, per SDK, the runtime-to-SDK methods no application handler received,
// grouped by a short reason: a driver gap, or no public handler API in the SDK, and then what
// the SDK answered when the runtime called the method anyway (the JSON-RPC error code; the
// message, which names the session, is in results.json).
func handlerLines(c *report.Coverage) string {
	var b strings.Builder
	// SDKs with the same methods and reasons share a line.
	var texts []string
	sdksOf := map[string][]string{}
	for _, s := range c.Sweep {
		groups := map[string][]string{}
		var order []string
		for _, u := range s.Uncovered {
			if u.Kind != "handler" {
				continue
			}
			r := handlerReason(u.Reason)
			if groups[r] == nil {
				order = append(order, r)
			}
			groups[r] = append(groups[r], "`"+u.Name+"`")
		}
		if len(order) == 0 {
			continue
		}
		var parts []string
		for _, r := range order {
			if g := groups[r]; len(g) > maxHandlerNames {
				groups[r] = append(g[:maxHandlerNames:maxHandlerNames], fmt.Sprintf("%d more", len(g)-maxHandlerNames))
			}
			parts = append(parts, fmt.Sprintf("%s: %s", r, strings.Join(groups[r], ", ")))
		}
		t := strings.Join(parts, "; ")
		if sdksOf[t] == nil {
			texts = append(texts, t)
		}
		sdksOf[t] = append(sdksOf[t], s.SDK)
	}
	if len(texts) == 0 {
		return ""
	}
	b.WriteString("\nRuntime-to-SDK methods no application handler received, per SDK:\n\n")
	for _, t := range texts {
		fmt.Fprintf(&b, "- %s: %s\n", strings.Join(sdksOf[t], ", "), t)
	}
	return b.String()
}

// handlerReason is a runtime-to-SDK method's coverage reason in a few words.
func handlerReason(r string) string {
	why, answer, called := strings.Cut(r, "; "+coverage.CalledWithoutHandler)
	short := shortReason(why)
	switch {
	case strings.HasPrefix(why, "unsupported: driver:"):
		short = "driver gap"
	case strings.HasPrefix(why, "unsupported: "):
		short = "no public handler API"
	}
	if called {
		if f := strings.Fields(answer); len(f) >= 2 && f[0] == "error" {
			answer = "error " + f[1]
		}
		short += ", called anyway: " + answer
	}
	return short
}

// maxNamespaces is how many namespaces one line of exercised methods names, maxUseLines how
// many such lines there are, and maxHandlerNames how many methods a line of unreceived
// runtime-to-SDK methods names per reason; results.json's coverage names every one.
const (
	maxNamespaces   = 5
	maxUseLines     = 3
	maxHandlerNames = 4
)

// shortReason is a coverage reason as the summary's table words it (results.json has it whole).
func shortReason(r string) string {
	for _, k := range []struct{ prefix, short string }{
		{"runtime-to-SDK method: sent to the SDK and answered", "answered, handler never reported"},
		{"runtime-to-SDK method", "not run"},
		{"visibility internal", "internal"},
		{"sent by the runtime; the application", "never received"},
		{"the sweep called it", "raised before sending"},
		{"no scenario of this run", "not run"},
	} {
		if strings.HasPrefix(r, k.prefix) {
			return k.short
		}
	}
	return r
}
