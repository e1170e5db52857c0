// Package cases is the Gherkin features as a source of cases: it lists the scenarios of the
// feature files (outline examples expanded, each with its stable id) and checks the features
// against the steps' vocabulary before any SDK starts. Another source of cases (the schema
// sweep, the SDK-surface checks) gives its cases the same identity: feature, scenario, id.
package cases

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/expect"
	gherkin "github.com/cucumber/gherkin/go/v42"
	messages "github.com/cucumber/messages/go/v34"
)

// List parses every feature file under root and returns its scenarios (outline
// examples expanded, names as godog runs them). A feature that does not parse is an error naming
// the file and line.
func List(root string) ([]expect.Scenario, error) {
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
			out = append(out, expect.Scenario{Feature: filepath.ToSlash(rel), Name: p.Name, ID: caseID(filepath.ToSlash(rel), p)})
		}
		return nil
	})
	return out, err
}

// Count is how many scenarios a run has per SDK, for the progress view: the scenarios under
// paths with the name (all when "") that the tag expression selects (godog's rule, matchTags),
// or 0 (unknown) when a path does not parse.
func Count(paths []string, tags, name string) int {
	n := 0
	for _, root := range paths {
		err := filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() || !strings.HasSuffix(path, ".feature") {
				return err
			}
			doc, err := parseFeature(path)
			if err != nil {
				return err
			}
			ids := 0
			for _, p := range gherkin.Pickles(*doc, path, func() string { ids++; return strconv.Itoa(ids) }) {
				if (name == "" || p.Name == name) && matchTags(tags, p.Tags) {
					n++
				}
			}
			return nil
		})
		if err != nil {
			return 0
		}
	}
	return n
}

// caseID is a scenario's stable id, so that diff (and history) see a renamed scenario as the same
// case: an `@id.<name>` tag when the scenario has one, else a hash of what it does (its
// feature file and its steps with their tables and doc strings), which a new title leaves
// alone. A scenario whose steps change gets a new derived id: tag it to keep its history.
func caseID(feature string, p *messages.Pickle) string {
	for _, t := range p.Tags {
		if id, ok := strings.CutPrefix(t.Name, "@id."); ok && id != "" {
			return id
		}
	}
	h := sha256.New()
	fmt.Fprintln(h, feature)
	for _, st := range p.Steps {
		fmt.Fprintln(h, st.Text)
		if a := st.Argument; a != nil && a.DocString != nil {
			fmt.Fprintln(h, a.DocString.Content)
		}
		for _, row := range tableOf(st) {
			fmt.Fprintln(h, strings.Join(row, "\t"))
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}

// Selected is one scenario a run will run: the feature file as godog names it (its URI) and the
// scenario's name.
type Selected struct{ URI, Name string }

// Select lists the scenarios a run over paths runs (the tag expression and name applied as
// godog applies them; "file.feature:LINE" is the scenario or example row at that line), each
// once per (file, name): an outline whose examples share a name is one case of the plan. It is
// what a run plans, so that a scenario that ends without a result is named, not lost.
func Select(paths []string, tags, name string) ([]Selected, error) {
	var out []Selected
	seen := map[Selected]bool{}
	for _, root := range paths {
		line := int64(0)
		if i := strings.LastIndexByte(root, ':'); i > 0 && strings.HasSuffix(root[:i], ".feature") {
			if n, err := strconv.ParseInt(root[i+1:], 10, 64); err == nil {
				root, line = root[:i], n
			}
		}
		err := filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() || !strings.HasSuffix(path, ".feature") {
				return err
			}
			doc, err := parseFeature(path)
			if err != nil {
				return err
			}
			lines := astLines(doc)
			ids := 0
			for _, p := range gherkin.Pickles(*doc, path, func() string { ids++; return strconv.Itoa(ids) }) {
				if name != "" && p.Name != name || !matchTags(tags, p.Tags) || line > 0 && !atLine(lines, p.AstNodeIds, line) {
					continue
				}
				if s := (Selected{URI: path, Name: p.Name}); !seen[s] {
					seen[s] = true
					out = append(out, s)
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// atLine says whether a pickle comes from the scenario or example row at line.
func atLine(lines map[string]int64, ids []string, line int64) bool {
	for _, id := range ids {
		if lines[id] == line {
			return true
		}
	}
	return false
}
