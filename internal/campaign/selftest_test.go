package campaign

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/copilot-sdk-conformance/conformance/internal/harness"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/sdks"
)

const selftestMutants = `
- name: drops-isTerminal
  sdk: node
  files: [client.js]
  find: "isTerminal: tool.isTerminal"
  replace: "isTerminal: undefined"
  features: [tools/is_terminal.feature]
  expect: [terminal tool]
- name: harmless-edit
  sdk: node
  files: [client.js]
  find: "// comment"
  replace: "// another comment"
  features: [tools/is_terminal.feature, sessions/create.feature]
  expect: [terminal tool]
- name: no-longer-applies
  sdk: node
  files: [client.js]
  find: "text the package no longer has"
  features: [tools/is_terminal.feature]
- name: go-one
  sdk: go
  files: [client.go]
  find: "x"
  features: [tools/is_terminal.feature]
- name: go-two
  sdk: go
  files: [client.go]
  find: "y"
  features: [tools/is_terminal.feature]
`

// fakePackages is a selftest's SDK side without a toolchain: Pristine writes a one-file package
// (the go SDK's cannot be fetched), and run judges the package as a suite would: "terminal tool"
// passes while client.js maps isTerminal, "always red" fails on every copy.
type fakePackages struct {
	mu      sync.Mutex
	fetched map[string]int
	runs    []harness.Config
}

func (f *fakePackages) pristine(_ context.Context, sdk, _, dir string) (string, error) {
	f.mu.Lock()
	f.fetched[sdk]++
	f.mu.Unlock()
	if sdk != "node" {
		return "", errors.New("no registry here")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	return dir, os.WriteFile(filepath.Join(dir, "client.js"), []byte("// comment\nisTerminal: tool.isTerminal\n"), 0o644)
}

func (f *fakePackages) run(_ context.Context, cfg harness.Config) (*report.Results, error) {
	f.mu.Lock()
	f.runs = append(f.runs, cfg)
	f.mu.Unlock()
	_, _ = cfg.Log.Write([]byte("ran\n"))
	src, err := os.ReadFile(filepath.Join(cfg.Sources[cfg.SDKs[0]], "client.js"))
	if err != nil {
		return nil, err
	}
	terminal := report.Failed
	if strings.Contains(string(src), "isTerminal: tool.isTerminal") {
		terminal = report.Passed
	}
	return &report.Results{Results: []report.Result{
		{Scenario: "terminal tool", SDK: cfg.SDKs[0], Status: terminal},
		{Scenario: "always red", SDK: cfg.SDKs[0], Status: report.Failed},
	}}, nil
}

func TestSelftestJudgesEachMutantAgainstItsPristineCopy(t *testing.T) {
	mutants := filepath.Join(t.TempDir(), "mutants.yaml")
	require.NoError(t, os.WriteFile(mutants, []byte(selftestMutants), 0o644))
	tests := []struct {
		name    string
		only    []string
		sdkList []string
		want    map[string]string // mutant → caught | missed | error text
		fetched map[string]int
		runs    int
		// parallel: runs at once; the verdicts do not depend on it
		parallel int
		paths    int // the features the baseline runs: those of the selected mutants
	}{
		{"every mutant", nil, nil, map[string]string{
			"drops-isTerminal": "caught", "harmless-edit": "missed", "no-longer-applies": "no longer applies",
			"go-one": "pristine go SDK: no registry here", "go-two": "pristine go SDK: no registry here"},
			map[string]int{"node": 1, "go": 1}, 3, 0, 2},
		{"every mutant, three runs at once", nil, nil, map[string]string{
			"drops-isTerminal": "caught", "harmless-edit": "missed", "no-longer-applies": "no longer applies",
			"go-one": "pristine go SDK: no registry here", "go-two": "pristine go SDK: no registry here"},
			map[string]int{"node": 1, "go": 1}, 3, 3, 2},
		{"--only a mutant", []string{"drops-isTerminal"}, nil, map[string]string{"drops-isTerminal": "caught"}, map[string]int{"node": 1}, 2, 0, 1},
		{"--sdk", nil, []string{"go"}, map[string]string{
			"go-one": "pristine go SDK: no registry here", "go-two": "pristine go SDK: no registry here"}, map[string]int{"go": 1}, 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakePackages{fetched: map[string]int{}}
			var log strings.Builder
			cfg := harness.Config{RepoRoot: filepath.Join("..", ".."), ReportDir: t.TempDir(), SDKs: tt.sdkList, Log: &log}
			verdicts, err := Selftest(context.Background(), SelftestPlan{Config: cfg, Mutants: mutants, Only: tt.only, Run: f.run, Pristine: f.pristine, Parallel: tt.parallel})
			require.NoError(t, err)
			got := map[string]string{}
			for _, v := range verdicts {
				switch {
				case v.Err != nil:
					got[v.Mutant.Name] = v.Err.Error()
				case v.Caught:
					got[v.Mutant.Name] = "caught"
					assert.Equal(t, []string{"terminal tool"}, v.By, "a scenario failing on the pristine copy too catches nothing")
				default:
					got[v.Mutant.Name] = "missed"
					assert.Equal(t, []string{"terminal tool"}, v.Missing)
				}
			}
			for name, want := range tt.want {
				assert.Contains(t, got[name], want, name)
			}
			assert.Len(t, got, len(tt.want))
			assert.Equal(t, tt.fetched, f.fetched, "one pristine fetch per SDK, a failed one not retried")
			require.Len(t, f.runs, tt.runs)
			if tt.runs == 0 {
				return
			}
			var base harness.Config
			for _, r := range f.runs {
				if r.ReportDir == filepath.Join(cfg.ReportDir, "node-pristine") {
					base = r
				}
			}
			require.NotEmpty(t, base.Paths, "the pristine copy is run")
			pins, err := sdks.LoadPins(filepath.Join(cfg.RepoRoot, "fixtures", "sdks.yaml"))
			require.NoError(t, err)
			assert.Len(t, base.Paths, tt.paths, "the baseline runs every feature of the SDK's selected mutants, once each")
			for _, r := range f.runs {
				assert.Equal(t, []string{"node"}, r.SDKs)
				assert.NotEqual(t, base.Sources["node"], "", "each run is of a copy through --sdk-source")
				assert.Equal(t, map[string]string{"node": pins["node"].Version}, r.SourcesAs, "a copy of the pin is matched as the pin")
			}
			assert.Contains(t, log.String(), "(node-pristine) ran\n", "each run's log lines name it")
		})
	}
}
