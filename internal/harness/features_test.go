package harness

import (
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/driver"
	"github.com/copilot-sdk-conformance/conformance/internal/suite"
	"github.com/copilot-sdk-conformance/conformance/steps"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const twoScenarios = `Feature: f
  Scenario: first
    When a session is created with no tools

  Scenario: second
    When a session is created with no tools
`

// TestFeaturesReadOnceBeforeAnySDK: the features are read before any SDK runs, so a feature
// folder that can no longer be opened when an SDK's suite starts (a machine out of open files;
// here, the folder removed) loses none of its scenarios; a suite that reads the disk then runs
// nothing, and says so naming the SDK instead of losing its results without a word.
func TestFeaturesReadOnceBeforeAnySDK(t *testing.T) {
	tests := []struct {
		name     string
		readOnce bool
		paths    func(dir string) []string
		want     []string // scenarios with an outcome
		wantErr  string
	}{
		{"a folder read once", true, func(d string) []string { return []string{d} }, []string{"first", "second"}, ""},
		{"a file read once, by its line", true, func(d string) []string { return []string{filepath.Join(d, "f.feature") + ":5"} }, []string{"second"}, ""},
		{"the disk, gone", false, func(d string) []string { return []string{d} }, nil, "godog could not read the features"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, reports := filepath.Join(t.TempDir(), "features"), t.TempDir()
			require.NoError(t, os.MkdirAll(dir, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(dir, "f.feature"), []byte(twoScenarios), 0o644))
			cfg, st := Config{Steps: steps.Initializer, ReportDir: reports, Paths: tt.paths(dir)}, &state{}
			if tt.readOnce {
				var err error
				st.features, err = readFeatures(cfg.Paths)
				require.NoError(t, err)
			}
			require.NoError(t, os.RemoveAll(dir))
			exe, err := os.Executable()
			require.NoError(t, err)
			var got []string
			tg := &target{name: "fake", label: "fake", timeout: 5 * time.Second, reportDir: reports, progress: io.Discard,
				launcher: driver.Local{Argv: []string{exe}, Env: []string{"FAKE_DRIVER=unsupported", "FAKE_DRIVER_MARKER=" + filepath.Join(reports, "marker")}},
				finished: func(o suite.Outcome) { got = append(got, o.Scenario) }}
			tg.hello = &driver.Hello{Capabilities: map[string]bool{"transport.tcp": true}}
			err = runSuite(cfg, st, filepath.Dir(dir), tg)
			tg.close()
			assert.Equal(t, tt.want, got)
			if tt.wantErr == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.wantErr)
			assert.Contains(t, err.Error(), "for fake")
		})
	}
}

// TestReadFeaturesNamesWhatItCannotRead: a path that cannot be read is an error naming it.
func TestReadFeaturesNamesWhatItCannotRead(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nowhere")
	_, err := readFeatures([]string{missing})
	require.Error(t, err)
	assert.Contains(t, err.Error(), missing)
}
