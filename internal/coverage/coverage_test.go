package coverage

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func writeTranscript(t *testing.T, dir, rel string, lines ...string) {
	t.Helper()
	p := filepath.Join(dir, rel)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644))
}

func TestCompute(t *testing.T) {
	dir := t.TempDir()
	writeTranscript(t, dir, "transcripts/node/a.ndjson",
		`{"seq":1,"conn":"c1","dir":"sdk->runtime","frame":{"jsonrpc":"2.0","id":1,"method":"session.create","params":{}}}`,
		`{"seq":2,"conn":"c1","dir":"runtime->sdk","frame":{"jsonrpc":"2.0","id":1,"result":{}}}`,
		`{"seq":3,"conn":"c1","dir":"runtime->sdk","frame":{"jsonrpc":"2.0","id":"r1","method":"permission.request","params":{}}}`,
		`{"seq":4,"conn":"c1","dir":"sdk->runtime","frame":{"jsonrpc":"2.0","id":"r1","result":{"kind":"approved"}}}`,
		`{"seq":5,"conn":"c1","dir":"runtime->sdk","frame":{"jsonrpc":"2.0","id":"r2","method":"userInput.request","params":{}}}`,
		`{"seq":6,"conn":"c1","dir":"sdk->runtime","frame":{"jsonrpc":"2.0","method":"session.log","params":{}}}`)
	writeTranscript(t, dir, "transcripts/go/a.ndjson",
		`{"seq":1,"conn":"c1","dir":"sdk->runtime","frame":{"jsonrpc":"2.0","id":"x","method":"session.create","params":{}}}`)
	res := &report.Results{Results: []report.Result{
		{Feature: "a.feature", Scenario: "s", SDK: "node", Transcript: "transcripts/node/a.ndjson"},
		{Feature: "a.feature", Scenario: "s", SDK: "go", Transcript: "transcripts/go/a.ndjson"},
		{Feature: "b.feature", Scenario: "t", SDK: "go", Transcript: "transcripts/go/missing.ndjson"},
	}}
	schema := []string{"permission.request", "session.create", "session.delete", "userInput.request"}
	c := Compute(transcript.NewStore(dir), res, schema, "test schema", nil)

	assert.Equal(t, []report.MethodUse{
		{Method: "permission.request", Direction: Answered, InSchema: true, SDKs: []string{"node"}, Features: []string{"a.feature"}},
		{Method: "session.create", Direction: Sent, InSchema: true, SDKs: []string{"go", "node"}, Features: []string{"a.feature"}},
		{Method: "session.log", Direction: Sent, InSchema: false, SDKs: []string{"node"}, Features: []string{"a.feature"}},
	}, c.Exercised)
	// userInput.request was asked but never answered: not exercised.
	assert.Equal(t, []string{"session.delete", "userInput.request"}, c.Unexercised)
	assert.Equal(t, []report.SDKCoverage{{SDK: "node", Sent: 1, Answered: 1}, {SDK: "go", Sent: 1}}, c.SDKs)
	assert.Equal(t, 4, c.Methods)
}

// TestSweepAccount: every catalog item is covered or has its reason, per SDK.
func TestSweepAccount(t *testing.T) {
	dir := t.TempDir()
	writeTranscript(t, dir, "transcripts/node/sweep.ndjson",
		`{"seq":1,"conn":"driver","dir":"harness->driver","frame":{"id":4,"cmd":"rpcBatch","args":{"calls":[{"session":"s1","method":"session.a","params":{}},{"session":"s1","method":"session.b","params":{}}]}}}`,
		`{"seq":2,"conn":"c1","dir":"sdk->runtime","frame":{"jsonrpc":"2.0","id":1,"method":"session.a","params":{}}}`,
		`{"seq":3,"conn":"driver","dir":"driver->harness","frame":{"id":4,"outcome":"ok","result":{"outcomes":[{"outcome":"ok","result":null},{"outcome":"unsupported","reason":"node 1.0: session.b is not in this SDK's generated layer"}]}}}`,
		`{"seq":4,"conn":"c1","dir":"runtime->sdk","frame":{"jsonrpc":"2.0","method":"session.event","params":{"sessionId":"x","event":{"type":"idle","data":{}}}}}`,
		`{"seq":5,"conn":"c1","dir":"runtime->sdk","frame":{"jsonrpc":"2.0","method":"session.event","params":{"sessionId":"x","event":{"type":"abort","data":{}}}}}`,
		`{"seq":6,"conn":"driver","dir":"driver->harness","frame":{"event":"session.event","args":{"session":"s1","type":"idle","data":{}}}}`)
	res := &report.Results{Results: []report.Result{
		{Feature: "schema/x.feature", Scenario: "s", SDK: "node", Transcript: "transcripts/node/sweep.ndjson"},
		{Feature: "schema/x.feature", Scenario: "s", SDK: "java", Status: report.Unsupported, Capability: "rpc.generated", Message: "java driver has no rpc"},
	}}
	catalog := []report.SchemaItem{
		{Name: "abort", Kind: "event"}, {Name: "idle", Kind: "event"},
		{Name: "fs.read", Kind: "handler"},
		{Name: "connect", Kind: "method", Internal: true}, {Name: "session.a", Kind: "method"}, {Name: "session.b", Kind: "method"},
	}
	c := Compute(transcript.NewStore(dir), res, nil, "", catalog)
	require.Len(t, c.Sweep, 2)
	node := c.Sweep[0]
	assert.Equal(t, "node", node.SDK)
	assert.Equal(t, 4, node.Methods)
	assert.Equal(t, 1, node.Covered)
	assert.Equal(t, 2, node.EventTypes)
	assert.Equal(t, 1, node.Events)
	reasons := map[string]string{}
	for _, u := range node.Uncovered {
		reasons[u.Name] = u.Reason
	}
	assert.Contains(t, reasons["abort"], "never received")
	assert.Contains(t, reasons["fs.read"], "runtime-to-SDK")
	assert.Contains(t, reasons["connect"], "internal")
	assert.Equal(t, "unsupported: node 1.0: session.b is not in this SDK's generated layer", reasons["session.b"])
	java := c.Sweep[1]
	assert.Equal(t, "java", java.SDK)
	assert.Len(t, java.Uncovered, 6)
	assert.Equal(t, "unsupported: java driver has no rpc", java.Uncovered[4].Reason)
}

