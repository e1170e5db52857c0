package main

import (
	"errors"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// suiteCommands are the commands that run the suite (each builds harness.Config).
var suiteCommands = []string{"run", "bench", "bisect", "fidelity", "history", "selftest"}

// TestSuiteCommandsShareTheFlags walks the command tree: every command that runs the suite has
// every shared flag (as bindSuite makes them: name, type, shorthand), so none drifts again.
func TestSuiteCommandsShareTheFlags(t *testing.T) {
	shared := &cobra.Command{Use: "shared"}
	bindSuite(shared, suiteOptions{})
	var want []*pflag.Flag
	shared.Flags().VisitAll(func(f *pflag.Flag) { want = append(want, f) })
	require.NotEmpty(t, want)

	byName := map[string]*cobra.Command{}
	for _, c := range newRoot().Commands() {
		byName[c.Name()] = c
	}
	for _, name := range suiteCommands {
		t.Run(name, func(t *testing.T) {
			c := byName[name]
			require.NotNil(t, c, "no command %q", name)
			for _, w := range want {
				got := c.Flags().Lookup(w.Name)
				if !assert.NotNil(t, got, "%s lacks --%s", name, w.Name) {
					continue
				}
				assert.Equal(t, w.Value.Type(), got.Value.Type(), "--%s of %s", w.Name, name)
				assert.Equal(t, w.Shorthand, got.Shorthand, "--%s of %s", w.Name, name)
			}
		})
	}
}

// TestSuiteFlagsRefuseWhatTheCommandCannotDo: a shared flag a command cannot honour is a usage
// error (exit status 2) before anything runs, never silently dropped.
func TestSuiteFlagsRefuseWhatTheCommandCannotDo(t *testing.T) {
	root := repoDir(t)
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"an unknown runner", []string{"run", "--runner", "ssh"}, `--runner "ssh": want local or docker`},
		{"local bases on the local runner", []string{"bench", "--local-bases"}, "--local-bases is for --runner docker"},
		{"an unknown runtime", []string{"history", "--sdk", "go", "--runtime", "cloud"}, `--runtime "cloud": want stand-in or real`},
		{"a runtime version of the stand-in", []string{"run", "--runtime-version", "1.0.85"}, "--runtime-version is for --runtime real"},
		{"a runtime matrix outside run", []string{"bench", "--runtime", "real", "--runtime-version", "1.0.84,1.0.85"}, "bench runs one runtime version"},
		{"fidelity's runtime", []string{"fidelity", "--runtime", "real"}, "fidelity runs both runtimes"},
		{"a malformed version", []string{"selftest", "--sdk-version", "go=master"}, "--sdk-version go=master"},
		{"bisect's SDK given a version", []string{"bisect", "--sdk", "go", "--good", "v1.0.5", "--bad", "v1.0.9", "--sdk-version", "go=v1.0.7"}, "bisect runs published versions of --sdk only"},
		{"bisect of two SDKs", []string{"bisect", "--sdk", "go,node", "--good", "v1.0.5", "--bad", "v1.0.9"}, "bisect needs --sdk with one SDK"},
		{"history's SDK given a source", []string{"history", "--sdk", "go", "--sdk-source", "go=."}, "--sdk-source go: history runs go's published versions"},
		{"selftest given a source", []string{"selftest", "--sdk-source", "go=."}, "selftest runs copies of the pinned SDKs"},
		{"bench cold on a cache", []string{"bench", "--cold", "--cache-dir", "x"}, "--cold runs from an empty cache of its own"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cmd := newRoot()
			cmd.SetArgs(append(tt.args, "--root", root))
			err := cmd.Execute()
			var ee *exitError
			require.True(t, errors.As(err, &ee), "%v", err)
			assert.Equal(t, 2, ee.code)
			assert.ErrorContains(t, err, tt.want)
		})
	}
}
