package sweepcheck

import (
	"testing"

	"github.com/copilot-sdk-conformance/conformance/internal/schemagen"
	"github.com/copilot-sdk-conformance/conformance/steps/jsondiff"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type call struct{ ns, id string }

func (c call) Namespace() string { return c.ns }
func (c call) ID() string        { return c.id }

// Findings are filed under their case's namespace and name; none is no error.
func TestFailuresGroupByNamespace(t *testing.T) {
	f := Failures{}
	require.NoError(t, f.Err("calls", "failed"))
	f.Add(call{"server.models", "models.list [all]"}, "request #%d %s", 3, "differs")
	f.Add(call{"server.models", "models.get [required]"}, "raised")
	f.Add(call{"session.plan", "session.plan.read [required]"}, "raised")
	assert.Equal(t, []string{"models.list [all]: request #3 differs", "models.get [required]: raised"}, f["server.models"])
	err := f.Err("calls", "did not put the params on the wire as given")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "generated calls did not put the params on the wire as given")
	assert.Contains(t, err.Error(), "session.plan.read [required]: raised")
}

type observations map[string]string

func (o observations) Observe(k, v string) { o[k] = v }

// Unknown fields are counted at every depth as sent, and as dropped only when the value the
// application received left one out; nothing is observed when none was sent.
func TestUnknownCountsKeptAndDropped(t *testing.T) {
	unknown := map[string]any{schemagen.UnknownField: schemagen.UnknownValue}
	sent := map[string]any{schemagen.UnknownField: schemagen.UnknownValue, "a": []any{unknown, unknown}}
	got := map[string]any{"a": []any{unknown, map[string]any{}}}
	var u Unknown
	u.Seen(sent, got)
	var kept []jsondiff.Difference
	for _, d := range jsondiff.Diff(sent, got, "") {
		if !u.Dropped(d) {
			kept = append(kept, d)
		}
	}
	assert.Empty(t, kept, "a dropped unknown field is no failure")
	o := observations{}
	u.Observe(o, "results")
	assert.Equal(t, observations{"results: a field the schema does not know": "kept 1, dropped 2 of 3 sent"}, o)

	none := observations{}
	(&Unknown{}).Observe(none, "events")
	assert.Empty(t, none)
}
