package harness

import (
	"testing"

	"github.com/copilot-sdk-conformance/conformance/internal/sdks"
	"github.com/copilot-sdk-conformance/conformance/internal/suite"
	"github.com/stretchr/testify/assert"
)

func TestUnitsOnePerVersion(t *testing.T) {
	p := &plan{pins: map[string]sdks.Pin{"node": {Version: "1.0.14"}, "go": {Version: "v1.0.14"}}}
	cfg := Config{Versions: map[string][]string{"node": {"1.0.8", "1.0.14"}, "python": {"1.0.9"}}}
	got := units(cfg, p, []string{"node", "go", "python"})
	assert.Equal(t, []unit{
		{sdk: "node", version: "1.0.8", label: "node@1.0.8", explicit: true},
		{sdk: "node", version: "1.0.14", label: "node@1.0.14", explicit: true},
		{sdk: "go", version: "v1.0.14", label: "go"},
		{sdk: "python", version: "1.0.9", label: "python", explicit: true},
	}, got)
	assert.Contains(t, rerun(cfg, got[0], suiteOutcome("f.feature", "s")), "--sdk-version node=1.0.8 ")
	assert.NotContains(t, rerun(cfg, got[2], suiteOutcome("f.feature", "s")), "--sdk-version")
}

func suiteOutcome(feature, scenario string) suite.Outcome {
	return suite.Outcome{Feature: feature, Scenario: scenario}
}

// TestMarkLead: the first unit of the SDK with the longest cold preparation leads, the units of
// SDKs expected to prepare sooner yield, and another unit of the lead's SDK does neither.
func TestMarkLead(t *testing.T) {
	sdkOf := func(names ...string) []unit {
		var us []unit
		for _, n := range names {
			us = append(us, unit{sdk: n, label: n})
		}
		return us
	}
	type mark struct{ lead, yield bool }
	for _, c := range []struct {
		name  string
		units []unit
		want  []mark
	}{
		{"rust leads the others", sdkOf("node", "go", "rust", "java"), []mark{{yield: true}, {yield: true}, {lead: true}, {yield: true}}},
		{"without rust, java leads", sdkOf("python", "java"), []mark{{yield: true}, {lead: true}}},
		{"two versions of one SDK: the first leads", sdkOf("rust", "rust", "go"), []mark{{lead: true}, {}, {yield: true}}},
		{"one SDK alone leads", sdkOf("go"), []mark{{lead: true}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			markLead(c.units)
			var got []mark
			for _, u := range c.units {
				got = append(got, mark{u.lead, u.yield})
			}
			assert.Equal(t, c.want, got)
		})
	}
}
