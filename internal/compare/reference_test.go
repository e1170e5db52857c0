package compare

import (
	"testing"

	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A run of one SDK is judged against the other SDKs' recorded pins: a field it sends under
// another key, or drops, is a cross-SDK failure; the same key is none; a known difference is
// xfail. An SDK that ran is never replaced by its own reference.
func TestOneSDKIsComparedWithTheReference(t *testing.T) {
	const feature, scenario = "surface/fields.feature", "every field"
	ref := &report.Reference{SDKs: []report.ReferenceSDK{
		{SDK: "node", Version: "1.0.14", Scenarios: []report.ReferenceScenario{{Feature: feature, Scenario: scenario,
			Observations: map[string]string{"surface session.create workingdirectory": "workingDirectory"}}}},
		{SDK: "go", Version: "v1.0.14", Scenarios: []report.ReferenceScenario{{Feature: feature, Scenario: scenario,
			Observations: map[string]string{"surface session.create workingdirectory": "workingDirectory"}}}},
	}}
	known := []report.KnownDifference{{Request: "session.create", Field: "workingdirectory", Keys: map[string]string{"node": "workingDirectory", "go": "cwd"}, Where: "diffs.yaml:1"}}
	tests := []struct {
		name   string
		key    string
		known  []report.KnownDifference
		status []string
	}{
		{name: "the same key as the reference", key: "workingDirectory"},
		{name: "a renamed key", key: "working_directory", status: []string{report.Failed}},
		{name: "a dropped field", key: "not sent", status: []string{report.Failed}},
		{name: "a known difference", key: "cwd", known: known, status: []string{report.XFail}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			results := []report.Result{{Feature: feature, Scenario: scenario, SDK: "go", Version: "v1.0.15", Status: report.Passed, Transcript: "t.ndjson",
				Observations: map[string]string{"surface session.create workingdirectory": tt.key}}}
			withRef, added := WithReference(results, ref)
			assert.Equal(t, []string{"node@1.0.14"}, added[[2]string{feature, scenario}], "go ran: only node comes from the reference")
			comps, err := Scenarios(nil, withRef)
			require.NoError(t, err)
			var got []string
			for _, c := range CrossSDK(comps, tt.known) {
				got = append(got, c.Status)
			}
			assert.Equal(t, tt.status, got)
		})
	}
}
