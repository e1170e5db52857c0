package cases

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/suite"
	gherkin "github.com/cucumber/gherkin/go/v42"
	messages "github.com/cucumber/messages/go/v34"
)

// Check parses every feature file the run was given and checks it against the steps'
// vocabulary before any SDK starts: a parse error, a step that matches no phrase or more than
// one, a @requires tag naming no known capability and a step needing a capability its scenario
// does not require are each an error naming the file and line. It returns how many scenarios
// the run selects (--tags and --scenario applied), so an empty run is caught up front.
func Check(paths []string, vocab []suite.Step, tags, name string) (int, error) {
	type phrase struct {
		re   *regexp.Regexp
		step suite.Step
	}
	var phrases []phrase
	for _, s := range vocab {
		re, err := regexp.Compile(s.Pattern)
		if err != nil {
			return 0, fmt.Errorf("step pattern %s: %w", s.Pattern, err)
		}
		phrases = append(phrases, phrase{re, s})
	}
	var files []string
	for _, p := range paths {
		// godog also takes "file.feature:LINE" (one scenario); the file is what is checked.
		if i := strings.LastIndexByte(p, ':'); i > 0 && strings.HasSuffix(p[:i], ".feature") {
			if _, err := strconv.Atoi(p[i+1:]); err == nil {
				p = p[:i]
			}
		}
		err := filepath.WalkDir(p, func(path string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !e.IsDir() && (path == p || strings.HasSuffix(path, ".feature")) {
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			return 0, err
		}
	}
	selected := 0
	var errs []string
	for _, file := range files {
		doc, err := parseFeature(file)
		if err != nil {
			return 0, err
		}
		lines := astLines(doc)
		n := 0
		for _, p := range gherkin.Pickles(*doc, file, func() string { n++; return fmt.Sprintf("p%d", n) }) {
			at := func(ids []string) string { return fmt.Sprintf("%s:%d", file, lineOf(lines, ids)) }
			required := map[string]bool{}
			for _, t := range p.Tags {
				c, ok := strings.CutPrefix(t.Name, "@requires.")
				if !ok {
					continue
				}
				if !suite.KnownCapability(c) {
					errs = append(errs, fmt.Sprintf("%s: unknown capability in tag %s (known: %s)", at([]string{t.AstNodeId}), t.Name, strings.Join(suite.Capabilities, ", ")))
				}
				required[c] = true
			}
			for _, st := range p.Steps {
				var found []phrase
				var args []string
				for _, ph := range phrases {
					if m := ph.re.FindStringSubmatch(st.Text); m != nil {
						found, args = append(found, ph), m[1:]
					}
				}
				switch {
				case len(found) == 0:
					errs = append(errs, fmt.Sprintf("%s: step %q is not defined (see features/README.md's step vocabulary)", at(st.AstNodeIds), st.Text))
					continue
				case len(found) > 1:
					var ps []string
					for _, f := range found {
						ps = append(ps, f.step.Pattern)
					}
					errs = append(errs, fmt.Sprintf("%s: step %q is ambiguous: it matches %s", at(st.AstNodeIds), st.Text, strings.Join(ps, " and ")))
					continue
				}
				if found[0].step.Needs == nil {
					continue
				}
				for _, c := range found[0].step.Needs(args, tableOf(st)) {
					if !required[c] {
						errs = append(errs, fmt.Sprintf("%s: step %q needs the capability %s, which scenario %q does not require: tag it @requires.%s", at(st.AstNodeIds), st.Text, c, p.Name, c))
						required[c] = true // once per scenario
					}
				}
			}
			if (name == "" || p.Name == name) && matchTags(tags, p.Tags) {
				selected++
			}
		}
	}
	if len(errs) > 0 {
		return 0, fmt.Errorf("%s", strings.Join(errs, "\n"))
	}
	return selected, nil
}

func parseFeature(file string) (*messages.GherkinDocument, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	n := 0
	doc, err := gherkin.ParseGherkinDocument(f, func() string { n++; return fmt.Sprintf("a%d", n) })
	if err != nil {
		// gherkin's message starts with "(line:column)": name the file in front.
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return doc, nil
}

// astLines maps each node id of the document (steps, tags, example rows) to its line.
func astLines(doc *messages.GherkinDocument) map[string]int64 {
	lines := map[string]int64{}
	tags := func(ts []*messages.Tag) {
		for _, t := range ts {
			lines[t.Id] = t.Location.Line
		}
	}
	steps := func(ss []*messages.Step) {
		for _, s := range ss {
			lines[s.Id] = s.Location.Line
		}
	}
	scenario := func(s *messages.Scenario) {
		lines[s.Id] = s.Location.Line
		tags(s.Tags)
		steps(s.Steps)
		for _, ex := range s.Examples {
			tags(ex.Tags)
			for _, r := range ex.TableBody {
				lines[r.Id] = r.Location.Line
			}
		}
	}
	if doc.Feature == nil {
		return lines
	}
	tags(doc.Feature.Tags)
	for _, c := range doc.Feature.Children {
		if c.Background != nil {
			steps(c.Background.Steps)
		}
		if c.Scenario != nil {
			scenario(c.Scenario)
		}
		if c.Rule != nil {
			tags(c.Rule.Tags)
			for _, rc := range c.Rule.Children {
				if rc.Background != nil {
					steps(rc.Background.Steps)
				}
				if rc.Scenario != nil {
					scenario(rc.Scenario)
				}
			}
		}
	}
	return lines
}

// lineOf is the line of a pickle element: the step's own line (the first id; an outline's
// example row is the second).
func lineOf(lines map[string]int64, ids []string) int64 {
	if len(ids) == 0 {
		return 0
	}
	return lines[ids[0]]
}

func tableOf(st *messages.PickleStep) [][]string {
	if st.Argument == nil || st.Argument.DataTable == nil {
		return nil
	}
	var out [][]string
	for _, r := range st.Argument.DataTable.Rows {
		var row []string
		for _, c := range r.Cells {
			row = append(row, c.Value)
		}
		out = append(out, row)
	}
	return out
}

// matchTags applies godog's tag filter ("@a && ~@b, @c": commas are or, && is and, ~ is not)
// the way godog does. godog keeps its filter internal, so the plan, which must know before any
// SDK starts whether a run selects anything, spells the same rule out here.
func matchTags(filter string, tags []*messages.PickleTag) bool {
	if filter == "" {
		return true
	}
	has := func(tag string) bool {
		for _, t := range tags {
			if strings.ReplaceAll(t.Name, "@", "") == tag {
				return true
			}
		}
		return false
	}
	for _, or := range strings.Split(filter, ",") {
		and := len(or) > 0
		for _, tag := range strings.Split(or, "&&") {
			tag = strings.ReplaceAll(strings.TrimSpace(tag), "@", "")
			if neg, ok := strings.CutPrefix(tag, "~"); ok {
				and = and && !has(neg)
			} else {
				and = and && tag != "" && has(tag)
			}
		}
		if and {
			return true
		}
	}
	return false
}
