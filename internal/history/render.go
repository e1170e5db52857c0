package history

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/report"
)

// The files Write puts in the history folder.
const (
	JSONFile     = "history.json"
	MarkdownFile = "history.md"
	HTMLFile     = "history.html"
)

// Write writes history.json, history.md and history.html into dir.
func Write(dir string, h *History) error {
	body, err := json.MarshalIndent(h, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, JSONFile), append(body, '\n'), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, MarkdownFile), []byte(Markdown(h)), 0o644); err != nil {
		return err
	}
	page, err := HTML(h)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, HTMLFile), page, 0o644)
}

// Range is the first and last version of the history.
func (h *History) Range() string {
	if len(h.Versions) == 0 {
		return "no versions"
	}
	return h.Versions[0].Version + " → " + h.Versions[len(h.Versions)-1].Version
}

// CountLine is the changes per kind, e.g. "2 regression, 5 silent-wire-change".
func (h *History) CountLine() string {
	var parts []string
	for _, k := range Kinds {
		if n := h.Counts[k]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, k))
		}
	}
	if len(parts) == 0 {
		return "no changes"
	}
	return strings.Join(parts, ", ")
}

// maxRefs bounds the scenarios listed under one wire change in history.md (history.json and
// history.html have them all).
const maxRefs = 5

// Markdown renders history.md: one section per version that changed, its wire changes first.
func Markdown(h *History) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Conformance history of %s: %s\n\n", h.SDK, h.Range())
	fmt.Fprintf(&b, "`%s`\n\n", h.Command)
	if h.Listing != "" {
		fmt.Fprintf(&b, "Versions: %s.\n", h.Listing)
	}
	if h.Reference != "" {
		fmt.Fprintf(&b, "Cross-SDK: compared with %s.\n", h.Reference)
	}
	fmt.Fprintf(&b, "\n**%s** between consecutive versions.\n\n", h.CountLine())
	b.WriteString("| version | status | results | changes since the previous |\n|---|---|---|---|\n")
	for _, v := range h.Versions {
		status := v.Status
		if v.Status != report.Available {
			status += ": " + mdCell(Brief(v.Reason))
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", v.Version, status, totals(v.Totals), mdCell(v.Summary()))
	}
	for _, v := range h.Versions {
		if len(v.Changes) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n## %s (since %s)\n\n", v.Version, v.Previous)
		for _, w := range v.Wire {
			label := "wire change"
			if w.Silent {
				label = "silent wire change"
			}
			fmt.Fprintf(&b, "- **%s**: `%s`", label, w.Headline)
			if w.Cross != "" {
				fmt.Fprintf(&b, " — %s", w.Cross)
			}
			fmt.Fprintf(&b, " (%d scenario%s)\n", len(w.Scenarios), plural(len(w.Scenarios)))
			for i, r := range w.Scenarios {
				if i == maxRefs {
					fmt.Fprintf(&b, "  - and %d more (history.json, history.html)\n", len(w.Scenarios)-maxRefs)
					break
				}
				fmt.Fprintf(&b, "  - %s: %s (%s) [before](%s) [after](%s)\n", r.Feature, r.Scenario, r.Request, r.Before, r.After)
			}
		}
		for _, c := range v.Changes {
			if c.Kind == SilentWire {
				continue // listed above, by wire change
			}
			if c.Scenario == "" {
				fmt.Fprintf(&b, "- **%s**: %s\n", c.Kind, c.Message)
				continue
			}
			fmt.Fprintf(&b, "- **%s**: %s: %s — %s → %s", c.Kind, c.Feature, c.Scenario, orNew(c.From), c.To)
			if c.Message != "" {
				fmt.Fprintf(&b, ": %s", mdCell(c.Message))
			}
			if others := othersLine(c.Others); others != "" {
				fmt.Fprintf(&b, " (%s)", others)
			}
			b.WriteString("\n")
			if c.Before != "" || c.After != "" {
				fmt.Fprintf(&b, "  - [before](%s) [after](%s)\n", c.Before, c.After)
			}
			for _, f := range []struct {
				label string
				lines []string
			}{{"now fails", c.NowFails}, {"no longer fails", c.NoLongerFails}} {
				for i, l := range f.lines {
					if i == maxRefs {
						fmt.Fprintf(&b, "  - and %d more (history.json, history.html)\n", len(f.lines)-maxRefs)
						break
					}
					fmt.Fprintf(&b, "  - %s: `%s`\n", f.label, strings.ReplaceAll(l, "`", "'"))
				}
			}
			if c.Recheck != "" {
				fmt.Fprintf(&b, "  - rechecked: %s\n", c.Recheck)
			}
			if c.Rerun != "" {
				fmt.Fprintf(&b, "  - rerun: `%s`\n", c.Rerun)
			}
		}
	}
	return b.String()
}

