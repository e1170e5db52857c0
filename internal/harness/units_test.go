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
