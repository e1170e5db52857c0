// Package sweepcheck holds what the schema sweep and the event sweep judge with alike: findings
// grouped by namespace (Failures), and the fields the schema does not know counted as kept or
// dropped (Unknown).
package sweepcheck

import (
	"fmt"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/schemagen"
	"github.com/copilot-sdk-conformance/conformance/steps/jsondiff"
)

// Case is what a finding is filed under: its namespace and its own name in the report.
type Case interface {
	Namespace() string
	ID() string
}

// Failures groups findings by namespace, so that a report of hundreds stays readable.
type Failures map[string][]string

// Add files a finding about c.
func (f Failures) Add(c Case, format string, args ...any) {
	f[c.Namespace()] = append(f[c.Namespace()], c.ID()+": "+fmt.Sprintf(format, args...))
}

// Err is every finding as one error ("generated <noun> <what>"), nil when there is none.
func (f Failures) Err(noun, what string) error {
	return jsondiff.GroupedError(f, "generated "+noun+" "+what, "namespaces")
}

// Unknown counts the fields the schema does not know (schemagen.UnknownField) that were sent,
// and those the application's typed value dropped: an SDK may keep or drop them (a typed value
// has no field for them), never fail on them or let them change another field.
type Unknown struct{ sent, lost int }

// Seen counts the unknown fields of a value sent.
func (u *Unknown) Seen(sent, _ any) { u.sent += countKey(sent, schemagen.UnknownField) }

// Dropped says whether d is an unknown field the application's value left out, and counts it.
func (u *Unknown) Dropped(d jsondiff.Difference) bool {
	if d.Kind == "missing" && strings.HasSuffix(d.Path, "/"+schemagen.UnknownField) && d.Want == schemagen.UnknownValue {
		u.lost++
		return true
	}
	return false
}

// Observer is where the count is recorded: the scenario's observations (scenario.Scenario).
type Observer interface{ Observe(key, value string) }

// Observe records how many unknown fields were kept and dropped, when any was sent; noun names
// the values sent ("results").
func (u *Unknown) Observe(o Observer, noun string) {
	if u.sent > 0 {
		o.Observe(noun+": a field the schema does not know", fmt.Sprintf("kept %d, dropped %d of %d sent", u.sent-u.lost, u.lost, u.sent))
	}
}

// countKey counts the objects in v that have key k.
func countKey(v any, k string) int {
	n := 0
	switch v := v.(type) {
	case map[string]any:
		if _, ok := v[k]; ok {
			n++
		}
		for _, x := range v {
			n += countKey(x, k)
		}
	case []any:
		for _, x := range v {
			n += countKey(x, k)
		}
	}
	return n
}
