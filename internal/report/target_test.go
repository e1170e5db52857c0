package report

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestByTargetLabelsOnlySDKsWithSeveralVersions(t *testing.T) {
	res := &Results{
		SDKs: []SDK{{Name: "node", Version: "1.0.8"}, {Name: "node", Version: "1.0.14"}, {Name: "go", Version: "v1.0.14"}},
		Results: []Result{
			{SDK: "node", Version: "1.0.8", Scenario: "s"},
			{SDK: "node", Version: "1.0.14", Scenario: "s"},
			{SDK: "go", Version: "v1.0.14", Scenario: "s"},
		},
	}
	got := ByTarget(res)
	var names []string
	for _, r := range got.Results {
		names = append(names, r.SDK)
	}
	assert.Equal(t, []string{"node@1.0.8", "node@1.0.14", "go"}, names)
	assert.Equal(t, "node@1.0.8", got.SDKs[0].Name)
	assert.Equal(t, "node", res.Results[0].SDK, "the records themselves are not changed")
	assert.True(t, MultiVersion(res))

	single := &Results{SDKs: []SDK{{Name: "node", Version: "1.0.14"}}, Results: []Result{{SDK: "node", Version: "1.0.14"}}}
	assert.Same(t, single, ByTarget(single), "a single-version run keeps its names")
}

func TestVersionLess(t *testing.T) {
	tests := []struct {
		a, b string
		less bool
	}{
		{"1.0.8", "1.0.14", true},
		{"v1.0.9", "v1.0.10", true},
		{"1.0.14", "1.0.8", false},
		{"1.0.0-beta.1", "1.0.0", true},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.less, VersionLess(tt.a, tt.b), "%s < %s", tt.a, tt.b)
	}
}
