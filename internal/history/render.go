package history

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/text"
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

// MarkdownBudget is the most history.md holds, however many versions: the timeline and the
// regressions first, then each version's changes with caps (history.html and history.json have
// everything).
const MarkdownBudget = 48 << 10

// limits cap what history.md lists of one version; Markdown tries the roomier ones first.
type limits struct {
	refs     int // scenarios under one wire change
	wire     int // silent wire changes (and those that came with a status change)
	changes  int // other changes
	examples int // examples per explained kind
	lines    int // failure lines under one change
}

var mdLimits = []limits{{5, 20, 20, 8, 5}, {2, 10, 10, 4, 3}, {1, 5, 5, 3, 2}, {0, 3, 3, 2, 0}, {0, 3, 1, 2, 0}}

const elsewhere = "(history.html, history.json)"

// Markdown renders history.md: the timeline, the regressions, then each version that changed:
// its silent wire changes, its other changes, and the changes its declarations explain grouped
// per kind. Each list is capped, the longest versions' caps tightened (to one line of counts at
// last) until the whole fits MarkdownBudget.
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
	fmt.Fprintf(&b, "\n**%s** between consecutive versions.", h.CountLine())
	if w := h.WireCountLine(); w != "" {
		fmt.Fprintf(&b, " Wire changes: %s.", w)
		for _, k := range Explained {
			if h.WireCounts[k] > 0 {
				fmt.Fprintf(&b, " The %s are explained by the SDK's declarations or the schema, not silent.", strings.Join(Explained, ", "))
				break
			}
		}
	}
	b.WriteString("\n\n| version | status | results | changes since the previous |\n|---|---|---|---|\n")
	for _, v := range h.Versions {
		status := v.Status
		if v.Status != report.Available {
			status += ": " + mdCell(Brief(v.Reason))
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", v.Version, status, totals(v.Totals), mdCell(v.Summary()))
	}

	b.WriteString("\n## Regressions\n\n")
	var regressions []string
	for _, v := range h.Versions {
		for _, c := range v.Changes {
			if c.Kind == Regression {
				regressions = append(regressions, mdChange(c, " ("+v.Version+")", mdLimits[0]))
			}
		}
	}
	for i, r := range regressions {
		if i == maxRegressions || b.Len()+len(r) > MarkdownBudget/2 {
			fmt.Fprintf(&b, "- and %d more %s\n", len(regressions)-i, elsewhere)
			break
		}
		b.WriteString(r)
	}
	if len(regressions) == 0 {
		b.WriteString("None.\n")
	}

	var changed []Version
	for _, v := range h.Versions {
		if len(v.Changes) > 0 {
			changed = append(changed, v)
		}
	}
	if len(changed) > 0 {
		b.WriteString("\n## Changes per version\n")
	}
	// Every version starts with the roomiest caps; while the whole is over the budget, the
	// version whose section is the longest takes the next tighter caps (its one line at last).
	sections := make([][]string, len(changed)) // per version: its section at each level, then its line
	level, total := make([]int, len(changed)), b.Len()
	for i, v := range changed {
		for _, l := range mdLimits {
			sections[i] = append(sections[i], mdVersion(v, l))
		}
		sections[i] = append(sections[i], mdBrief(v))
		total += len(sections[i][0])
	}
	for total > MarkdownBudget-100 {
		longest := -1
		for i := range changed {
			if level[i] < len(sections[i])-1 && (longest < 0 || len(sections[i][level[i]]) > len(sections[longest][level[longest]])) {
				longest = i
			}
		}
		if longest < 0 {
			break // every version in one line
		}
		total -= len(sections[longest][level[longest]])
		level[longest]++
		total += len(sections[longest][level[longest]])
	}
	for i := range changed {
		if b.Len()+len(sections[i][level[i]]) > MarkdownBudget-100 {
			fmt.Fprintf(&b, "\nThe changes of %d more version%s are left out to keep this file short %s.\n",
				len(changed)-i, plural(len(changed)-i), elsewhere)
			break
		}
		b.WriteString(sections[i][level[i]])
	}
	return b.String()
}

