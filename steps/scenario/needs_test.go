package scenario

import (
	"errors"
	"testing"

	"github.com/copilot-sdk-conformance/conformance/internal/driver"
	"github.com/copilot-sdk-conformance/conformance/internal/suite"
	"github.com/copilot-sdk-conformance/conformance/steps/scenario/scenariotest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every capability a command needs is derived from its arguments, and every one is known.
func TestCommandNeedsDerivesFromArguments(t *testing.T) {
	tool := map[string]any{"name": "t", "isTerminal": true, "metadata": map[string]any{},
		"handler": map[string]any{"action": "returnResult", "result": map[string]any{"sessionLog": "x", "textResultForLlm": "y",
			"binaryResultsForLlm": []any{map[string]any{"data": "AA", "metadata": map[string]any{}}}}}}
	tests := []struct {
		cmd  string
		args any
		want []string
	}{
		{"send", map[string]any{"session": "s1"}, nil},
		{"connect", map[string]any{"client": "c1", "address": "x"}, []string{"transport.tcp"}},
		{"connect", map[string]any{"client": "c1", "cliPath": "x", "options": map[string]any{"clientInfo": map[string]any{}}},
			[]string{"transport.stdio", "connect.option.clientInfo"}},
		{"createSession", map[string]any{"tools": []map[string]any{tool}, "gitHubToken": "t",
			"options": map[string]any{"streaming": false, "model": "m"}},
			[]string{"session.option.model", "session.option.streaming", "session.gitHubToken",
				"tool.isTerminal", "tool.metadata", "tool.result.object", "tool.result.binary", "tool.result.sessionLog",
				"tool.result.binary.metadata"}},
		{"resumeSession", map[string]any{"tools": []any{}}, []string{"session.resume"}},
		{"setToolsConcurrently", map[string]any{"toolSets": [][]map[string]any{{{"name": "a",
			"handler": map[string]any{"action": "clearContext"}}}, {{"name": "b", "handler": map[string]any{"action": "returnValue"}}}}},
			[]string{"session.setTools", "session.clearContext", "tool.result.value"}},
		{"setToolsRpc", map[string]any{"tools": nil}, []string{"session.rpc.tools.set", "session.rpc.tools.set.nil"}},
		{"setToolsRpc", map[string]any{"tools": []any{map[string]any{"name": "a", "isTerminal": true}}}, []string{"session.rpc.tools.set"}},
		{"clearContext", map[string]any{"prompt": "p"}, []string{"session.clearContext"}},
	}
	for _, tt := range tests {
		got := CommandNeeds(tt.cmd, tt.args)
		assert.Equal(t, tt.want, got, tt.cmd)
		for _, c := range got {
			assert.True(t, suite.KnownCapability(c), "%s needs unknown capability %s", tt.cmd, c)
		}
	}
}

// An unsupported answer names a capability the driver declared false; with every needed
// capability declared it is a driver fault, whatever the command.
func TestUnsupportedAnswerNamesALackingCapability(t *testing.T) {
	answer := &driver.Response{Outcome: driver.Unsupported, Reason: "the driver cannot"}
	tests := []struct {
		name    string
		caps    map[string]bool
		cmd     string
		args    map[string]any
		wantCap string // "" when the answer is a driver fault
	}{
		{"send needs nothing", nil, "send", map[string]any{"session": "s1"}, ""},
		{"create with every capability declared", map[string]bool{"session.option.model": true},
			"createSession", map[string]any{"options": map[string]any{"model": "m"}}, ""},
		{"create with an option declared false", map[string]bool{"session.option.model": true},
			"createSession", map[string]any{"options": map[string]any{"model": "m", "streaming": true}}, "session.option.streaming"},
		{"a token the driver lacks", nil, "createSession", map[string]any{"gitHubToken": "t"}, "session.gitHubToken"},
		{"connect over tcp declared", map[string]bool{"transport.tcp": true}, "connect", map[string]any{"address": "x"}, ""},
		{"a tool builder's option", nil, "setTools", map[string]any{"tools": []any{map[string]any{"name": "a", "defer": "never"}}}, "session.setTools"},
		{"a tool builder's option, setTools declared", map[string]bool{"session.setTools": true},
			"setTools", map[string]any{"tools": []any{map[string]any{"name": "a", "defer": "never"}}}, "tool.defer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := &Scenario{T: scenariotest.Target{Caps: tt.caps}}
			err := w.Unsupported(tt.cmd, tt.args, answer)
			var un *ErrUnsupported
			if tt.wantCap == "" {
				require.Error(t, err)
				assert.False(t, errors.As(err, &un), "a driver fault, not unsupported: %v", err)
				assert.Contains(t, err.Error(), "driver fault")
				return
			}
			require.True(t, errors.As(err, &un), "%v", err)
			assert.Equal(t, tt.wantCap, un.Capability)
			// Checked before sending too: the harness never sends what the driver lacks.
			require.True(t, errors.As(w.Lacking(tt.cmd, tt.args), &un))
			assert.Equal(t, tt.wantCap, un.Capability)
		})
	}
}
