// Package jsondiff is how the steps and the sweeps compare and show JSON values: the differences
// between what was given and what arrived, by JSON pointer, a value shown short or whole, and
// findings grouped for a readable report.
package jsondiff

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/suite"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
)

// ShowAll is v as compact JSON, HTML characters unescaped.
func ShowAll(v any) string {
	var b strings.Builder
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	_ = e.Encode(v)
	return strings.TrimSpace(b.String())
}

// GroupedError lists failures under their group (a namespace, a method), the groups sorted:
// "N <head>, in K <unit>:", then each group with its lines; nil when there are none.
func GroupedError(groups map[string][]string, head, unit string) error {
	if len(groups) == 0 {
		return nil
	}
	keys := make([]string, 0, len(groups))
	n := 0
	for k, l := range groups {
		keys = append(keys, k)
		n += len(l)
	}
	sort.Strings(keys)
	var b strings.Builder
	var items []string
	fmt.Fprintf(&b, "%d %s, in %d %s:", n, head, len(keys), unit)
	for _, k := range keys {
		fmt.Fprintf(&b, "\n  %s:", k)
		for _, l := range groups[k] {
			fmt.Fprintf(&b, "\n    %s", l)
			items = append(items, k+": "+l)
		}
	}
	return &suite.Divergences{Text: b.String(), Items: items}
}

// CompactList is a sorted list without repeats.
func CompactList(l []string) []string {
	out := append([]string(nil), l...)
	sort.Strings(out)
	return slices.Compact(out)
}

// Difference is one place where what arrived differs from what was given.
type Difference struct {
	Path, Kind string
	Want, Got  any
}

// String words the difference as given and arrived.
func (d Difference) String() string { return d.Say("given", "it arrived") }

// Say words a Difference: what was given (or sent) and how it arrived (or was received).
func (d Difference) Say(given, arrived string) string {
	p := d.Path
	if p == "" {
		p = "/"
	}
	switch d.Kind {
	case "missing":
		return fmt.Sprintf("%s: %s was %s, %s without it", p, Show(d.Want), given, arrived)
	case "added":
		return fmt.Sprintf("%s: not %s, %s as %s", p, given, arrived, Show(d.Got))
	}
	return fmt.Sprintf("%s: %s was %s, %s as %s", p, Show(d.Want), given, arrived, Show(d.Got))
}

// Show is v as compact JSON, cut to 80 characters.
func Show(v any) string {
	s := ShowAll(v)
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}

// Diff lists the differences between two decoded JSON values, by JSON pointer. Two strings
// that are both RFC 3339 date-times are equal when they name the same instant; numbers compare
// by value (encoding/json decodes both to float64).
func Diff(want, got any, at string) []Difference {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return []Difference{{at, "changed", want, got}}
		}
		var out []Difference
		keys := make([]string, 0, len(w)+len(g))
		for k := range w {
			keys = append(keys, k)
		}
		for k := range g {
			if _, ok := w[k]; !ok {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			p := at + "/" + strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
			wv, inW := w[k]
			gv, inG := g[k]
			switch {
			case !inG:
				out = append(out, Difference{p, "missing", wv, nil})
			case !inW:
				out = append(out, Difference{p, "added", nil, gv})
			default:
				out = append(out, Diff(wv, gv, p)...)
			}
		}
		return out
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return []Difference{{at, "changed", want, got}}
		}
		var out []Difference
		for i := range w {
			out = append(out, Diff(w[i], g[i], fmt.Sprintf("%s/%d", at, i))...)
		}
		return out
	case string:
		if g, ok := got.(string); ok && strings.HasPrefix(w, "<redacted:") && transcript.Redacted(g) == w {
			return nil // a secret the runtime sent, recorded by its fingerprint
		}
		if g, ok := got.(string); ok && strings.HasPrefix(g, "<redacted:") {
			if g == transcript.Redacted(w) { // a secret, recorded by its fingerprint
				return nil
			}
		}
		if g, ok := got.(string); ok && g != w {
			if a, err := time.Parse(time.RFC3339Nano, w); err == nil {
				if b, err := time.Parse(time.RFC3339Nano, g); err == nil && a.Equal(b) {
					return nil
				}
			}
		}
	}
	if !reflect.DeepEqual(want, got) {
		return []Difference{{at, "changed", want, got}}
	}
	return nil
}

// SameInstant says whether a and b are RFC 3339 date-times naming the same instant.
func SameInstant(a, b string) bool {
	ta, errA := time.Parse(time.RFC3339Nano, a)
	tb, errB := time.Parse(time.RFC3339Nano, b)
	return errA == nil && errB == nil && ta.Equal(tb)
}
