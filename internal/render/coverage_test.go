package render

import (
	"testing"

	"github.com/copilot-sdk-conformance/conformance/internal/coverage"
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

// TestHandlerReason: the summary words a runtime-to-SDK method's reason in a few words, with the
// error code the SDK answered when called without a handler.
func TestHandlerReason(t *testing.T) {
	tests := []struct{ reason, want string }{
		{"unsupported: driver: the node public API for x is …", "driver gap"},
		{"unsupported: node 1.0: no public API registers a tasks.cancel handler", "no public handler API"},
		{"unsupported: node 1.0: no public API registers a tasks.cancel handler; " + coverage.CalledWithoutHandler + "error -32603 No tasks handler registered for session: abc",
			"no public handler API, called anyway: error -32603"},
		{"unsupported: go 1.0: none; " + coverage.CalledWithoutHandler + "a result", "no public handler API, called anyway: a result"},
		{"runtime-to-SDK method: no scenario of this run sent it", "not run"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, handlerReason(tt.reason), tt.reason)
	}
}

// TestSweepTableHandlers: the runtime-to-SDK column counts handled and called-without-a-handler
// methods, and a line per SDK names the rest by short reason; handler reasons stay out of the
// general reasons column.
func TestSweepTableHandlers(t *testing.T) {
	c := &report.Coverage{Sweep: []report.SweepCoverage{{SDK: "node", Methods: 3, Covered: 1, Handlers: 3, HandlersCovered: 1, HandlersCalled: 1,
		Uncovered: []report.Uncovered{
			{Name: "tasks.cancel", Kind: "handler", Reason: "unsupported: node 1: none; " + coverage.CalledWithoutHandler + "error -32601 Unhandled method tasks.cancel"},
			{Name: "llm.start", Kind: "handler", Reason: "unsupported: driver: not mapped"},
		}}}}
	got := sweepTable(c)
	assert.Contains(t, got, "| node | 1 of 3 | 1 of 3 (+1 called without a handler) | 0 of 0 |  |")
	assert.Contains(t, got, "- node: no public handler API, called anyway: error -32601: `tasks.cancel`; driver gap: `llm.start`")
}
