package harness

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/copilot-sdk-conformance/conformance/steps"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A hand-made recording of "a terminal tool is sent as isTerminal true on session.create": the
// driver's answers and the SDK's session.create, with the tool as given.
func recording(tool string) string {
	return strings.Join([]string{
		`{"seq":1,"t_ms":0,"dir":"note","kind":"scenario","scenario":{"name":"a terminal tool is sent as \"isTerminal\": true on session.create","feature":"tools/is_terminal.feature","sdk":"go"}}`,
		`{"seq":2,"t_ms":1,"conn":"driver","dir":"harness->driver","frame":{"id":1,"cmd":"connect","args":{"client":"c1","address":"127.0.0.1:1"}}}`,
		`{"seq":3,"t_ms":2,"conn":"driver","dir":"driver->harness","frame":{"id":1,"outcome":"ok","result":{}}}`,
		`{"seq":4,"t_ms":3,"conn":"driver","dir":"harness->driver","frame":{"id":2,"cmd":"createSession","args":{"client":"c1","session":"s1","tools":[]}}}`,
		`{"seq":5,"t_ms":4,"conn":"c1","dir":"sdk->runtime","frame":{"jsonrpc":"2.0","id":"a","method":"connect","params":{}}}`,
		`{"seq":6,"t_ms":5,"conn":"c1","dir":"sdk->runtime","frame":{"jsonrpc":"2.0","id":"b","method":"session.create","params":{"sessionId":"s","tools":[` + tool + `]}}}`,
		`{"seq":7,"t_ms":6,"conn":"driver","dir":"driver->harness","frame":{"id":2,"outcome":"ok","result":{"sessionId":"s"}}}`,
		`{"seq":8,"t_ms":7,"conn":"driver","dir":"harness->driver","frame":{"id":3,"cmd":"stopClient","args":{"client":"c1"}}}`,
		`{"seq":9,"t_ms":8,"conn":"driver","dir":"driver->harness","frame":{"id":3,"outcome":"ok","result":{}}}`,
	}, "\n") + "\n"
}

func TestReplay(t *testing.T) {
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	tests := []struct {
		name, tool, wantErr string
	}{
		{"the recorded frames pass", `{"name":"finish","isTerminal":true}`, ""},
		{"a renamed key fails with its path", `{"name":"finish","is_terminal":true}`, "the key is absent"},
		{"a snake_case key anywhere fails", `{"name":"finish","isTerminal":true,"is_terminal":true}`, `"is_terminal" at tools[0].is_terminal`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "t.ndjson")
			require.NoError(t, os.WriteFile(path, []byte(recording(tt.tool)), 0o644))
			o, sdk, err := Replay(root, path, steps.Initializer)
			require.NoError(t, err)
			assert.Equal(t, "go", sdk)
			if tt.wantErr == "" {
				assert.NoError(t, o.Err)
				return
			}
			require.Error(t, o.Err)
			assert.Contains(t, o.Err.Error(), tt.wantErr)
		})
	}
}

func TestReplayRejectsForeignFiles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.ndjson")
	require.NoError(t, os.WriteFile(path, []byte("not json\n"), 0o644))
	_, _, err := Replay("../..", path, steps.Initializer)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "t.ndjson:1")
}

// A scenario the recorded run did not reach replays as what it was: unsupported with the
// driver's note, or unavailable.
func TestReplayOfScenariosThatDidNotRun(t *testing.T) {
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	header := `{"seq":1,"t_ms":0,"dir":"note","kind":"scenario","scenario":{"name":"a terminal tool is sent as \"isTerminal\": true on session.create","feature":"tools/is_terminal.feature","sdk":"go"}}`
	tests := []struct {
		name, notRun                 string
		wantUnsupported, wantUnavail string
	}{
		{"lacks a capability", `{"seq":2,"t_ms":1,"dir":"note","kind":"not-run","capability":"tool.isTerminal","reason":"no such field"}`,
			"go SDK lacks capability tool.isTerminal: no such field", ""},
		{"SDK unavailable", `{"seq":2,"t_ms":1,"dir":"note","kind":"not-run","reason":"go not found on PATH"}`, "", "go not found on PATH"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "t.ndjson")
			require.NoError(t, os.WriteFile(path, []byte(header+"\n"+tt.notRun+"\n"), 0o644))
			o, _, err := Replay(root, path, steps.Initializer)
			require.NoError(t, err)
			assert.NoError(t, o.Err)
			assert.Equal(t, tt.wantUnsupported, o.Unsupported)
			assert.Equal(t, tt.wantUnavail, o.Unavailable)
		})
	}
}
