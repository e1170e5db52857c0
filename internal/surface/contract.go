package surface

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// The contract's judges: what the runtime's schema says about where a declared field must
// arrive, and what a declared field the SDK never sends is.

// OpenTimeDefinition is the schema definition whose properties are the options a session opens
// with: an option among them must reach session.create / session.resume itself.
const OpenTimeDefinition = "SessionOpenOptions"

// OpenTimeEnv is an Env that knows the options a session opens with, from the runtime's schema
// (definitions.SessionOpenOptions, loaded at run time); nil or empty: not judged.
type OpenTimeEnv interface {
	OpenTimeOptions() []string
}

// openTimeOption is the schema's open-time option a finding's field is (by the field's key, or
// by the key its value was sent under in a later request), or "". A member of a definition set
// alone (Inner) is matched by its field only: a custom agent's model is not the session's.
func openTimeOption(f Finding, options []string) string {
	sent := ""
	if f.Via != "" && f.Inner == "" {
		sent = strings.TrimPrefix(f.Path, f.Via+".")
		if i := strings.LastIndex(sent, "."); i >= 0 {
			sent = sent[i+1:]
		}
	}
	for _, o := range options {
		if n := Normalize(o); n == f.Entry.Key() || (sent != "" && n == Normalize(sent)) {
			return o
		}
	}
	return ""
}

// judgeOpenTime fails each session config value that reached the runtime only through a later
// request although its field is an option the session opens with: the option does not apply
// when the session opens.
func judgeOpenTime(fs []Finding, options []string) {
	for i, f := range fs {
		if f.Via == "" || f.Problem != "" {
			continue
		}
		if o := openTimeOption(f, options); o != "" {
			fs[i].Problem = fmt.Sprintf("an option the session opens with (definitions.%s.%s) sent only after the session opened, as %s, not in %s", OpenTimeDefinition, o, f.Path, f.Request)
		}
	}
}

// ClientSideFile holds the committed entries saying why a declared data field no request
// carries is client-side by design, beside the expected failures.
const ClientSideFile = "client-side-fields.yaml"

// ClientSide is one entry of ClientSideFile: a field of one SDK's owner that no request carries,
// and why that is by design.
type ClientSide struct {
	SDK      string `yaml:"sdk"`
	Owner    string `yaml:"owner"`
	Field    string `yaml:"field"` // the language's own name, as the driver reports it
	Reason   string `yaml:"reason"`
	Evidence string `yaml:"evidence"` // the SDK source, file:line
	Where    string `yaml:"-"`        // file:line of the entry
}

var clientSideKeys = []string{"sdk", "owner", "field", "reason", "evidence"}

// LoadClientSide reads ClientSideFile (a missing file is none). Every key is required; an SDK
// the harness has no recipe for, an unknown key or a duplicate is an error naming the line.
func LoadClientSide(path string, sdks []string) ([]ClientSide, error) {
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	name := filepath.ToSlash(path)
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	list := doc.Content[0]
	if list.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("%s:%d: the file must be a list of client-side fields", name, list.Line)
	}
	var out []ClientSide
	seen := map[string]string{}
	for _, n := range list.Content {
		if n.Kind != yaml.MappingNode {
			return nil, fmt.Errorf("%s:%d: an entry must be a mapping of %s", name, n.Line, strings.Join(clientSideKeys, ", "))
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if k := n.Content[i]; !slices.Contains(clientSideKeys, k.Value) {
				return nil, fmt.Errorf("%s:%d: unknown key %q (known: %s)", name, k.Line, k.Value, strings.Join(clientSideKeys, ", "))
			}
		}
		var c ClientSide
		if err := n.Decode(&c); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, n.Line, err)
		}
		c.Where = fmt.Sprintf("%s:%d", name, n.Line)
		for k, v := range map[string]string{"sdk": c.SDK, "owner": c.Owner, "field": c.Field, "reason": c.Reason, "evidence": c.Evidence} {
			if strings.TrimSpace(v) == "" {
				return nil, fmt.Errorf("%s: the entry has no %s", c.Where, k)
			}
		}
		if !slices.Contains(sdks, c.SDK) {
			return nil, fmt.Errorf("%s: unknown SDK %q (known: %s)", c.Where, c.SDK, strings.Join(sdks, ", "))
		}
		id := c.SDK + " " + c.Owner + "." + c.Field
		if at, dup := seen[id]; dup {
			return nil, fmt.Errorf("%s: %s is listed already at %s", c.Where, id, at)
		}
		seen[id] = c.Where
		out = append(out, c)
	}
	return out, nil
}

// dataField says whether an entry is a data field, as read from its kind and shape: not a
// handler or a struct of callbacks.
func dataField(e Entry) bool { return e.Kind == "field" && e.Shape != "handler" }

// JudgeNeverSent fails each declared data field of sdk that no request (nor, for a client
// option, the runtime process it starts) carries for any value set, unless listed (an entry of
// ClientSideFile says why it is client-side). A listed field whose value did reach the wire is a
// stale entry and fails too, as an xpass does. A field with a value the SDK refused is not
// judged here: it is listed as unchecked, and its other values do not say it is never sent.
func (r *Result) JudgeNeverSent(sdk string, listed []ClientSide) {
	type field struct {
		e       Entry
		values  []string
		reached string // where some value went, or the problem it had
	}
	byID := map[string]*field{}
	var order []string
	for _, f := range r.Findings {
		id := f.Entry.Owner + "." + f.Entry.Name
		x := byID[id]
		if x == nil {
			x = &field{e: f.Entry}
			byID[id] = x
			order = append(order, id)
		}
		if !slices.Contains(x.values, f.Variant) {
			x.values = append(x.values, f.Variant)
		}
		if x.reached != "" {
			continue
		}
		switch {
		case f.Path != "":
			x.reached = f.Request + ": " + f.Path
		case f.Problem != "":
			x.reached = f.Request + ": " + f.Problem
		}
	}
	refused := map[string]bool{}
	for _, u := range r.Unchecked {
		refused[u.Entry.Owner+"."+u.Entry.Name] = true
	}
	entry := map[string]ClientSide{}
	for _, c := range listed {
		if c.SDK == sdk {
			entry[c.Owner+"."+c.Field] = c
		}
	}
	sort.Strings(order)
	for _, id := range order {
		x := byID[id]
		c, isListed := entry[id]
		switch {
		case x.reached != "" && isListed:
			r.Judged = append(r.Judged, fmt.Sprintf("%s: listed as client-side at %s, but its value reached the wire (%s): remove the entry", id, c.Where, x.reached))
		case x.reached != "" || isListed || refused[id] || !dataField(x.e):
		default:
			r.Judged = append(r.Judged, fmt.Sprintf("%s: no request carries it for any value set (%s): a dropped field, unless an entry of fixtures/%s says why it is client-side", id, strings.Join(x.values, "; "), ClientSideFile))
		}
	}
}
