package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStrictInputs: each bad input exits 2 naming the file and line or the argument at fault,
// before any SDK is prepared (the cache stays empty).
func TestStrictInputs(t *testing.T) {
	bin := buildCLI(t)
	tests := []struct {
		name     string
		feature  string // written to bad.feature and passed as the path, when set
		manifest string // written to manifest.yaml and passed with --expected-failures, when set
		args     []string
		env      []string
		want     []string
	}{
		{name: "a feature that does not parse", feature: "Feature bad\n",
			want: []string{"bad.feature: Parser errors:", "(1:1)"}},
		{name: "an undefined step", feature: "Feature: f\n  Scenario: s\n    When a session is created\n    Then the moon is blue\n",
			want: []string{"bad.feature:4:", `step "the moon is blue" is not defined`}},
		{name: "an unknown @requires capability", feature: "@requires.tool.isTerminl\nFeature: f\n  Scenario: s\n    When a session is created\n",
			want: []string{"bad.feature:1:", "unknown capability in tag @requires.tool.isTerminl"}},
		{name: "a step needing a capability the scenario does not require",
			feature: "Feature: f\n  Scenario: s\n    Given a tool \"a\" with isTerminal set to true\n    When a session is created with the tools\n",
			want:    []string{"bad.feature:3:", "needs the capability tool.isTerminal", "@requires.tool.isTerminal"}},
		{name: "--scenario matching nothing", args: []string{"--scenario", "no such scenario"},
			want: []string{"the run selects no scenario", `--scenario "no such scenario"`}},
		{name: "--tags matching nothing", args: []string{"--tags", "@no.such.tag"},
			want: []string{"the run selects no scenario", `--tags "@no.such.tag"`}},
		{name: "a manifest entry that matches nothing",
			manifest: "- sdk: node\n  scenario: no such scenario\n  reason: r\n  link: l\n  message: x\n",
			want:     []string{"manifest.yaml:1:", "matches no scenario"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cache, reports, dir := t.TempDir(), t.TempDir(), t.TempDir()
			args := []string{"run", "--root", repoDir(t), "--cache-dir", cache, "--report-dir", reports}
			args = append(args, tt.args...)
			if tt.manifest != "" {
				p := filepath.Join(dir, "manifest.yaml")
				require.NoError(t, os.WriteFile(p, []byte(tt.manifest), 0o644))
				args = append(args, "--expected-failures", p)
			}
			if tt.feature != "" {
				p := filepath.Join(dir, "bad.feature")
				require.NoError(t, os.WriteFile(p, []byte(tt.feature), 0o644))
				args = append(args, p)
			}
			cmd := exec.Command(bin, args...)
			cmd.Dir = dir
			out, err := cmd.CombinedOutput()
			var ee *exec.ExitError
			require.True(t, errors.As(err, &ee), "exit 0:\n%s", out)
			assert.Equal(t, 2, ee.ExitCode(), "%s", out)
			for _, w := range tt.want {
				assert.Contains(t, string(out), w)
			}
			left, _ := os.ReadDir(cache)
			assert.Empty(t, left, "nothing prepared")
		})
	}
}

// TestNoSDKAvailable: a run in which no SDK can run (no toolchain on PATH) exits 2 and says why
// for each SDK, with the reports written.
func TestNoSDKAvailable(t *testing.T) {
	bin := buildCLI(t)
	cache, reports := t.TempDir(), t.TempDir()
	cmd := exec.Command(bin, "run", "--root", repoDir(t), "--cache-dir", cache, "--report-dir", reports,
		"--scenario", "a prompt sent and waited for returns the assistant's reply")
	cmd.Env = append(os.Environ(), "PATH="+t.TempDir())
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	require.True(t, errors.As(err, &ee), "exit 0:\n%s", out)
	assert.Equal(t, 2, ee.ExitCode(), "%s", out)
	assert.Contains(t, string(out), "no SDK is available, nothing ran")
	assert.FileExists(t, filepath.Join(reports, "results.json"))
}