// maxRegressions bounds the regressions' section (it takes at most half of the budget too).
const maxRegressions = 50

// mdBrief is a version's section in one line, when even the tightest caps do not fit its share.
func mdBrief(v Version) string {
	var silent []string
	for _, w := range v.Wire {
		if w.Silent && len(silent) < 3 {
			silent = append(silent, "`"+clip(w.Headline)+"`")
		}
	}
	line := v.Counts()
	if len(silent) > 0 {
		line += "; silent: " + strings.Join(silent, ", ")
	}
	return fmt.Sprintf("\n### %s (since %s)\n\n%s; listed %s\n", v.Version, v.Previous, line, elsewhere)
}

// Counts is the version's changes per kind, and its wire changes per kind, in one line.
func (v Version) Counts() string {
	changes, wires := map[string]int{}, map[string]int{}
	for _, c := range v.Changes {
		changes[c.Kind]++
	}
	for _, w := range v.Wire {
		wires[w.Kind]++
	}
	line := func(m map[string]int) string {
		var parts []string
		for _, k := range Kinds {
			if n := m[k]; n > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", n, k))
			}
		}
		return strings.Join(parts, ", ")
	}
	out := line(changes)
	if w := line(wires); w != "" {
		out += "; wire changes: " + w
	}
	return out
}

// mdVersion is one version's section of history.md.
func mdVersion(v Version, l limits) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n### %s (since %s)\n\n", v.Version, v.Previous)
	listed, more := 0, 0
	for _, w := range v.Wire {
		if slices.Contains(Explained, w.Kind) {
			continue
		}
		if listed == l.wire {
			more++
			continue
		}
		listed++
		label := "wire change (with a " + w.Kind + ")"
		if w.Silent {
			label = "silent wire change"
		}
		fmt.Fprintf(&b, "- **%s**: `%s`", label, w.Headline)
		if w.Cross != "" {
			fmt.Fprintf(&b, " — %s", w.Cross)
		}
		n := w.ScenarioCount()
		fmt.Fprintf(&b, " (%d scenario%s)\n", n, plural(n))
		for i, r := range w.Scenarios {
			if i == l.refs {
				if l.refs > 0 {
					fmt.Fprintf(&b, "  - and %d more %s\n", len(w.Scenarios)-l.refs, elsewhere)
				}
				break
			}
			fmt.Fprintf(&b, "  - %s: %s (%s) [before](%s) [after](%s)\n", r.Feature, r.Scenario, r.Request, r.Before, r.After)
		}
	}
	if more > 0 {
		fmt.Fprintf(&b, "- and %d more wire change%s %s\n", more, plural(more), elsewhere)
	}
	listed = 0
	regressions := 0
	unlisted := map[string]int{}
	for _, c := range v.Changes { // in reading order: capability lost and fixes before gains
		switch {
		case c.Kind == Regression:
			regressions++
		case c.Kind == SilentWire || slices.Contains(Explained, c.Kind):
			// listed by wire change
		case listed == l.changes:
			unlisted[c.Kind]++
		default:
			listed++
			b.WriteString(mdChange(c, "", l))
		}
	}
	if len(unlisted) > 0 {
		var parts []string
		for _, k := range Kinds {
			if n := unlisted[k]; n > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", n, k))
			}
		}
		fmt.Fprintf(&b, "- not listed here: %s %s\n", strings.Join(parts, ", "), elsewhere)
	}
	if regressions > 0 {
		fmt.Fprintf(&b, "- %d regression%s: listed under Regressions above\n", regressions, plural(regressions))
	}
	for _, k := range Explained {
		var heads []string
		because := ""
		scenarios := map[string]bool{}
		for _, w := range v.Wire {
			if w.Kind == k {
				heads = append(heads, "`"+w.Headline+"`")
				for _, r := range w.Scenarios {
					scenarios[r.key()] = true
				}
				if because == "" {
					because = w.Because
				}
			}
		}
		if len(heads) == 0 {
			continue
		}
		fmt.Fprintf(&b, "- **%s**: %d wire change%s in %d scenario%s: ", k, len(heads), plural(len(heads)), len(scenarios), plural(len(scenarios)))
		if len(heads) > l.examples {
			fmt.Fprintf(&b, "%s and %d more %s", strings.Join(heads[:l.examples], ", "), len(heads)-l.examples, elsewhere)
		} else {
			b.WriteString(strings.Join(heads, ", "))
		}
		fmt.Fprintf(&b, "; e.g. %s\n", mdCell(because))
	}
	return b.String()
}

