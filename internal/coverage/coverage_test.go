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
	c := Compute(transcript.NewStore(dir), res, schema, "test schema")

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
