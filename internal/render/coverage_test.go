package render

import (
	"testing"

	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/stretchr/testify/assert"
)

func TestSchemaCoverageSection(t *testing.T) {
	r := &report.Results{Coverage: &report.Coverage{Methods: 368,
		SDKs: []report.SDKCoverage{{SDK: "node", Sent: 2, Answered: 1}, {SDK: "go", Sent: 1}},
		Exercised: []report.MethodUse{
			{Method: "permission.request", Direction: "answered", InSchema: true, SDKs: []string{"node"}, Features: []string{"a.feature"}},
			{Method: "session.create", Direction: "sent", InSchema: true, SDKs: []string{"go", "node"}, Features: []string{"a", "b", "c", "d"}},
		},
		Unexercised: make([]string, 366)}}
	got := MarkdownText(r)
	assert.Contains(t, got, "2 of the schema's 368 methods exercised")
	assert.Contains(t, got, "**366 never exercised**")
	assert.Contains(t, got, "| node | 2 | 1 |")
	assert.Contains(t, got, "| `session.create` | sent | all | 4 features |")
	assert.Contains(t, got, "| `permission.request` | answered | node | a.feature |")
}
