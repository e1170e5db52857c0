package render

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/report/html"
	"github.com/copilot-sdk-conformance/conformance/internal/surface"
	"github.com/copilot-sdk-conformance/conformance/internal/text"
)

// MaxSummaryBytes bounds summary.md: a reader of a CI job summary sees the verdict and what to
// act on in a page or two (GitHub rejects a job summary over 1 MiB per step). Each section caps
// its own rows, with "N more" and where they are (report.html, results.json), so a full run of
// every SDK fits; a section that would still take the summary past the bound is cut, or left
// out and named at the end.
const MaxSummaryBytes = 20 * 1024

// Markdown writes summary.md (fit for $GITHUB_STEP_SUMMARY).
func Markdown(dir string, r *report.Results) error {
	return os.WriteFile(filepath.Join(dir, "summary.md"), []byte(MarkdownText(r)), 0o644)
}

// icons are the matrix cells; the legend under the matrix names them.
var icons = map[string]string{report.Passed: "✅", report.Failed: "❌", report.XFail: "⚠️", report.XPass: "❗",
	report.Unsupported: "➖", report.Unavailable: "⛔", report.Skipped: "⏭️"}

var statusOrder = []string{report.Failed, report.XPass, report.Passed, report.XFail, report.Unsupported, report.Skipped, report.Unavailable}

// MarkdownText renders the summary in the order a reviewer reads it: the verdict and the matrix,
// the failures with what to look at and how to rerun them, the differences between SDKs, then
// what did not run (grouped, one line per SDK and missing capability), the runtime schema and
// the timing observations. Sections that would take it past MaxSummaryBytes are left out with a
// pointer to the full report.
func MarkdownText(r *report.Results) string {
	r = report.ByTarget(r) // a run of several versions of one SDK has a column per SDK@version
	parts := []string{
		header(r),
		matrix(r),
		failures(r),
		expectedFailures(r),
		crossSDK(r),
		differences(r),
		observations(r),
		notRun(r),
		schemaViolations(r),
		schemaCoverage(r),
		timingSection(r),
		surfaceMatrix(r),
	}
	return assemble(parts, MaxSummaryBytes)
}

// assemble joins the sections within limit bytes: a section that does not fit in what is left
// is cut at a line's end when much of it fits (closing a code block cut open), or else left
// out; the last line names what was cut or left out and where it is in full.
func assemble(parts []string, limit int) string {
	const reserve = 600 // the closing pointer, with the names of the sections it lists
	var b strings.Builder
	var left []string
	for _, p := range parts {
		if p == "" {
			continue
		}
		room := limit - reserve - b.Len()
		if len(p) <= room {
			b.WriteString(p)
			continue
		}
		name := sectionName(p)
		if room >= 2048 {
			// A cut that would keep the heading alone leaves the section out.
			if i := strings.LastIndexByte(p[:room-8], '\n'); i > 0 && hasBody(p[:i+1]) {
				b.WriteString(p[:i+1])
				if strings.Count(p[:i+1], "```")%2 == 1 { // cut inside a code block: close it
					b.WriteString("```\n")
				}
				left = append(left, name+" (cut)")
				continue
			}
		}
		left = append(left, name)
	}
	// No sentence may send the reader to a section this file left out: a pointer to one
	// ("(*Cross-SDK field differences*)") points to the full report instead.
	text := b.String()
	for _, n := range left {
		if !strings.HasSuffix(n, " (cut)") {
			text = strings.ReplaceAll(text, "("+n+")", "("+strings.Trim(n, "*")+": in `report.html`, left out here)")
		}
	}
	b.Reset()
	b.WriteString(text)
	if len(left) > 0 {
		fmt.Fprintf(&b, "\n---\n\nLeft out to keep this summary within %d KB: %s. Every result, transcript and difference is in `report.html` and `results.json` beside this file.\n",
			limit/1024, clipTo(strings.Join(left, ", "), reserve-200))
	}
	return b.String()
}

// hasBody says whether a section's text holds a line besides its heading.
func hasBody(p string) bool {
	n := 0
	for _, l := range strings.Split(p, "\n") {
		if strings.TrimSpace(l) != "" {
			n++
		}
	}
	return n > 1
}

// sectionName is a section's heading, for the closing pointer.
func sectionName(p string) string {
	for _, l := range strings.Split(p, "\n") {
		if h, ok := strings.CutPrefix(l, "## "); ok {
			return "*" + h + "*"
		}
	}
	return "a section"
}

