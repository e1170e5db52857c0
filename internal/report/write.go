package report

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Tally counts results by status.
func (r *Results) Tally() {
	r.Totals = map[string]int{}
	for _, x := range r.Results {
		r.Totals[x.Status]++
	}
}

// WriteAll writes results.json, junit.xml and summary.md into dir.
func WriteAll(dir string, r *Results) error {
	r.Tally()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "results.json"), append(b, '\n'), 0o644); err != nil {
		return err
	}
	if err := writeJUnit(filepath.Join(dir, "junit.xml"), r); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "summary.md"), []byte(Markdown(r)), 0o644)
}

// ReadResults loads a results.json.
func ReadResults(path string) (*Results, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Results
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: not a results.json: %w", path, err)
	}
	return &r, nil
}

// JUnit is written from the final statuses rather than by godog's junit formatter, because
// godog knows only passed/failed/skipped: xfail, xpass, unsupported and unavailable are decided
// after a scenario ends (from the manifest and the driver's capabilities). godog's own cucumber
// JSON, per SDK, is kept beside it as the step-level record.
type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Body    string `xml:",chardata"`
}

func writeJUnit(path string, r *Results) error {
	bySDK := map[string]*junitSuite{}
	var order []string
	for _, x := range r.Results {
		s := bySDK[x.SDK]
		if s == nil {
			s = &junitSuite{Name: "conformance." + x.SDK}
			bySDK[x.SDK] = s
			order = append(order, x.SDK)
		}
		c := junitCase{Name: x.Scenario, Classname: x.SDK + "." + strings.TrimSuffix(x.Feature, ".feature")}
		out := "status: " + x.Status
		if x.Transcript != "" {
			out += "\ntranscript: " + x.Transcript
		}
		if x.Rerun != "" {
			out += "\nrerun: " + x.Rerun
		}
		c.SystemOut = out
		switch x.Status {
		case Failed, XPass:
			c.Failure = &junitMessage{Message: firstLine(x.Message), Body: x.Message}
			s.Failures++
		case Passed:
		case XFail:
			c.Skipped = &junitMessage{Message: "expected failure: " + firstLine(x.Message), Body: x.Message}
			s.Skipped++
		default:
			c.Skipped = &junitMessage{Message: x.Status + ": " + firstLine(x.Message), Body: x.Message}
			s.Skipped++
		}
		s.Tests++
		s.Cases = append(s.Cases, c)
	}
	var doc junitSuites
	for _, n := range order {
		doc.Suites = append(doc.Suites, *bySDK[n])
	}
	b, err := xml.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append([]byte(xml.Header), append(b, '\n')...), 0o644)
}

func firstLine(s string) string { return strings.SplitN(s, "\n", 2)[0] }

var icons = map[string]string{Passed: "✅ passed", Failed: "❌ failed", XFail: "⚠️ xfail", XPass: "❗ xpass",
	Unsupported: "➖ unsupported", Unavailable: "⛔ unavailable", Skipped: "⏭️ skipped"}

// Markdown renders the summary: SDKs, the scenario-by-SDK matrix, failures with their rerun
// commands, expected failures with their reasons, and the cross-SDK payload differences.
func Markdown(r *Results) string {
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
	cells := map[row]map[string]Result{}
	var rows []row
	for _, x := range r.Results {
		k := row{x.Feature, x.Scenario}
		if cells[k] == nil {
			cells[k] = map[string]Result{}
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
	section("Failures", Failed, XPass)
	section("Expected failures (known divergences)", XFail)
	section("Unsupported", Unsupported)

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
func differences(r *Results) string {
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
			if d.Class == Normative {
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
func observations(r *Results) string {
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
func schemaViolations(r *Results) string {
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