// TestSweepHandlers: a runtime-to-SDK method counts as covered only when an application handler
// reported it; one the SDK has no handler API for, called anyway, is counted apart with the SDK's
// answer in its reason.
func TestSweepHandlers(t *testing.T) {
	dir := t.TempDir()
	writeTranscript(t, dir, "transcripts/node/handlers.ndjson",
		`{"seq":1,"conn":"driver","dir":"driver->harness","frame":{"id":2,"outcome":"ok","result":{"sessionId":"x","handled":["fs.read"],"unhandled":{"tasks.cancel":"node 1.0: no public API registers a tasks.cancel handler","llm.start":"driver: not mapped yet"}}}}`,
		`{"seq":2,"conn":"c1","dir":"runtime->sdk","frame":{"jsonrpc":"2.0","id":7,"method":"fs.read","params":{"sessionId":"x"}}}`,
		`{"seq":3,"conn":"driver","dir":"driver->harness","frame":{"event":"rpc.handled","args":{"session":"s1","method":"fs.read","params":{}}}}`,
		`{"seq":4,"conn":"c1","dir":"sdk->runtime","frame":{"jsonrpc":"2.0","id":7,"result":{"content":"a"}}}`,
		`{"seq":5,"conn":"c1","dir":"runtime->sdk","frame":{"jsonrpc":"2.0","id":8,"method":"tasks.cancel","params":{"sessionId":"x"}}}`,
		`{"seq":6,"conn":"c2","dir":"sdk->runtime","frame":{"jsonrpc":"2.0","id":8,"result":{}}}`,
		`{"seq":7,"conn":"c1","dir":"sdk->runtime","frame":{"jsonrpc":"2.0","id":8,"error":{"code":-32603,"message":"No tasks handler for session: x"}}}`)
	res := &report.Results{Results: []report.Result{
		{Feature: "schema/h.feature", Scenario: "h", SDK: "node", Transcript: "transcripts/node/handlers.ndjson"},
	}}
	catalog := []report.SchemaItem{{Name: "fs.read", Kind: "handler"}, {Name: "llm.start", Kind: "handler"}, {Name: "tasks.cancel", Kind: "handler"}, {Name: "session.a", Kind: "method"}}
	c := Compute(transcript.NewStore(dir), res, nil, "", catalog)
	require.Len(t, c.Sweep, 1)
	s := c.Sweep[0]
	assert.Equal(t, 3, s.Handlers)
	assert.Equal(t, 1, s.HandlersCovered)
	assert.Equal(t, 1, s.HandlersCalled)
	assert.Equal(t, 1, s.Covered)
	reasons := map[string]string{}
	for _, u := range s.Uncovered {
		reasons[u.Name] = u.Reason
	}
	tests := []struct{ method, want string }{
		// the answer on another connection with the same id is not this call's
		{"tasks.cancel", "unsupported: node 1.0: no public API registers a tasks.cancel handler; " + CalledWithoutHandler + "error -32603 No tasks handler for session: <sessionId>"},
		{"llm.start", "unsupported: driver: not mapped yet"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, reasons[tt.method], tt.method)
	}
}

// A handler item served by another capability (the exchange's methods, rpc.requestHandler) takes
// the reason of the scenario that needed it and was unsupported, not a guess from the sweep.
func TestSweepCapabilityGated(t *testing.T) {
	res := &report.Results{Results: []report.Result{
		{Feature: "schema/request_handler.feature", Scenario: "r", SDK: "java", Status: report.Unsupported, Capability: "rpc.requestHandler", Message: "java SDK lacks capability rpc.requestHandler"},
		{Feature: "schema/generated_handlers.feature", Scenario: "h", SDK: "java", Status: report.Unsupported, Capability: "rpc.handlers", Message: "java SDK lacks capability rpc.handlers"},
	}}
	catalog := []report.SchemaItem{{Name: "llm.start", Kind: "handler", Capability: "rpc.requestHandler"}, {Name: "fs.read", Kind: "handler"}}
	c := Compute(transcript.NewStore(t.TempDir()), res, nil, "", catalog)
	require.Len(t, c.Sweep, 1)
	reasons := map[string]string{}
	for _, u := range c.Sweep[0].Uncovered {
		reasons[u.Name] = u.Reason
	}
	assert.Equal(t, "unsupported: java SDK lacks capability rpc.requestHandler", reasons["llm.start"])
	assert.Equal(t, "unsupported: java SDK lacks capability rpc.handlers", reasons["fs.read"])
}
