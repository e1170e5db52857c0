package render

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/report"
)

// Markdown writes summary.md (fit for $GITHUB_STEP_SUMMARY).
func Markdown(dir string, r *report.Results) error {
	return os.WriteFile(filepath.Join(dir, "summary.md"), []byte(MarkdownText(r)), 0o644)
}

var icons = map[string]string{report.Passed: "✅ passed", report.Failed: "❌ failed", report.XFail: "⚠️ xfail", report.XPass: "❗ xpass",
	report.Unsupported: "➖ unsupported", report.Unavailable: "⛔ unavailable", report.Skipped: "⏭️ skipped"}

// MarkdownText renders the summary: SDKs, the scenario-by-SDK matrix, failures with their rerun
// commands, expected failures with their reasons, and the cross-SDK payload differences.
func MarkdownText(r *report.Results) string {
	var b strings.Builder
	b.WriteString("# Copilot SDK conformance\n\n")
	var counts []string
	keys := make([]string, 0, len(r.Totals))
	for k := range r.Totals {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		counts = append(counts, fmt.Sprintf("%d %s", r.Totals[k], k))
	}
	fmt.Fprintf(&b, "%s\n\n", strings.Join(counts, ", "))

	b.WriteString("## SDKs\n\n| SDK | version | status | source / reason |\n|---|---|---|---|\n")
	for _, s := range r.SDKs {
		detail := s.Source
		if s.Reason != "" {
			detail = s.Reason
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", s.Name, s.Version, s.Status, cell(detail))
	}

	var sdks []string
	for _, s := range r.SDKs {
		sdks = append(sdks, s.Name)
	}
	type row struct{ feature, scenario string }
	cells := map[row]map[string]report.Result{}
	var rows []row
	for _, x := range r.Results {
		k := row{x.Feature, x.Scenario}
		if cells[k] == nil {
			cells[k] = map[string]report.Result{}
			rows = append(rows, k)
		}
		cells[k][x.SDK] = x
	}
	b.WriteString("\n## Scenarios by SDK\n\n| feature | scenario |")
	for _, s := range sdks {
		fmt.Fprintf(&b, " %s |", s)
	}
	b.WriteString("\n|---|---|" + strings.Repeat("---|", len(sdks)) + "\n")
	for _, k := range rows {
		fmt.Fprintf(&b, "| %s | %s |", k.feature, cell(k.scenario))
		for _, s := range sdks {
			if x, ok := cells[k][s]; ok {
				fmt.Fprintf(&b, " %s |", icons[x.Status])
			} else {
				b.WriteString(" |")
			}
		}
		b.WriteString("\n")
	}

	section := func(title string, want ...string) {
		var lines []string
		for _, x := range r.Results {
			for _, w := range want {
				if x.Status == w {
					l := fmt.Sprintf("- **%s** on **%s** (%s): %s", x.Scenario, x.SDK, x.Status, indent(x.Message))
					if x.Link != "" {
						l += fmt.Sprintf("\n  tracked at %s", x.Link)
					}
					if x.Transcript != "" {
						l += fmt.Sprintf("\n  transcript: `%s`", x.Transcript)
					}
					if x.Rerun != "" {
						l += fmt.Sprintf("\n  rerun: `%s`", x.Rerun)
					}
					lines = append(lines, l)
				}
			}
		}
		if len(lines) > 0 {
			fmt.Fprintf(&b, "\n## %s\n\n%s\n", title, strings.Join(lines, "\n"))
		}
	}
	section("Failures", report.Failed, report.XPass)
	section("Expected failures (known divergences)", report.XFail)
	section("Unsupported", report.Unsupported)

	b.WriteString(observations(r))
	b.WriteString(schemaViolations(r))
	b.WriteString(differences(r))
	return b.String()
}

func cell(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, "|", `\|`), "\n", " ") }

func indent(s string) string { return strings.ReplaceAll(s, "\n", "\n  ") }

// differences renders the cross-SDK diff: normative differences per scenario (each breaks a
// feature), then informational ones once each with the number of scenarios they appear in,
// since the same optional field differs in every scenario that creates a session.
func differences(r *report.Results) string {
	var b strings.Builder
	type info struct {
		line      string
		scenarios int
		features  []string
	}
	seen := map[string]*info{}
	var order []string
	var normative []string
	for _, c := range r.Comparisons {
		var lines []string
		for _, d := range c.Differences {
			var vals []string
			for _, s := range c.SDKs {
				vals = append(vals, fmt.Sprintf("%s=%s", s, d.Values[s]))
			}
			where := d.Request
			if d.Path != "" {
				where += " " + d.Path
			}
			row := fmt.Sprintf("`%s` | %s", cell(where), cell(strings.Join(vals, ", ")))
			if d.Class == report.Normative {
				lines = append(lines, "| "+row+" |")
				continue
			}
			if seen[row] == nil {
				seen[row] = &info{line: row}
				order = append(order, row)
			}
			seen[row].scenarios++
			if f := seen[row].features; len(f) == 0 || f[len(f)-1] != c.Feature {
				seen[row].features = append(f, c.Feature)
			}
		}
		if len(lines) > 0 {
			normative = append(normative, fmt.Sprintf("#### %s — %s\n\n| request and path | values |\n|---|---|\n%s\n", c.Feature, c.Scenario, strings.Join(lines, "\n")))
		}
	}
	if len(normative) == 0 && len(order) == 0 {
		return ""
	}
	b.WriteString("\n## Payload differences between SDKs\n\nNormalized (ids, timestamps, paths). *Normative*: at a path a feature checks, so it breaks a feature. *Informational*: the SDKs differ where the features allow it.\n")
	if len(normative) > 0 {
		b.WriteString("\n### Normative differences\n\n" + strings.Join(normative, "\n"))
	}
	if len(order) > 0 {
		b.WriteString("\n### Informational differences\n\n| request and path | values | scenarios | features |\n|---|---|---|---|\n")
		for _, row := range order {
			fmt.Fprintf(&b, "| %s | %d | %s |\n", seen[row].line, seen[row].scenarios, strings.Join(seen[row].features, ", "))
		}
	}
	return b.String()
}

// observations renders facts that differ between SDKs without failing, one row per fact, e.g.
// how each SDK puts a tool's success and failure on the wire.
func observations(r *report.Results) string {
	facts := map[string]map[string]string{}
	for _, x := range r.Results {
		for k, v := range x.Observations {
			if facts[k] == nil {
				facts[k] = map[string]string{}
			}
			facts[k][x.SDK] = v
		}
	}
	if len(facts) == 0 {
		return ""
	}
	keys := make([]string, 0, len(facts))
	for k := range facts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString("\n## How the SDKs differ in behaviour\n\n| observation |")
	for _, s := range r.SDKs {
		fmt.Fprintf(&b, " %s |", s.Name)
	}
	b.WriteString("\n|---|" + strings.Repeat("---|", len(r.SDKs)) + "\n")
	for _, k := range keys {
		fmt.Fprintf(&b, "| %s |", k)
		for _, s := range r.SDKs {
			fmt.Fprintf(&b, " %s |", cell(facts[k][s.Name]))
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
		if strings.HasPrefix(r.Harness.Schema, "unavailable") || r.Harness.Schema == "" {
			return b.String()
		}
		b.WriteString("\nNo request violated it.\n")
		return b.String()
	}
	b.WriteString("\n| SDK | violation (method: JSON pointer: message) | scenarios |\n|---|---|---|\n")
	for _, k := range order {
		fmt.Fprintf(&b, "| %s | %s | %d |\n", k.sdk, cell(k.v), count[k])
	}
	return b.String()
}
