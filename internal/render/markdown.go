package render

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/report/html"
	"github.com/copilot-sdk-conformance/conformance/internal/surface"
)

// MaxSummaryBytes bounds summary.md. GitHub rejects a job summary over 1 MiB per step; the
// summary stays under it with room to spare, and whatever does not fit is in report.html and
// results.json, which the summary points to.
const MaxSummaryBytes = 1000 * 1024

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
	var b strings.Builder
	const pointer = "\n---\n\nThe summary stops here to stay within GitHub's job summary limit: every result, transcript and difference is in `report.html` and `results.json` beside this file.\n"
	for _, p := range parts {
		if room := MaxSummaryBytes - len(pointer) - b.Len(); len(p) > room {
			// Keep what fits of this section, up to a line's end, then say where the rest is.
			if i := strings.LastIndexByte(p[:max(room-4, 0)], '\n'); i > 0 {
				b.WriteString(p[:i+1])
				if strings.Count(p[:i+1], "```")%2 == 1 { // cut inside a code block: close it
					b.WriteString("```\n")
				}
			}
			b.WriteString(pointer)
			return b.String()
		}
		b.WriteString(p)
	}
	return b.String()
}

// header is the verdict, the counts and the SDK table.
func header(r *report.Results) string {
	var b strings.Builder
	failing := r.Totals[report.Failed] + r.Totals[report.XPass]
	verdict := "✅ **PASS**: every result passed or failed only as known"
	if failing > 0 {
		verdict = fmt.Sprintf("❌ **FAIL**: %d failed, %d passed unexpectedly (xpass)", r.Totals[report.Failed], r.Totals[report.XPass])
	}
	var counts []string
	for _, s := range statusOrder {
		if n := r.Totals[s]; n > 0 {
			counts = append(counts, fmt.Sprintf("%d %s", n, s))
		}
	}
	if len(r.StaleViolations) > 0 {
		verdict = fmt.Sprintf("❌ **FAIL**: %d failed, %d passed unexpectedly (xpass), %d known schema violations not observed", r.Totals[report.Failed], r.Totals[report.XPass], len(r.StaleViolations))
	}
	fmt.Fprintf(&b, "# Copilot SDK conformance\n\n%s. %s.\n\n", verdict, strings.Join(counts, ", "))
	if len(r.StaleViolations) > 0 {
		b.WriteString("Known schema violations not observed (fixed: remove each entry or narrow its versions):\n\n")
		for _, v := range r.StaleViolations {
			fmt.Fprintf(&b, "- %s\n", v)
		}
		b.WriteString("\n")
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
		}
		var cs []string
		for _, st := range statusOrder {
			if n := per[s.Name][st]; n > 0 {
				cs = append(cs, fmt.Sprintf("%d %s", n, st))
			}
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", s.Name, s.Version, strings.Join(cs, ", "), cell(detail))
	}
	return b.String()
}

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
	var legend []string
	for _, s := range statusOrder {
		legend = append(legend, icons[s]+" "+s)
	}
	fmt.Fprintf(&b, "\n%s\n", strings.Join(legend, " · "))
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
	var legend []string
	for _, s := range statusOrder {
		legend = append(legend, icons[s]+" "+s)
	}
	fmt.Fprintf(&b, "\n%s\n", strings.Join(legend, " · "))
	return b.String(), true
}

// failures lists every failed and xpass result with its message (the step, expected and
// observed), the payload paths where this SDK differs at a checked path, its transcript and
// the command that reruns it.
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
	var b strings.Builder
	for _, x := range r.Results {
		if !report.Failing(x.Status) {
			continue
		}
		if b.Len() == 0 {
			b.WriteString("\n## Failures\n")
		}
		fmt.Fprintf(&b, "\n### %s on %s (%s)\n\n`%s`\n\n```\n%s\n```\n", x.Scenario, x.SDK, x.Status, x.Feature, strings.TrimSpace(x.Message))
		k := [2]string{x.Feature, x.Scenario}
		for _, d := range normative[k] {
			var others []string
			for _, s := range sdksOf[k] {
				if s != x.SDK {
					others = append(others, s+"="+d.Values[s])
				}
			}
			fmt.Fprintf(&b, "- payload `%s %s`: %s=%s; %s\n", d.Request, d.Path, x.SDK, clip(d.Values[x.SDK]), clip(strings.Join(others, ", ")))
		}
		if x.Transcript != "" {
			fmt.Fprintf(&b, "- transcript: `%s`\n", x.Transcript)
		}
		if x.Rerun != "" {
			fmt.Fprintf(&b, "- rerun: `%s`\n", x.Rerun)
		}
	}
	return b.String()
}

