package cases

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/copilot-sdk-conformance/conformance/internal/suite"
	"github.com/copilot-sdk-conformance/conformance/steps"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The committed features parse, use only defined phrases and require every capability their
// steps need: a scenario whose tags miss one fails here.
func TestCommittedFeaturesPassThePlanCheck(t *testing.T) {
	n, err := Check([]string{"../../features"}, steps.Vocabulary(), "", "")
	require.NoError(t, err)
	assert.Greater(t, n, 20)
}

func TestCheckFeaturesRejects(t *testing.T) {
	vocab := append(steps.Vocabulary(), suite.Step{Pattern: `^the reply is "(.*)"$`})
	tests := []struct {
		name, feature, tags, scenario, wantErr string
		want                                   int
	}{
		{name: "a parse error names the file and line", feature: "Feature bad\n",
			wantErr: "bad.feature: Parser errors:\n(1:1)"},
		{name: "an undefined step names the file and line",
			feature: "Feature: f\n  Scenario: s\n    When a session is created\n    Then the moon is blue\n",
			wantErr: `bad.feature:4: step "the moon is blue" is not defined`},
		{name: "an ambiguous step names both phrases",
			feature: "Feature: f\n  Scenario: s\n    Then the reply is \"x\"\n",
			wantErr: `bad.feature:3: step "the reply is \"x\"" is ambiguous`},
		{name: "an unknown @requires capability",
			feature: "Feature: f\n\n  @requires.tool.isTerminl\n  Scenario: s\n    When a session is created\n",
			wantErr: "bad.feature:3: unknown capability in tag @requires.tool.isTerminl"},
		{name: "a step needing a capability the scenario does not require",
			feature: "Feature: f\n  Scenario: s\n    Given a tool \"finish\" with isTerminal set to true\n    When a session is created with the tools\n",
			wantErr: "bad.feature:3: step \"a tool \\\"finish\\\" with isTerminal set to true\" needs the capability tool.isTerminal"},
		{name: "a table column needs its option's capability",
			feature: "@requires.session.resume\nFeature: f\n  Scenario: s\n    Given the tools:\n      | name | defer |\n      | a    | never |\n    When the session is resumed with the tools\n",
			wantErr: "needs the capability tool.defer"},
		{name: "an outline's steps are checked per example",
			feature: "Feature: f\n  Scenario Outline: s <x>\n    Given a tool \"a\" with isTerminal <x>\n    When a session is created with the tools\n    Examples:\n      | x |\n      | unset |\n      | set to true |\n",
			wantErr: "bad.feature:3: step \"a tool \\\"a\\\" with isTerminal set to true\" needs the capability tool.isTerminal"},
		{name: "a required capability is satisfied",
			feature: "Feature: f\n  @requires.tool.isTerminal\n  Scenario: s\n    Given a tool \"a\" with isTerminal set to true\n    When a session is created with the tools\n", want: 1},
		{name: "tags that select nothing", tags: "@slow",
			feature: "Feature: f\n  Scenario: s\n    When a session is created\n", want: 0},
		{name: "tags with not and or", tags: "~@slow,@x",
			feature: "Feature: f\n  @slow\n  Scenario: s\n    When a session is created\n  Scenario: t\n    When a session is created\n", want: 1},
		{name: "a scenario name that selects nothing", scenario: "nope",
			feature: "Feature: f\n  Scenario: s\n    When a session is created\n", want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, "bad.feature"), []byte(tt.feature), 0o644))
			n, err := Check([]string{dir}, vocab, tt.tags, tt.scenario)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, n)
		})
	}
}

// A "file.feature:LINE" path, which godog accepts, is checked as its file.
func TestCheckFeaturesTakesAFileWithALine(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "a.feature")
	require.NoError(t, os.WriteFile(f, []byte("Feature: f\n  Scenario: s\n    When a session is created\n"), 0o644))
	n, err := Check([]string{f + ":2"}, steps.Vocabulary(), "", "")
	require.NoError(t, err)
	assert.Equal(t, 1, n)
}

// The progress view's count applies the tag expression as the run does (it said "running 0
// scenarios" for every --tags run).
func TestCountAppliesTags(t *testing.T) {
	dir := t.TempDir()
	feature := "Feature: f\n  @slow\n  Scenario: s\n    When a session is created\n  Scenario: t\n    When a session is created\n" +
		"  @x\n  Scenario Outline: o <n>\n    When a session is created\n    Examples:\n      | n |\n      | 1 |\n      | 2 |\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.feature"), []byte(feature), 0o644))
	tests := []struct {
		tags, scenario string
		want           int
	}{
		{want: 4},
		{tags: "@slow", want: 1},
		{tags: "~@slow", want: 3},
		{tags: "@x", want: 2},
		{tags: "@slow,@x", want: 3},
		{tags: "~@slow && ~@x", want: 1},
		{tags: "@nothing", want: 0},
		{tags: "~@slow", scenario: "t", want: 1},
	}
	for _, tt := range tests {
		t.Run(tt.tags+"/"+tt.scenario, func(t *testing.T) {
			assert.Equal(t, tt.want, Count([]string{dir}, tt.tags, tt.scenario))
			n, err := Check([]string{dir}, steps.Vocabulary(), tt.tags, tt.scenario)
			require.NoError(t, err)
			assert.Equal(t, n, Count([]string{dir}, tt.tags, tt.scenario), "the plan's check and the count agree")
		})
	}
}