// Summary is the version's changes in one line (the timeline table, the console).
func (v Version) Summary() string {
	if v.Status != report.Available {
		return "not run"
	}
	if v.Previous == "" {
		return "(first version: the baseline)"
	}
	if len(v.Changes) == 0 {
		return "none"
	}
	counts := map[string]int{}
	for _, c := range v.Changes {
		counts[c.Kind]++
	}
	var parts []string
	for _, k := range []string{Regression, CapabilityLost} { // what a reviewer must not miss, first
		if n := counts[k]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, k))
		}
	}
	for _, w := range v.Wire { // silent ones first, fields before requests (wire sorts them so)
		parts = append(parts, w.Headline)
	}
	for _, k := range Kinds {
		if n := counts[k]; n > 0 && k != SilentWire && k != Regression && k != CapabilityLost {
			parts = append(parts, fmt.Sprintf("%d %s", n, k))
		}
	}
	if len(parts) > 4 {
		parts = append(parts[:4], fmt.Sprintf("and %d more", len(parts)-4))
	}
	return strings.Join(parts, "; ")
}

func totals(t map[string]int) string {
	var parts []string
	for _, s := range []string{report.Passed, report.Failed, report.XFail, report.XPass, report.Unsupported, report.Unavailable, report.Skipped} {
		if n := t[s]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, s))
		}
	}
	return strings.Join(parts, ", ")
}

func othersLine(m map[string]string) string {
	var parts []string
	for _, k := range sortedKeys(m) {
		parts = append(parts, k+" "+m[k])
	}
	if len(parts) == 0 {
		return ""
	}
	return "others: " + strings.Join(parts, ", ")
}

func orNew(s string) string {
	if s == "" {
		return "(new)"
	}
	return s
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func firstLine(s string) string { return strings.SplitN(s, "\n", 2)[0] }

// Brief is a reason in one line: its first line and, when the reason carries a command's output,
// the output's last line, where registries and toolchains put their answer ("404 Not Found",
// "This module version is not available").
func Brief(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	first, last := strings.TrimSpace(lines[0]), strings.TrimSpace(lines[len(lines)-1])
	if len(lines) == 1 || last == first {
		return first
	}
	return first + " … " + last
}

func mdCell(s string) string {
	s = strings.ReplaceAll(firstLine(s), "|", `\|`)
	if r := []rune(s); len(r) > 400 {
		s = string(r[:399]) + "…"
	}
	return s
}

//go:embed history.html.tmpl
var pageTemplate string

var page = template.Must(template.New("history").Funcs(template.FuncMap{
	"totals": totals, "others": othersLine, "orNew": orNew, "first": firstLine, "brief": Brief,
}).Parse(pageTemplate))

// HTML renders history.html: one self-contained page (inline CSS and script, nothing fetched),
// the versions down the side and their changes across. Everything shown comes from the SDKs and
// is escaped by html/template; the script only toggles classes.
func HTML(h *History) ([]byte, error) {
	var b bytes.Buffer
	if err := page.Execute(&b, struct {
		*History
		Kinds []string
	}{h, Kinds}); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