// mdChange is one change of status (or of the failures) in history.md, suffix after its kind
// (the version, in the regressions' section).
func mdChange(c Change, suffix string, l limits) string {
	var b strings.Builder
	if c.Scenario == "" {
		fmt.Fprintf(&b, "- **%s**%s: %s\n", c.Kind, suffix, c.Message)
		return b.String()
	}
	fmt.Fprintf(&b, "- **%s**%s: %s: %s — %s → %s", c.Kind, suffix, c.Feature, c.Scenario, orNew(c.From), c.To)
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
		for i, line := range f.lines {
			if i == l.lines {
				if i == 0 {
					fmt.Fprintf(&b, "  - %s: %d line%s %s\n", f.label, len(f.lines), plural(len(f.lines)), elsewhere)
				} else {
					fmt.Fprintf(&b, "  - and %d more %s\n", len(f.lines)-l.lines, elsewhere)
				}
				break
			}
			fmt.Fprintf(&b, "  - %s: `%s`\n", f.label, mdCell(strings.ReplaceAll(line, "`", "'")))
		}
	}
	if c.Recheck != "" {
		fmt.Fprintf(&b, "  - rechecked: %s\n", c.Recheck)
	}
	if c.Rerun != "" {
		fmt.Fprintf(&b, "  - rerun: `%s`\n", c.Rerun)
	}
	return b.String()
}

// ScenarioCount is how many scenarios show the wire change (Scenarios has one entry per request:
// a sweep that calls a method eight times is one scenario).
func (w Wire) ScenarioCount() int {
	seen := map[string]bool{}
	for _, r := range w.Scenarios {
		seen[r.key()] = true
	}
	return len(seen)
}

func (r Ref) key() string { return r.Feature + "\x00" + r.Scenario }

// WireCountLine is the wire changes per kind, e.g. "3 silent-wire-change, 27 method-generated".
func (h *History) WireCountLine() string {
	var parts []string
	for _, k := range Kinds {
		if n := h.WireCounts[k]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, k))
		}
	}
	return strings.Join(parts, ", ")
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
		if w.Silent {
			parts = append(parts, w.Headline)
		}
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
	for _, k := range slices.Sorted(maps.Keys(m)) {
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

// stepsFailed is the head line of a scenario's message when several steps failed.
var stepsFailed = regexp.MustCompile(`^\d+ steps failed:$`)

// headline is a failure message's first line; for several failed steps ("2 steps failed:"),
// that line and the first failure under it, which names what failed.
func headline(s string) string {
	lines := strings.SplitN(strings.TrimSpace(s), "\n", 3)
	if len(lines) > 1 && stepsFailed.MatchString(strings.TrimSpace(lines[0])) {
		return strings.TrimSpace(lines[0]) + " " + strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(lines[1]), "1. "))
	}
	return lines[0]
}

func mdCell(s string) string {
	s = strings.ReplaceAll(headline(s), "|", `\|`)
	if r := []rune(s); len(r) > 400 {
		s = string(r[:399]) + "…"
	}
	return s
}

//go:embed history.html.tmpl
var pageTemplate string

var page = template.Must(template.New("history").Funcs(template.FuncMap{
	"totals": totals, "others": othersLine, "orNew": orNew, "first": text.FirstLine, "brief": Brief,
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
