package expect

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"gopkg.in/yaml.v3"
)

// DifferencesFile is the known cross-SDK differences, beside the expected failures.
const DifferencesFile = "expected-differences.yaml"

var differenceKeys = map[string]bool{"request": true, "field": true, "keys": true, "reason": true, "link": true}

// LoadDifferences reads the known cross-SDK differences (a missing file is none): each names a
// request, a field (as surface.Normalize spells it), the key every SDK it knows sends the field
// under, a reason and a link.
func LoadDifferences(path string, sdks []string) ([]report.KnownDifference, error) {
	list, name, err := readList(path, "differences")
	if list == nil || err != nil {
		return nil, err
	}
	known := map[string]bool{}
	for _, s := range sdks {
		known[s] = true
	}
	var out []report.KnownDifference
	for _, n := range list {
		if n.Kind != yaml.MappingNode {
			return nil, fmt.Errorf("%s:%d: a difference must be a mapping of request, field, keys, reason, link", name, n.Line)
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if k := n.Content[i]; !differenceKeys[k.Value] {
				return nil, fmt.Errorf("%s:%d: unknown key %q (known: request, field, keys, reason, link)", name, k.Line, k.Value)
			}
		}
		var d report.KnownDifference
		if err := n.Decode(&d); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, n.Line, err)
		}
		d.Where = fmt.Sprintf("%s:%d", name, n.Line)
		if d.Request == "" || d.Field == "" || d.Reason == "" || d.Link == "" {
			return nil, fmt.Errorf("%s: a difference needs request, field, reason and link", d.Where)
		}
		if len(d.Keys) < 2 {
			return nil, fmt.Errorf("%s: a difference names the key of at least two SDKs", d.Where)
		}
		var names []string
		for s := range d.Keys {
			names = append(names, s)
		}
		sort.Strings(names)
		for _, s := range names {
			if !known[s] {
				return nil, fmt.Errorf("%s: unknown sdk %q (known: %s)", d.Where, s, strings.Join(sdks, ", "))
			}
		}
		out = append(out, d)
	}
	return out, nil
}

// readList reads a fixture that is a YAML list (what: its entries, for the error): its items and
// the file's name for errors. A missing or empty file is no items and no error.
func readList(path, what string) ([]*yaml.Node, string, error) {
	name := filepath.ToSlash(path)
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, name, nil
	}
	if err != nil {
		return nil, name, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, name, fmt.Errorf("%s: %w", name, err)
	}
	if len(doc.Content) == 0 {
		return nil, name, nil
	}
	list := doc.Content[0]
	if list.Kind != yaml.SequenceNode {
		return nil, name, fmt.Errorf("%s:%d: the file must be a list of %s", name, list.Line, what)
	}
	return list.Content, name, nil
}