// header is the verdict, the counts and the SDK table.
func header(r *report.Results) string {
	var b strings.Builder
	// The run's exit status: a failing result, or a cross-SDK field difference not known (or
	// known and no longer observed), fails it.
	cross, stale := r.CrossSDKFailing(), len(r.StaleViolations)
	failing := r.Totals[report.Failed] + r.Totals[report.XPass] + cross + stale
	verdict := "✅ **PASS**: every result passed or failed only as known"
	if failing > 0 {
		verdict = fmt.Sprintf("❌ **FAIL**: %d failed, %d passed unexpectedly (xpass)", r.Totals[report.Failed], r.Totals[report.XPass])
		if cross > 0 {
			verdict += fmt.Sprintf(", %d cross-SDK field %s failing (*Cross-SDK field differences*)", cross, plural(cross, "difference"))
		}
		if stale > 0 {
			verdict += fmt.Sprintf(", %d known schema %s not observed", stale, plural(stale, "violation"))
		}
	}
	// An incomplete run is never a PASS: what it did not report could have failed.
	if h := r.Completeness.Headline(); h != "" {
		h = strings.Replace(h, "INCOMPLETE", "**INCOMPLETE**", 1)
		if failing > 0 {
			verdict += "; ⚠️ " + h
		} else {
			verdict = "⚠️ " + h
		}
	}
	var counts []string
	for _, s := range statusOrder {
		if n := r.Totals[s]; n > 0 {
			counts = append(counts, fmt.Sprintf("%d %s", n, s))
		}
	}
	fmt.Fprintf(&b, "# Copilot SDK conformance\n\n%s. %s.\n\n", verdict, strings.Join(counts, ", "))
	if c := r.Completeness; r.Incomplete() {
		b.WriteString("Planned results without one (each a scenario on an SDK; `completeness.missing` in results.json):\n\n")
		for i, m := range c.Missing {
			if i == maxMissing {
				fmt.Fprintf(&b, "- and %d more: `completeness.missing` in results.json\n", len(c.Missing)-i)
				break
			}
			fmt.Fprintf(&b, "- %s / %s on %s: %s\n", m.Feature, clipTo(m.Scenario, 200), report.Target(m.SDK, m.Version), clipTo(m.Reason, 300))
		}
		for _, p := range c.Allowed {
			fmt.Fprintf(&b, "- merged with `--allow-incomplete`: %s\n", p)
		}
		b.WriteString("\n")
	}
	b.WriteString(toFix(r))
	if len(r.StaleViolations) > 0 {
		b.WriteString("Known schema violations not observed (fixed: remove each entry or narrow its versions):\n\n")
		for i, v := range r.StaleViolations {
			if i == maxViolations {
				fmt.Fprintf(&b, "- and %d more: `staleViolations` in results.json\n", stale-i)
				break
			}
			fmt.Fprintf(&b, "- %s\n", clipTo(v, 300))
		}
		b.WriteString("\n")
	}
	// An SDK that cannot talk to the current runtime is a headline, whatever its results say:
	// they were measured against an older runtime's shapes.
	for _, s := range r.SDKs {
		if s.Runtime != "" {
			fmt.Fprintf(&b, "⚠️ **%s %s %s**\n\n", s.Name, s.Version, clipTo(s.Runtime, 400))
		}
	}
	fmt.Fprintf(&b, "The full report, with every transcript as a conversation and a diff against any other SDK: `%s` (open it in a browser; `report.png` is a picture of it). Machine-readable: `results.json`.\n\n", html.FileName)

	per := map[string]map[string]int{}
	for _, x := range r.Results {
		if per[x.SDK] == nil {
			per[x.SDK] = map[string]int{}
		}
		per[x.SDK][x.Status]++
	}
	b.WriteString("| SDK | version | results | source |\n|---|---|---|---|\n")
	for _, s := range r.SDKs {
		detail := s.Source
		if s.Status != report.Available {
			detail = "**unavailable**: " + firstSentence(s.Reason)
		} else if s.Runtime != "" {
			detail += "; **cannot connect to the current runtime** (above)"
		}
		var cs []string
		for _, st := range statusOrder {
			if n := per[s.Name][st]; n > 0 {
				cs = append(cs, fmt.Sprintf("%d %s", n, st))
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", s.Name, s.Version, strings.Join(cs, ", "), cell(detail))
	}
	// A value built through the SDK's own deserializer cannot show a serializer mistake, so the
	// drivers' tallies of such types stay in sight.
	var built []string
	for _, s := range r.SDKs {
		if n := s.Notes[report.BuiltByNote]; n != "" {
			built = append(built, fmt.Sprintf("%s: %s", s.Name, clipTo(n, 400)))
		}
	}
	if len(built) > 0 {
		fmt.Fprintf(&b, "\nSDK values the drivers build from JSON (drivers/PROTOCOL.md \"Building SDK values\"; `notes[\"%s\"]` in results.json): %s.\n", report.BuiltByNote, strings.Join(built, "; "))
	}
	return b.String()
}

// maxMissing is the most missing results the summary lists one by one.
const maxMissing = 20

// maxScenarioRows is the most scenarios the summary shows one row each; a larger run gets one
// row per feature.
const maxScenarioRows = 50

// matrix is the scenario-by-SDK table for a run of a few scenarios; for a larger run it is the
// feature-by-SDK table: per cell, how many of the feature's scenarios ended in each status (a
// full run has over a hundred scenarios, too many rows for a summary read in a minute; the
// scenario matrix is report.html's, and every scenario that needs a look is listed below).
func matrix(r *report.Results) string {
	if m, ok := scenarioMatrix(r); ok {
		return m
	}
	var b strings.Builder
	var sdks []string
	for _, s := range r.SDKs {
		sdks = append(sdks, s.Name)
	}
	cells := map[string]map[string]map[string]int{}
	scenarios := map[string]map[string]bool{}
	var features []string
	for _, x := range r.Results {
		if cells[x.Feature] == nil {
			cells[x.Feature] = map[string]map[string]int{}
			scenarios[x.Feature] = map[string]bool{}
			features = append(features, x.Feature)
		}
		if cells[x.Feature][x.SDK] == nil {
			cells[x.Feature][x.SDK] = map[string]int{}
		}
		cells[x.Feature][x.SDK][x.Status]++
		scenarios[x.Feature][x.Scenario] = true
	}
	b.WriteString("\n## Features by SDK\n\nScenarios per status in each feature; `report.html` has the scenario-by-SDK matrix.\n\n| feature | scenarios |")
	for _, s := range sdks {
		fmt.Fprintf(&b, " %s |", s)
	}
	b.WriteString("\n|---|--:|" + strings.Repeat("---|", len(sdks)) + "\n")
	for _, f := range features {
		fmt.Fprintf(&b, "| %s | %d |", strings.TrimSuffix(f, ".feature"), len(scenarios[f]))
		for _, s := range sdks {
			var parts []string
			for _, st := range statusOrder {
				if n := cells[f][s][st]; n > 0 {
					parts = append(parts, fmt.Sprintf("%s%d", icons[st], n))
				}
			}
			fmt.Fprintf(&b, " %s |", strings.Join(parts, " "))
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "\n%s\n", legend())
	return b.String()
}

func scenarioMatrix(r *report.Results) (string, bool) {
	type row struct{ feature, scenario string }
	cells := map[row]map[string]string{}
	var rows []row
	for _, x := range r.Results {
		k := row{x.Feature, x.Scenario}
		if cells[k] == nil {
			cells[k] = map[string]string{}
			rows = append(rows, k)
		}
		cells[k][x.SDK] = x.Status
	}
	if len(rows) > maxScenarioRows {
		return "", false
	}
	var b strings.Builder
	b.WriteString("\n## Scenarios by SDK\n\n| feature | scenario |")
	for _, s := range r.SDKs {
		fmt.Fprintf(&b, " %s |", s.Name)
	}
	b.WriteString("\n|---|---|" + strings.Repeat(":-:|", len(r.SDKs)) + "\n")
	for _, k := range rows {
		fmt.Fprintf(&b, "| %s | %s |", strings.TrimSuffix(k.feature, ".feature"), cell(k.scenario))
		for _, s := range r.SDKs {
			fmt.Fprintf(&b, " %s |", icons[cells[k][s.Name]])
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "\n%s\n", legend())
	return b.String(), true
}

// Failure caps, per scenario and status (its SDKs together): the first maxFailureDetails
// (failed before xpass, in the run's order) in full: the message up to maxMessageBytes (a
// sweep's message lists every divergent item: the first lines, then how many more), at most
// maxPayloadLines payload paths, the transcripts and the rerun command; the next maxFailureLines
// one line each; a count of the rest. results.json and report.html hold every failure whole.
const (
	maxFailureDetails = 5
	maxMessageBytes   = 900
	maxPayloadLines   = 3
	maxFailureLines   = 15
)

// failures lists the failed and xpass results with their message (the step, expected and
// observed), the payload paths where the SDKs differ at a checked path, the transcripts and the
// command that reruns them, within the caps above.
func failures(r *report.Results) string {
	normative := map[[2]string][]report.Difference{}
	var sdksOf = map[[2]string][]string{}
	for _, c := range r.Comparisons {
		for _, d := range c.Differences {
			if d.Class == report.Normative {
				k := [2]string{c.Feature, c.Scenario}
				normative[k] = append(normative[k], d)
				sdksOf[k] = c.SDKs
			}
		}
	}
	// One group per scenario and status: a scenario failing on several SDKs is one thing to act
	// on, shown once with what differs per SDK.
	var groups [][]report.Result
	index := map[[3]string]int{}
	total := 0
	for _, st := range []string{report.Failed, report.XPass} {
		for _, x := range r.Results {
			if x.Status != st {
				continue
			}
			total++
			k := [3]string{x.Feature, x.Scenario, x.Status}
			if i, ok := index[k]; ok {
				groups[i] = append(groups[i], x)
				continue
			}
			index[k] = len(groups)
			groups = append(groups, []report.Result{x})
		}
	}
	if total == 0 {
		return ""
	}
	// What one SDK (or some) fails is what a reviewer sends to that SDK: first; what every SDK
	// that ran the scenario fails (a feature, the harness, or all SDKs at once) after it.
	everywhere := onEvery(r)
	sort.SliceStable(groups, func(i, j int) bool {
		return !everywhere(groups[i]) && everywhere(groups[j])
	})
	var b strings.Builder
	fmt.Fprintf(&b, "\n## Failures\n\n%d to act on", total)
	if len(groups) < total {
		fmt.Fprintf(&b, ", in %d %s", len(groups), plural(len(groups), "scenario"))
	}
	if len(groups) > maxFailureDetails {
		fmt.Fprintf(&b, "; the first %d in full", maxFailureDetails)
	}
	b.WriteString(" (every one with its whole message, transcript and rerun command: `report.html`, `results.json`).\n")
	for i, g := range groups {
		x := g[0]
		if i == maxFailureDetails {
			b.WriteString("\n")
		}
		if i >= maxFailureDetails+maxFailureLines {
			rest := 0
			for _, g := range groups[i:] {
				rest += len(g)
			}
			fmt.Fprintf(&b, "\n%d more: `status` failed or xpass in results.json, ❌ and ❗ cells in report.html.\n", rest)
			break
		}
		var sdks []string
		for _, y := range g {
			sdks = append(sdks, y.SDK)
		}
		on := strings.Join(sdks, ", ")
		if i >= maxFailureDetails {
			if everywhere(g) {
				on = "every SDK that ran it: " + on
			}
			fmt.Fprintf(&b, "- **%s** on %s (%s, `%s`): %s\n", x.Scenario, on, x.Status, x.Feature, clipTo(report.Gist(x.Message), 160))
			continue
		}
		if everywhere(g) {
			on = "every SDK that ran it: " + on
		}
		fmt.Fprintf(&b, "\n### %s on %s (%s)\n\n`%s`\n\n```\n%s\n```\n", x.Scenario, on, x.Status, x.Feature, clipMessage(strings.TrimSpace(x.Message), maxMessageBytes))
		for _, y := range g[1:] {
			if l, differs := firstDifferentLine(x.Message, y.Message); differs {
				fmt.Fprintf(&b, "- %s's message differs at: %s\n", y.SDK, clipTo(l, 160))
			} else {
				fmt.Fprintf(&b, "- %s: the same message\n", y.SDK)
			}
		}
		k := [2]string{x.Feature, x.Scenario}
		for j, d := range normative[k] {
			if j == maxPayloadLines {
				fmt.Fprintf(&b, "- %d more payload paths: `comparisons` in results.json\n", len(normative[k])-j)
				break
			}
			if len(g) > 1 {
				fmt.Fprintf(&b, "- payload `%s %s`: %s\n", d.Request, d.Path, valuesClipped(sdksOf[k], d.Values, 60))
				continue
			}
			var others []string
			for _, s := range sdksOf[k] {
				if s != x.SDK {
					others = append(others, s+"="+d.Values[s])
				}
			}
			fmt.Fprintf(&b, "- payload `%s %s`: %s=%s; %s\n", d.Request, d.Path, x.SDK, clip(d.Values[x.SDK]), clip(strings.Join(others, ", ")))
		}
		for _, y := range g {
			if y.Transcript == "" {
				continue
			}
			if len(g) > 1 {
				fmt.Fprintf(&b, "- transcript (%s): `%s`\n", y.SDK, y.Transcript)
			} else {
				fmt.Fprintf(&b, "- transcript: `%s`\n", y.Transcript)
			}
		}
		if rerun, ok := oneRerun(g); ok {
			fmt.Fprintf(&b, "- rerun: `%s`\n", rerun)
			continue
		}
		for _, y := range g {
			if y.Rerun != "" {
				fmt.Fprintf(&b, "- rerun (%s): `%s`\n", y.SDK, y.Rerun)
			}
		}
	}
	return b.String()
}

// firstDifferentLine is the first line of b that differs from a's line at the same place, from
// a little before where it differs.
func firstDifferentLine(a, b string) (string, bool) {
	al, bl := strings.Split(strings.TrimSpace(a), "\n"), strings.Split(strings.TrimSpace(b), "\n")
	for i, l := range bl {
		if i >= len(al) {
			return l, true
		}
		if al[i] == l {
			continue
		}
		p := 0
		for p < len(l) && p < len(al[i]) && l[p] == al[i][p] {
			p++
		}
		if p -= 30; p <= 0 {
			return l, true
		}
		for p < len(l) && !utf8.RuneStart(l[p]) {
			p++
		}
		return "…" + l[p:], true
	}
	if len(al) > len(bl) {
		return "(fewer lines)", true
	}
	return "", false
}

// oneRerun is the group's rerun commands as one, when they differ only in --sdk: that flag
// then names every SDK of the group.
func oneRerun(g []report.Result) (string, bool) {
	if len(g) == 1 {
		return g[0].Rerun, g[0].Rerun != ""
	}
	var sdks []string
	common := ""
	for i, y := range g {
		flag := "--sdk " + y.SDK + " "
		if !strings.Contains(y.Rerun, flag) {
			return "", false
		}
		generic := strings.Replace(y.Rerun, flag, "--sdk \x00 ", 1)
		if i > 0 && generic != common {
			return "", false
		}
		common = generic
		sdks = append(sdks, y.SDK)
	}
	return strings.Replace(common, "\x00", strings.Join(sdks, ","), 1), true
}

// clipMessage keeps a message's first lines within n bytes (each line at most 240 characters)
// and says how many lines are left out.
func clipMessage(msg string, n int) string {
	lines := strings.Split(msg, "\n")
	var out []string
	size := 0
	for i, l := range lines {
		l = clipTo(l, 240)
		if size+len(l) > n && i > 0 {
			out = append(out, fmt.Sprintf("… %d more lines (results.json, report.html)", len(lines)-i))
			break
		}
		out = append(out, l)
		size += len(l) + 1
	}
	return strings.ReplaceAll(strings.Join(out, "\n"), "```", "` ` `")
}

// maxXFailFeatures and maxXFailScenarios cap the expected failures: rows of features, then the
// scenarios known to fail on the most SDKs.
const (
	maxXFailFeatures  = 8
	maxXFailScenarios = 3
)

// expectedFailures collapses the known divergences that failed as expected: per feature, how
// many on each SDK; then the scenarios known to fail on several SDKs, with what each observed
// (a sweep's count of divergent items per SDK). Each result's manifest entry and message is in
// results.json (`expected`, `message`) and report.html.
func expectedFailures(r *report.Results) string {
	type feature struct {
		name string
		n    int
		per  map[string]int
	}
	type scenario struct {
		feature, name string
		sdks, msgs    []string
	}
	var feats []*feature
	fi := map[string]*feature{}
	var scens []*scenario
	si := map[[2]string]*scenario{}
	total := 0
	for _, x := range r.Results {
		if x.Status != report.XFail {
			continue
		}
		total++
		f := fi[x.Feature]
		if f == nil {
			f = &feature{name: x.Feature, per: map[string]int{}}
			fi[x.Feature] = f
			feats = append(feats, f)
		}
		f.n++
		f.per[x.SDK]++
		k := [2]string{x.Feature, x.Scenario}
		if si[k] == nil {
			si[k] = &scenario{feature: x.Feature, name: x.Scenario}
			scens = append(scens, si[k])
		}
		si[k].sdks = append(si[k].sdks, x.SDK)
		si[k].msgs = append(si[k].msgs, observed(x.Message))
	}
	if total == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n## Expected failures (known divergences)\n\n%d results failed as their manifest entry (fixtures/expected-failures.yaml, with the reason) expects. Each one's entry and message: `expected`, `message` in results.json; ⚠️ cells in report.html.\n\n", total)
	b.WriteString("| feature | xfail | per SDK |\n|---|--:|---|\n")
	sort.SliceStable(feats, func(i, j int) bool { return feats[i].n > feats[j].n })
	for i, f := range feats {
		if i == maxXFailFeatures {
			rest := 0
			for _, g := range feats[i:] {
				rest += g.n
			}
			fmt.Fprintf(&b, "| %d more features | %d | |\n", len(feats)-i, rest)
			break
		}
		var per []string
		for _, s := range r.SDKs {
			if n := f.per[s.Name]; n > 0 {
				per = append(per, fmt.Sprintf("%s %d", s.Name, n))
			}
		}
		fmt.Fprintf(&b, "| %s | %d | %s |\n", strings.TrimSuffix(f.name, ".feature"), f.n, strings.Join(per, ", "))
	}
	sort.SliceStable(scens, func(i, j int) bool { return len(scens[i].sdks) > len(scens[j].sdks) })
	var lines []string
	for _, sc := range scens {
		if len(sc.sdks) < 2 {
			break
		}
		lines = append(lines, fmt.Sprintf("- **%s** (%s): %s", clipTo(sc.name, 80), strings.TrimSuffix(sc.feature, ".feature"), perSDK(sc.sdks, sc.msgs)))
	}
	if len(lines) > 0 {
		b.WriteString("\nKnown to fail on several SDKs:\n\n")
		if len(lines) > maxXFailScenarios {
			lines = append(lines[:maxXFailScenarios:maxXFailScenarios], fmt.Sprintf("- %d more scenarios on several SDKs", len(lines)-maxXFailScenarios))
		}
		b.WriteString(strings.Join(lines, "\n") + "\n")
	}
	return b.String()
}

// observed is a failure's first line without the step's own text (the scenario names it).
func observed(msg string) string {
	msg = text.FirstLine(msg)
	if strings.HasPrefix(msg, `step "`) {
		if i := strings.Index(msg, `": `); i > 0 {
			msg = msg[i+3:]
		}
	}
	return msg
}

// perSDK words what several SDKs observed in one scenario: when each message is a count of the
// same thing (a sweep's "26 generated events did not …"), the counts per SDK and the thing
// once; else the SDKs and the first SDK's message.
func perSDK(sdks, msgs []string) string {
	var counts []string
	var what string
	for i, m := range msgs {
		n, tail, ok := leadingCount(m)
		if !ok || (i > 0 && clipTo(tail, 50) != clipTo(what, 50)) {
			counts = nil
			break
		}
		what = tail
		counts = append(counts, sdks[i]+" "+n)
	}
	if counts != nil {
		return strings.Join(counts, ", ") + ": " + clipTo(what, 60)
	}
	return strings.Join(sdks, ", ") + ": " + clipTo(msgs[0], 60)
}

// leadingCount splits "26 generated events …" or "2 of 405 field values …" into the count and
// the rest.
func leadingCount(m string) (count, rest string, ok bool) {
	f := strings.SplitN(m, " ", 4)
	if len(f) < 2 {
		return "", "", false
	}
	if _, err := strconv.Atoi(f[0]); err != nil {
		return "", "", false
	}
	if len(f) == 4 && f[1] == "of" {
		if _, err := strconv.Atoi(f[2]); err == nil {
			return f[0] + " of " + f[2], f[3], true
		}
	}
	return f[0], strings.SplitN(m, " ", 2)[1], true
}

// maxNotRun caps the not-run lines.
const maxNotRun = 8

// notRun groups what did not run: per SDK and missing capability (or reason), one line with the
// number of scenarios, never one line per scenario.
func notRun(r *report.Results) string {
	type key struct{ sdk, status, what, why string }
	count := map[key]int{}
	var order []key
	notes := map[string]map[string]string{} // SDK -> capability -> the driver's note
	for _, s := range r.SDKs {
		if notes[s.Name] == nil {
			notes[s.Name] = s.Notes
		}
	}
	for _, x := range r.Results {
		if x.Status != report.Unsupported && x.Status != report.Unavailable && x.Status != report.Skipped {
			continue
		}
		k := key{sdk: x.SDK, status: x.Status, why: text.FirstLine(x.Message)}
		if x.Capability != "" {
			// The capability is the record's; the driver's note about it says why, when it has one.
			k.what = x.Capability
			if n := notes[x.SDK][x.Capability]; n != "" {
				k.why = text.FirstLine(n)
			}
		}
		if x.Status == report.Unavailable {
			k.why = firstSentence(k.why)
		}
		if count[k] == 0 {
			order = append(order, k)
		}
		count[k]++
	}
	if len(order) == 0 {
		return ""
	}
	sdkIndex := map[string]int{}
	for i, s := range r.SDKs {
		sdkIndex[s.Name] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return sdkIndex[order[i].sdk] < sdkIndex[order[j].sdk] })
	var b strings.Builder
	b.WriteString("\n## Not run\n\nNeither counts as passed. *unsupported* (\"lacks\"): the SDK version lacks what the scenarios need; *unavailable*: the SDK could not run here.\n\n")
	for i, k := range order {
		if i == maxNotRun {
			rest := 0
			for _, k := range order[i:] {
				rest += count[k]
			}
			fmt.Fprintf(&b, "- %d more lines (%d scenarios): each result's `capability` and `message` in results.json.\n", len(order)-i, rest)
			break
		}
		n := count[k]
		switch {
		case k.what != "":
			fmt.Fprintf(&b, "- **%s** lacks `%s`: %d %s", k.sdk, k.what, n, plural(n, "scenario"))
			if k.why != "" {
				b.WriteString(". " + clipTo(k.why, 60))
			}
			b.WriteString("\n")
		default:
			fmt.Fprintf(&b, "- **%s**: %d %s %s: %s\n", k.sdk, n, plural(n, "scenario"), k.status, clipTo(k.why, 90))
		}
	}
	return b.String()
}

// timingSection reports, per SDK, where the run's time went and the timing outliers found in
// the transcripts: observations about the SDKs for their users, never failures.
func timingSection(r *report.Results) string {
	if len(r.Timing) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n## Timing\n\nObservations, not failures (they depend on the machine). *SDK calls*: driver round trips added up; *overhead*: a scenario's time outside them and outside waiting for a driver; *first frame*: driver command to the SDK's first frame; *answer to result*: the runtime's last answer to the driver's result (ms, p50 / p95).\n\n")
	b.WriteString("| SDK | drivers | wall | SDK calls | overhead p50 | first frame | answer to result | outliers |\n|---|--:|--:|--:|--:|--:|--:|---|\n")
	// One example per kind, from the SDK where it was worst: enough to find it in a transcript
	// while the summary stays short.
	type example struct {
		worst float64
		line  string
	}
	worstOf := map[string]example{}
	for _, t := range r.Timing {
		var out []string
		kinds := slices.Sorted(maps.Keys(t.Observations))
		for _, k := range kinds {
			out = append(out, fmt.Sprintf("%d %s (worst %.0f ms)", t.Observations[k], k, t.Worst[k]))
			if ex := t.Example[k]; ex != "" && t.Worst[k] >= worstOf[k].worst {
				worstOf[k] = example{t.Worst[k], fmt.Sprintf("- %s, %s: %s", t.SDK, k, ex)}
			}
		}
		fmt.Fprintf(&b, "| %s | %d | %.1f s | %.1f s | %.1f ms | %.1f / %.1f | %.1f / %.1f | %s |\n", t.SDK, t.Drivers, t.WallMS/1000, t.SDKCallsMS/1000,
			t.Overhead.P50, t.ToFirstFrame.P50, t.ToFirstFrame.P95, t.AnswerToResult.P50, t.AnswerToResult.P95, strings.Join(out, ", "))
	}
	var examples []string
	for _, k := range slices.Sorted(maps.Keys(worstOf)) {
		examples = append(examples, worstOf[k].line)
	}
	if len(examples) > 0 {
		b.WriteString("\n*split-frame*: a request whose header and body were written apart (the body arrives later); *slow-close*: a client stop that returns long after the runtime's last answer. The worst example of each:\n\n" + strings.Join(examples, "\n") + "\n")
	}
	return b.String()
}

func plural(n int, s string) string {
	if n == 1 {
		return s
	}
	return s + "s"
}

func cell(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, "|", `\|`), "\n", " ") }

// firstSentence keeps a long reason (an install hint with links) to its first clause.
func firstSentence(s string) string {
	s = text.FirstLine(s)
	if i := strings.Index(s, "; "); i > 0 {
		return s[:i]
	}
	return s
}

// clip keeps one value readable in a table; the full text is in results.json.
func clip(s string) string { return clipTo(s, 120) }

func clipTo(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// differences renders the cross-SDK diff: normative differences per scenario (each breaks a
// feature), then informational ones once each with the number of scenarios they appear in,
// since the same optional field differs in every scenario that creates a session. Rows of the
// same request and path whose values agree wherever their SDKs overlap are one row (scenarios
// that ran on fewer SDKs compare fewer values).
func differences(r *report.Results) string {
	var b strings.Builder
	type info struct {
		where     string
		values    map[string]string
		scenarios int
		features  map[string]bool
	}
	var rows []*info
	agrees := func(a, b map[string]string) bool {
		for s, v := range a {
			if w, ok := b[s]; ok && w != v {
				return false
			}
		}
		return true
	}
	// A scenario that failed (not as known) first: its differences are what to act on.
	failing := map[[2]string]bool{}
	for _, x := range r.Results {
		if report.Failing(x.Status) {
			failing[[2]string{x.Feature, x.Scenario}] = true
		}
	}
	var normative, known []string
	normScenarios, normCount := 0, 0
	for _, c := range r.Comparisons {
		var lines []string
		for _, d := range c.Differences {
			where := d.Request
			if d.Path != "" {
				where += " " + d.Path
			}
			if d.Class == report.Normative {
				normCount++
				lines = append(lines, fmt.Sprintf("| `%s` | %s |", cell(where), cell(valuesClipped(c.SDKs, d.Values, 60))))
				continue
			}
			var row *info
			for _, x := range rows {
				if x.where == where && agrees(x.values, d.Values) {
					row = x
					break
				}
			}
			if row == nil {
				row = &info{where: where, values: map[string]string{}, features: map[string]bool{}}
				rows = append(rows, row)
			}
			for s, v := range d.Values {
				row.values[s] = v
			}
			row.scenarios++
			row.features[c.Feature] = true
		}
		if len(lines) > maxNormativePerScenario {
			lines = groupedNormative(c)
		}
		if len(lines) > 0 {
			normScenarios++
		}
		for _, l := range lines {
			l = fmt.Sprintf("| %s: %s %s", strings.TrimSuffix(c.Feature, ".feature"), cell(clipTo(c.Scenario, 60)), l)
			if failing[[2]string{c.Feature, c.Scenario}] {
				normative = append(normative, l)
			} else {
				known = append(known, l)
			}
		}
	}
	normative = append(normative, known...)
	if len(normative) == 0 && len(rows) == 0 {
		return ""
	}
	b.WriteString("\n## Payload differences between SDKs\n\nNormalized (ids, timestamps, paths). *Normative*: at a path a feature checks, so it breaks a feature. *Informational*: the SDKs differ where the features allow it. `report.html` diffs any request against another SDK's; `comparisons` in results.json has every difference.\n")
	if len(normative) > 0 {
		fmt.Fprintf(&b, "\n### Normative differences\n\n%d in %d scenarios (those that failed, not as known, first).\n\n| scenario | request and path | values |\n|---|---|---|\n", normCount, normScenarios)
		if len(normative) > maxNormative {
			normative = append(normative[:maxNormative:maxNormative], fmt.Sprintf("| %d more rows | | `comparisons` in results.json |", len(normative)-maxNormative))
		}
		b.WriteString(strings.Join(normative, "\n") + "\n")
	}
	if len(rows) > 0 {
		var order []string
		for _, s := range r.SDKs {
			order = append(order, s.Name)
		}
		// The most widespread first; the long tail is in results.json and report.html.
		sort.SliceStable(rows, func(i, j int) bool { return rows[i].scenarios > rows[j].scenarios })
		b.WriteString("\n### Informational differences\n\n| request and path | values | scenarios | features |\n|---|---|--:|--:|\n")
		for i, x := range rows {
			if i == maxInformational {
				fmt.Fprintf(&b, "\n%d more, each in fewer scenarios: `comparisons` in results.json, or report.html.\n", len(rows)-i)
				break
			}
			fmt.Fprintf(&b, "| `%s` | %s | %d | %d |\n", cell(x.where), cell(valuesClipped(order, x.values, 40)), x.scenarios, len(x.features))
		}
	}
	return b.String()
}

// maxNormativePerScenario: a scenario with more normative differences than this (the schema
// sweep compares hundreds of requests) lists them grouped by method and values, at most
// maxNormativeGroups groups; results.json and report.html list every one. maxNormative caps
// the rows of all scenarios.
const (
	maxNormativePerScenario = 4
	maxNormativeGroups      = 1
	maxNormative            = 6
)

// groupedNormative is a comparison's normative differences, one row per method and values.
func groupedNormative(c report.Comparison) []string {
	type group struct {
		method, vals string
		n            int
	}
	var groups []*group
	index := map[string]*group{}
	for _, d := range c.Differences {
		if d.Class != report.Normative {
			continue
		}
		method := strings.SplitN(d.Request, "#", 2)[0]
		vals := valuesClipped(c.SDKs, d.Values, 60)
		if d.Path != "" {
			vals = d.Path + ": " + vals
		}
		k := method + "\x00" + vals
		if index[k] == nil {
			index[k] = &group{method: method, vals: vals}
			groups = append(groups, index[k])
		}
		index[k].n++
	}
	var out []string
	for i, g := range groups {
		if i == maxNormativeGroups {
			out = append(out, fmt.Sprintf("| %d more groups | `comparisons` in results.json, or report.html |", len(groups)-i))
			break
		}
		out = append(out, fmt.Sprintf("| `%s` (%d) | %s |", cell(g.method), g.n, cell(clipTo(g.vals, 240))))
	}
	return out
}

// maxInformational is how many informational differences the summary lists.
const maxInformational = 3

// valuesClipped is "sdk=value, …" in the given SDK order, for the SDKs that have a value, each
// value at most n characters.
func valuesClipped(order []string, vals map[string]string, n int) string {
	var out []string
	for _, s := range order {
		if v, ok := vals[s]; ok {
			out = append(out, s+"="+clipTo(v, n))
		}
	}
	return strings.Join(out, ", ")
}

// maxObservations caps the behaviour rows: the facts on which the SDKs differ; the rest (and
// every fact whole) are each result's `observations` in results.json and report.html.
const maxObservations = 8

// observations renders facts that differ between SDKs without failing, one row per fact, e.g.
// how each SDK puts a tool's success and failure on the wire; a fact every SDK shares is counted,
// not shown.
func observations(r *report.Results) string {
	// The surface observations are the surface matrix's (surfaceMatrix).
	facts, keys := observationFacts(r, func(k string) (string, bool) {
		return k, !strings.HasPrefix(k, surface.ObservationPrefix)
	})
	if len(facts) == 0 {
		return ""
	}
	var differ []string
	for _, k := range keys {
		seen := map[string]bool{}
		for _, s := range r.SDKs {
			seen[facts[k][s.Name]] = true // "" where the SDK has no such fact
		}
		if len(seen) > 1 {
			differ = append(differ, k)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n## How the SDKs differ in behaviour\n\n%d facts observed, %d the same on every SDK; where they differ:\n\n| observation |", len(keys), len(keys)-len(differ))
	for _, s := range r.SDKs {
		fmt.Fprintf(&b, " %s |", s.Name)
	}
	b.WriteString("\n|---|" + strings.Repeat("---|", len(r.SDKs)) + "\n")
	for i, k := range differ {
		if i == maxObservations {
			fmt.Fprintf(&b, "\n%d more, and each fact whole: a result's `observations` in results.json, or its cell in report.html.\n", len(differ)-i)
			break
		}
		fmt.Fprintf(&b, "| %s |", k)
		for _, s := range r.SDKs {
			fmt.Fprintf(&b, " %s |", cell(clipTo(facts[k][s.Name], 40)))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// surfaceMatrix summarizes the field × SDK matrix of features/surface: for every field an SDK
// declares (matched across languages by package surface's Key), the wire key its value reached
// in each request. Per SDK how many fields it declares and how many were not sent; the fields
// whose keys differ are crossSDK's. Every cell is a surface/fields result's `observations` in
// results.json and report.html.
func surfaceMatrix(r *report.Results) string {
	facts, keys := observationFacts(r, func(k string) (string, bool) {
		return strings.CutPrefix(k, surface.ObservationPrefix)
	})
	if len(facts) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n## Application surface: field × SDK\n\nWhere each field the SDKs declare reached the request when set alone (features/surface): %d fields of requests. The whole matrix: the `observations` of each SDK's surface/fields result in results.json, or its cell in report.html.\n\n| SDK | fields declared | not sent |\n|---|--:|--:|\n", len(keys))
	for _, s := range r.SDKs {
		declared, notSent := 0, 0
		for _, k := range keys {
			if v, ok := facts[k][s.Name]; ok {
				declared++
				if v == "not sent" {
					notSent++
				}
			}
		}
		fmt.Fprintf(&b, "| %s | %d | %d |\n", s.Name, declared, notSent)
	}
	b.WriteString("\nThe fields whose key differs between SDKs are the cross-SDK field differences above.\n")
	return b.String()
}

// maxViolations caps the schema violation rows.
const maxViolations = 6

// schemaViolations lists, per SDK, each distinct violation of the runtime's published schema
// with the number of scenarios it appeared in.
func schemaViolations(r *report.Results) string {
	type key struct{ sdk, v string }
	count := map[key]int{}
	var order []key
	for _, x := range r.Results {
		for _, v := range x.SchemaViolations {
			k := key{x.SDK, v}
			if count[k] == 0 {
				order = append(order, k)
			}
			count[k]++
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n## Runtime schema\n\n%s\n", r.Harness.Schema)
	// Which schema judged each SDK, where it is not simply the run's (judged by the one the SDK
	// version ships, or the run's although the SDK declares another runtime).
	var judged []string
	for _, s := range r.SDKs {
		switch {
		case s.Schema != "":
			judged = append(judged, fmt.Sprintf("- %s %s: judged by %s", s.Name, s.Version, s.Schema))
		case s.SchemaNote != "":
			judged = append(judged, fmt.Sprintf("- %s %s: %s", s.Name, s.Version, s.SchemaNote))
		}
	}
	if len(judged) > 0 {
		b.WriteString("\n" + strings.Join(judged, "\n") + "\n")
	}
	if len(order) == 0 {
		if !r.Harness.SchemaLoaded {
			return b.String()
		}
		b.WriteString("\nNo frame an SDK sent (a request, or an answer to the runtime's call) violated it.\n")
		return b.String()
	}
	b.WriteString("\n| SDK | violation (method: JSON pointer: message), failing unless known | scenarios |\n|---|---|---|\n")
	for i, k := range order {
		if i == maxViolations {
			fmt.Fprintf(&b, "\n%d more: each result's `schemaViolations` in results.json.\n", len(order)-i)
			break
		}
		fmt.Fprintf(&b, "| %s | %s | %d |\n", k.sdk, cell(clipTo(k.v, 120)), count[k])
	}
	return b.String()
}

// observationFacts gathers the results' observations that pick keeps, under the key pick
// returns: key → SDK → value, with the keys sorted.
func observationFacts(r *report.Results, pick func(string) (string, bool)) (map[string]map[string]string, []string) {
	facts := map[string]map[string]string{}
	for _, x := range r.Results {
		for k, v := range x.Observations {
			key, ok := pick(k)
			if !ok {
				continue
			}
			if facts[key] == nil {
				facts[key] = map[string]string{}
			}
			facts[key][x.SDK] = v
		}
	}
	keys := slices.Sorted(maps.Keys(facts))
	return facts, keys
}

// maxCrossSDK is how many cross-SDK field differences the summary lists: the failed and xpass
// ones first (each fails the run), then the known ones.
const maxCrossSDK = 4

// crossSDK lists the fields several SDKs send under different keys (report.CrossSDK): each not
// known fails the run, each known one names its entry, a known one not observed is fixed.
func crossSDK(r *report.Results) string {
	if len(r.CrossSDK) == 0 {
		return ""
	}
	rank := map[string]int{report.Failed: 0, report.XPass: 1}
	rows := slices.Clone(r.CrossSDK)
	sort.SliceStable(rows, func(i, j int) bool {
		ri, ok := rank[rows[i].Status]
		if !ok {
			ri = 2
		}
		rj, ok := rank[rows[j].Status]
		if !ok {
			rj = 2
		}
		return ri < rj
	})
	count := map[string]int{}
	for _, c := range rows {
		count[c.Status]++
	}
	var counts []string
	for _, st := range []string{report.Failed, report.XPass, report.XFail} {
		if count[st] > 0 {
			counts = append(counts, fmt.Sprintf("%d %s", count[st], st))
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n## Cross-SDK field differences\n\nThe same field, set to the same value, must reach the same key on every SDK that has it (features/surface). *failed*: not a known difference, the run fails; *xfail*: known (fixtures/expected-differences.yaml); *xpass*: known but no longer observed, remove the entry. %d fields: %s.\n\n| status | request | field | key per SDK | known |\n|---|---|---|---|---|\n",
		len(rows), strings.Join(counts, ", "))
	for i, c := range rows {
		if i == maxCrossSDK {
			fmt.Fprintf(&b, "\n%d more (every key whole, with the reason): `crossSDK` in results.json.\n", len(rows)-i)
			break
		}
		var keys []string
		for _, s := range slices.Sorted(maps.Keys(c.Keys)) {
			keys = append(keys, s+": `"+clipTo(c.Keys[s], 32)+"`")
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", c.Status, c.Request, c.Field, cell(strings.Join(keys, "; ")), c.Known)
	}
	return b.String()
}

// onEvery says whether a group of failing results of one scenario holds every SDK that ran it
// (at least two): a failure no one SDK's maintainers can be sent alone.
func onEvery(r *report.Results) func(g []report.Result) bool {
	ran := map[[2]string]int{}
	for _, x := range r.Results {
		switch x.Status {
		case report.Passed, report.Failed, report.XFail, report.XPass:
			ran[[2]string{x.Feature, x.Scenario}]++
		}
	}
	return func(g []report.Result) bool {
		return len(g) > 1 && len(g) == ran[[2]string{g[0].Feature, g[0].Scenario}]
	}
}

// maxFixCauses is how many one-line causes the verdict gives per SDK.
const maxFixCauses = 3

// toFix is the verdict's list of the SDKs to fix, each with its one-line causes (a failure's
// scenario and gist), then the failures every SDK that ran the scenario shows, apart: those
// are the feature's, the harness's or every SDK's at once, not one SDK's to fix.
func toFix(r *report.Results) string {
	per := map[string][]string{}
	var sdks []string
	var every []string
	type key struct{ feature, scenario, status string }
	groups := map[key][]report.Result{}
	var order []key
	for _, x := range r.Results {
		if !report.Failing(x.Status) {
			continue
		}
		k := key{x.Feature, x.Scenario, x.Status}
		if groups[k] == nil {
			order = append(order, k)
		}
		groups[k] = append(groups[k], x)
	}
	everywhere := onEvery(r)
	for _, k := range order {
		g := groups[k]
		cause := fmt.Sprintf("%s (%s): %s", g[0].Scenario, g[0].Status, clipTo(report.Gist(g[0].Message), 140))
		if everywhere(g) {
			every = append(every, cause)
			continue
		}
		for _, x := range g {
			if per[x.SDK] == nil {
				sdks = append(sdks, x.SDK)
			}
			per[x.SDK] = append(per[x.SDK], fmt.Sprintf("%s (%s): %s", x.Scenario, x.Status, clipTo(report.Gist(x.Message), 140)))
		}
	}
	if len(sdks) == 0 && len(every) == 0 {
		return ""
	}
	var b strings.Builder
	line := func(causes []string) string {
		shown := causes[:min(len(causes), maxFixCauses)]
		s := strings.Join(shown, "; ")
		if n := len(causes) - len(shown); n > 0 {
			s += fmt.Sprintf("; and %d more", n)
		}
		return s
	}
	if len(sdks) > 0 {
		b.WriteString("SDKs to fix:\n\n")
		for _, sdk := range sdks {
			fmt.Fprintf(&b, "- **%s**, %d of its own: %s\n", sdk, len(per[sdk]), line(per[sdk]))
		}
		b.WriteString("\n")
	}
	if len(every) > 0 {
		fmt.Fprintf(&b, "Failing on every SDK that ran them (%d; the feature, the harness or every SDK at once, not one SDK to send it to): %s\n\n", len(every), line(every))
	}
	return b.String()
}

// legend names each status's icon, in the statuses' order, under a matrix of icons.
func legend() string {
	var out []string
	for _, s := range statusOrder {
		out = append(out, icons[s]+" "+s)
	}
	return strings.Join(out, " · ")
}
