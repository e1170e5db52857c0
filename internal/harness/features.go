package harness

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/expect"
	gherkin "github.com/cucumber/gherkin/go/v42"
)

// ListScenarios parses every feature file under root and returns its scenarios (outline
// examples expanded, names as godog runs them). A feature that does not parse is an error naming
// the file and line.
func ListScenarios(root string) ([]expect.Scenario, error) {
	var out []expect.Scenario
	err := filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || !strings.HasSuffix(path, ".feature") {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		n := 0
		newID := func() string { n++; return strconv.Itoa(n) }
		doc, err := gherkin.ParseGherkinDocument(f, newID)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		rel, _ := filepath.Rel(root, path)
		for _, p := range gherkin.Pickles(*doc, path, newID) {
			out = append(out, expect.Scenario{Feature: filepath.ToSlash(rel), Name: p.Name})
		}
		return nil
	})
	return out, err
}

// countScenarios is how many scenarios a run has per SDK, for the progress view: the scenarios
// under cfg.Paths with the --scenario name, or 0 (unknown) with a tag expression, which only
// godog evaluates.
func countScenarios(cfg Config) int {
	if cfg.Tags != "" {
		return 0
	}
	n := 0
	for _, p := range cfg.Paths {
		list, err := ListScenarios(p)
		if err != nil {
			return 0
		}
		for _, s := range list {
			if cfg.Scenario == "" || s.Name == cfg.Scenario {
				n++
			}
		}
	}
	return n
}
