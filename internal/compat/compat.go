// Package compat is the SDK × runtime compatibility matrix: the same suite run against several
// real runtime versions (conformance run --runtime real --runtime-version A,B), one row per
// SDK@version and one column per runtime version, and, per SDK, the scenarios whose status
// changes from one runtime version to another (what a new runtime would break for an SDK still
// in use).
package compat

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/report"
)

// Run is the suite's results on one runtime version.
type Run struct {
	Runtime string
	Dir     string // its report folder, relative to the matrix's
	Results *report.Results
}

// Cell is one SDK on one runtime version.
type Cell struct {
	Runtime string         `json:"runtime"`
	Counts  map[string]int `json:"counts"`
	// Works: nothing failed and nothing passed unexpectedly (xfail and unsupported are listed
	// in Counts; an unavailable SDK, or one that cannot connect, does not work).
	Works bool `json:"works"`
	// CannotConnect is, when the SDK's client could not connect to this runtime, the SDK's words
	// and the frame it refused (report.SDK.Runtime).
	CannotConnect string `json:"cannotConnect,omitempty"`
}

// Change is one scenario whose status on an SDK differs between runtime versions.
type Change struct {
	Feature  string            `json:"feature"`
	Scenario string            `json:"scenario"`
	Statuses map[string]string `json:"statuses"` // runtime version -> status
}

// Row is one SDK@version across the runtime versions.
type Row struct {
	Target  string   `json:"target"`
	Cells   []Cell   `json:"cells"`
	Changes []Change `json:"changes,omitempty"`
}

// Matrix is the whole comparison.
type Matrix struct {
	Runtimes []string `json:"runtimes"`
	Dirs     []string `json:"dirs"`
	Rows     []Row    `json:"rows"`
}

// Build makes the matrix from one run per runtime version, in the order given.
func Build(runs []Run) Matrix {
	m := Matrix{}
	type key struct{ feature, scenario string }
	statuses := map[string]map[key]map[string]string{} // target -> scenario -> runtime -> status
	cells := map[string]map[string]*Cell{}
	var targets []string
	for _, r := range runs {
		m.Runtimes = append(m.Runtimes, r.Runtime)
		m.Dirs = append(m.Dirs, r.Dir)
		version := map[string]string{} // a run of one version per SDK leaves Result.Version empty
		for _, s := range r.Results.SDKs {
			version[s.Name] = s.Version
			t := report.Target(s.Name, s.Version)
			if cells[t] == nil {
				cells[t] = map[string]*Cell{}
				statuses[t] = map[key]map[string]string{}
				targets = append(targets, t)
			}
			c := &Cell{Runtime: r.Runtime, Counts: map[string]int{}, Works: s.Status == report.Available}
			if why, ok := strings.CutPrefix(s.Runtime, report.CannotConnectReal); ok {
				c.CannotConnect, c.Works = strings.TrimPrefix(why, ": "), false
			}
			cells[t][r.Runtime] = c
		}
		for _, res := range r.Results.Results {
			v := res.Version
			if v == "" {
				v = version[res.SDK]
			}
			t := report.Target(res.SDK, v)
			c := cells[t][r.Runtime]
			if c == nil {
				continue
			}
			c.Counts[res.Status]++
			if report.Failing(res.Status) {
				c.Works = false
			}
			k := key{res.Feature, res.Scenario}
			if statuses[t][k] == nil {
				statuses[t][k] = map[string]string{}
			}
			statuses[t][k][r.Runtime] = res.Status
		}
	}
	for _, t := range targets {
		row := Row{Target: t}
		for _, rt := range m.Runtimes {
			if c := cells[t][rt]; c != nil {
				row.Cells = append(row.Cells, *c)
			} else {
				row.Cells = append(row.Cells, Cell{Runtime: rt, Counts: map[string]int{}})
			}
		}
		for k, by := range statuses[t] {
			first, differ := "", false
			for i, rt := range m.Runtimes {
				s := by[rt]
				if s == "" {
					s = "absent"
				}
				if i == 0 {
					first = s
				} else if s != first {
					differ = true
				}
			}
			if differ {
				row.Changes = append(row.Changes, Change{Feature: k.feature, Scenario: k.scenario, Statuses: by})
			}
		}
		sort.Slice(row.Changes, func(i, j int) bool {
			a, b := row.Changes[i], row.Changes[j]
			return a.Feature+"\x00"+a.Scenario < b.Feature+"\x00"+b.Scenario
		})
		m.Rows = append(m.Rows, row)
	}
	return m
}

// Markdown renders the matrix: a table, then each SDK's changes.
func Markdown(m Matrix) string {
	var b strings.Builder
	b.WriteString("## SDK × runtime compatibility\n\n| SDK |")
	for _, rt := range m.Runtimes {
		fmt.Fprintf(&b, " runtime %s |", rt)
	}
	b.WriteString("\n|---|")
	for range m.Runtimes {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, r := range m.Rows {
		fmt.Fprintf(&b, "| %s |", r.Target)
		for _, c := range r.Cells {
			fmt.Fprintf(&b, " %s |", cellText(c))
		}
		b.WriteString("\n")
	}
	for _, r := range m.Rows {
		if len(r.Changes) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n%s: %d scenario(s) change status between runtime versions\n\n", r.Target, len(r.Changes))
		for _, c := range r.Changes {
			var parts []string
			for _, rt := range m.Runtimes {
				s := c.Statuses[rt]
				if s == "" {
					s = "absent"
				}
				parts = append(parts, rt+" "+s)
			}
			fmt.Fprintf(&b, "- %s: %s — %s\n", c.Feature, c.Scenario, strings.Join(parts, ", "))
		}
	}
	return b.String()
}

func cellText(c Cell) string {
	var parts []string
	for _, s := range []string{report.Passed, report.Failed, report.XFail, report.XPass, report.Unsupported, report.Unavailable, report.Skipped} {
		if n := c.Counts[s]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, s))
		}
	}
	counts := strings.Join(parts, ", ")
	switch {
	case c.CannotConnect != "":
		// The SDK's words and the frame it refused, whatever the results say (they are its
		// expected failures, or its failures, of not connecting).
		why := strings.ReplaceAll(strings.ReplaceAll(c.CannotConnect, "|", "\\|"), "\n", " ")
		if counts != "" {
			counts = " (" + counts + ")"
		}
		return fmt.Sprintf("**cannot connect to runtime %s**: %s%s", c.Runtime, why, counts)
	case !c.Works && counts == "":
		return "**fails**"
	case !c.Works:
		return "**fails**: " + counts
	case counts == "":
		return "ok"
	}
	return "ok: " + counts
}

// Write keeps compat.md and compat.json in dir.
func Write(dir string, m Matrix) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	j, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "compat.json"), append(j, '\n'), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "compat.md"), []byte(Markdown(m)), 0o644)
}