// expectedFailures are the known divergences that failed as expected, one line each.
func expectedFailures(r *report.Results) string {
	var lines []string
	for _, x := range r.Results {
		if x.Status != report.XFail {
			continue
		}
		// The observed failure without the step's own text (the scenario names it): what a
		// reviewer compares with the manifest's reason.
		msg := firstLine(x.Message)
		if strings.HasPrefix(msg, `step "`) {
			if i := strings.Index(msg, `": `); i > 0 {
				msg = msg[i+3:]
			}
		}
		l := fmt.Sprintf("- **%s** on %s: %s (%s", x.Scenario, x.SDK, clipTo(msg, 80), x.Expected)
		if x.Link != "" {
			l += "; " + x.Link
		}
		lines = append(lines, l+")")
	}
	if len(lines) == 0 {
		return ""
	}
	return "\n## Expected failures (known divergences)\n\n" + strings.Join(lines, "\n") + "\n"
}

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
		k := key{sdk: x.SDK, status: x.Status, why: firstLine(x.Message)}
		if x.Capability != "" {
			// The capability is the record's; the driver's note about it says why, when it has one.
			k.what = x.Capability
			if n := notes[x.SDK][x.Capability]; n != "" {
				k.why = firstLine(n)
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
	for _, k := range order {
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
	b.WriteString("\n## Timing\n\nObservations, not failures: the numbers depend on the machine. *SDK calls*: the driver commands' round trips added up; *overhead*: a scenario's time outside them and outside waiting for a driver; *first frame*: from a driver command to the SDK's first frame; *answer to result*: from the runtime's last answer to the driver's result (ms, p50 / p95).\n\n")
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
		kinds := make([]string, 0, len(t.Observations))
		for k := range t.Observations {
			kinds = append(kinds, k)
		}
		sort.Strings(kinds)
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
	s = firstLine(s)
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
	var normative []string
	for _, c := range r.Comparisons {
		var lines []string
		for _, d := range c.Differences {
			where := d.Request
			if d.Path != "" {
				where += " " + d.Path
			}
			if d.Class == report.Normative {
				lines = append(lines, fmt.Sprintf("| `%s` | %s |", cell(where), cell(values(c.SDKs, d.Values))))
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
		for _, l := range lines {
			normative = append(normative, fmt.Sprintf("| %s: %s %s", strings.TrimSuffix(c.Feature, ".feature"), cell(c.Scenario), l))
		}
	}
	if len(normative) == 0 && len(rows) == 0 {
		return ""
	}
	b.WriteString("\n## Payload differences between SDKs\n\nNormalized (ids, timestamps, paths). *Normative*: at a path a feature checks, so it breaks a feature. *Informational*: the SDKs differ where the features allow it.\n")
	if len(normative) > 0 {
		b.WriteString("\n### Normative differences\n\n| scenario | request and path | values |\n|---|---|---|\n" + strings.Join(normative, "\n") + "\n")
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
			fmt.Fprintf(&b, "| `%s` | %s | %d | %d |\n", cell(x.where), cell(values(order, x.values)), x.scenarios, len(x.features))
		}
	}
	return b.String()
}

// maxNormativePerScenario: a scenario with more normative differences than this (the schema
// sweep compares hundreds of requests) lists them grouped by method and values, at most that
// many groups; results.json and report.html list every one.
const maxNormativePerScenario = 4

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
		vals := values(c.SDKs, d.Values)
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
		if i == maxNormativePerScenario {
			out = append(out, fmt.Sprintf("| %d more groups | `comparisons` in results.json, or report.html |", len(groups)-i))
			break
		}
		out = append(out, fmt.Sprintf("| `%s` (%d) | %s |", cell(g.method), g.n, cell(g.vals)))
	}
	return out
}

// maxInformational is how many informational differences the summary lists.
const maxInformational = 15

// values is "sdk=value, …" in the given SDK order, for the SDKs that have a value.
func values(order []string, vals map[string]string) string {
	var out []string
	for _, s := range order {
		if v, ok := vals[s]; ok {
			out = append(out, s+"="+clip(v))
		}
	}
	return strings.Join(out, ", ")
}

// observations renders facts that differ between SDKs without failing, one row per fact, e.g.
// how each SDK puts a tool's success and failure on the wire.
func observations(r *report.Results) string {
	// The surface observations are the surface matrix's (surfaceMatrix).
	facts, keys := observationFacts(r, func(k string) (string, bool) {
		return k, !strings.HasPrefix(k, surface.ObservationPrefix)
	})
	if len(facts) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n## How the SDKs differ in behaviour\n\n| observation |")
	for _, s := range r.SDKs {
		fmt.Fprintf(&b, " %s |", s.Name)
	}
	b.WriteString("\n|---|" + strings.Repeat("---|", len(r.SDKs)) + "\n")
	for _, k := range keys {
		fmt.Fprintf(&b, "| %s |", k)
		for _, s := range r.SDKs {
			fmt.Fprintf(&b, " %s |", cell(clipTo(facts[k][s.Name], 60)))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// surfaceMatrix is the field × SDK matrix of features/surface: for every field an SDK declares
// (matched across languages by package surface's Key), the wire key its value reached in each
// request, per SDK; "—" where the SDK does not declare the field (or did not run the scenario).
// Last in the summary: it is long, and results.json holds it in full.
func surfaceMatrix(r *report.Results) string {
	facts, keys := observationFacts(r, func(k string) (string, bool) {
		return strings.CutPrefix(k, surface.ObservationPrefix)
	})
	if len(facts) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n## Application surface: field × SDK\n\nWhere each field the SDKs declare reached the request when set alone (features/surface): the wire key, `not sent`, or — where the SDK does not declare it.\n\n| request | field |")
	for _, s := range r.SDKs {
		fmt.Fprintf(&b, " %s |", s.Name)
	}
	b.WriteString("\n|---|---|" + strings.Repeat("---|", len(r.SDKs)) + "\n")
	for _, k := range keys {
		request, field, _ := strings.Cut(k, " ")
		fmt.Fprintf(&b, "| %s | %s |", request, field)
		for _, s := range r.SDKs {
			v, ok := facts[k][s.Name]
			if !ok {
				v = "—"
			}
			fmt.Fprintf(&b, " %s |", cell(clipTo(v, 40)))
		}
		b.WriteString("\n")
	}
	return b.String()
}

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
	if len(order) == 0 {
		if !r.Harness.SchemaLoaded {
			return b.String()
		}
		b.WriteString("\nNo frame an SDK sent (a request, or an answer to the runtime's call) violated it.\n")
		return b.String()
	}
	b.WriteString("\nEvery frame is judged: a violation fails its scenario unless fixtures/expected-violations.yaml knows it (\"answer\": the SDK's answer to the runtime's call).\n\n| SDK | violation (method: JSON pointer: message) | scenarios |\n|---|---|---|\n")
	for _, k := range order {
		fmt.Fprintf(&b, "| %s | %s | %d |\n", k.sdk, cell(k.v), count[k])
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
	keys := make([]string, 0, len(facts))
	for k := range facts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return facts, keys
}

// crossSDK lists the fields several SDKs send under different keys (report.CrossSDK): each not
// known fails the run, each known one names its entry, a known one not observed is fixed.
func crossSDK(r *report.Results) string {
	if len(r.CrossSDK) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n## Cross-SDK field differences\n\nThe same field, set to the same value, must reach the same key on every SDK that has it (features/surface). *failed*: not a known difference, the run fails; *xfail*: known (fixtures/expected-differences.yaml); *xpass*: known but no longer observed, remove the entry.\n\n| status | request | field | key per SDK | known |\n|---|---|---|---|---|\n")
	for _, c := range r.CrossSDK {
		sdks := make([]string, 0, len(c.Keys))
		for s := range c.Keys {
			sdks = append(sdks, s)
		}
		sort.Strings(sdks)
		var keys []string
		for _, s := range sdks {
			keys = append(keys, s+": `"+c.Keys[s]+"`")
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", c.Status, c.Request, c.Field, strings.Join(keys, "; "), c.Known)
	}
	return b.String()
}
