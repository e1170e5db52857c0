package surface

import (
	"fmt"
	"sort"
	"strings"
)

// Nested edge values (features/surface/fields.feature): inside a definition, an empty list, an
// empty map and an explicit null are values of their own, as at the top of the config (a custom
// agent's tools: [] gives it no tools, an absent tools every tool). Each optional member of a
// definition or of an object the SDK declares is set alone to each edge value its declared
// type can hold, beside the definition's required members; and a member that itself holds a
// definition or a declared object (a custom agent's MCP servers, a provider's azure options, a
// system message's sections) gets its own members' values and edge values, each alone, inside
// the parent's minimal form, down to maxNestedDepth. The variant's Inner is the member's path
// from the definition ("mcpServers.tools"), which Probe follows to judge the key that arrived.

// maxNestedDepth bounds the definitions held inside definitions the generator descends into.
const maxNestedDepth = 3

// edge is one edge value of a member: its label and value (nil: an explicit null).
type edge struct {
	label string
	value any
}

// edges are the edge values an optional member's declared type can hold: [] for a list, {} for
// a map, null where the type names null itself (TypeScript's `| null`, Python's `| None` /
// Optional[...]): a type that says only "optional" (Go's omitempty, Rust's Option) cannot tell
// null from absent, so null is not generated there.
func edges(f Entry) []edge {
	if f.Kind != "field" || !f.Optional {
		return nil
	}
	var out []edge
	t := parseType(f.Type)
	switch {
	case f.Shape == "string[]" || f.Shape == "array" || t.kind == "list":
		out = append(out, edge{"[]", []any{}})
	case f.Shape == "map" || t.kind == "map":
		out = append(out, edge{"{}", map[string]any{}})
	}
	if namesNull(f.Type) {
		out = append(out, edge{"null", nil})
	}
	return out
}

// NullEnv is an Env that knows from the runtime's schema whether a nested member may be null:
// the member at inner (a dotted path of the SDK's names, Variant.Inner) of the session option
// named like field (definitions.SessionOpenOptions). known is false where the schema does not
// define the path.
type NullEnv interface {
	Nullable(field string, inner []string) (nullable, known bool)
}

// generateFor is GenerateWith with env's schema and callbacks, keeping a null variant only where
// the schema says the member may be null: an SDK that drops a null the schema does not allow
// (Python's None for "not set") does right.
func generateFor(env any, all []Entry, e Entry) ([]Variant, string) {
	vs, why := GenerateWith(all, e, schemaDefinitions(env), fillsCallbacks(env))
	n, _ := env.(NullEnv)
	out := vs[:0:0]
	for _, v := range vs {
		if v.Null {
			if n == nil {
				continue
			}
			if ok, known := n.Nullable(e.Name, strings.Split(v.Inner, ".")); !ok || !known {
				continue
			}
		}
		out = append(out, v)
	}
	return out, why
}

// namesNull says whether a declared type spells a null alternative of its own.
func namesNull(typ string) bool {
	t := strings.Join(strings.Fields(typ), "")
	if strings.HasPrefix(t, "Optional[") || strings.HasPrefix(t, "typing.Optional[") {
		return true
	}
	for _, a := range splitTop(t, '|') {
		if a == "null" || a == "None" || a == "NoneType" {
			return true
		}
	}
	return false
}

// nested are the edge and nested variants of a type's members (see above): values are the full
// object's member values, minimal the required ones.
func nested(all []Entry, owner string, fields []Entry, values, minimal map[string]any, depth int, callbacks bool) []definition {
	with := func(n string, v any) map[string]any {
		one := map[string]any{}
		for k, x := range minimal {
			one[k] = x
		}
		one[n] = v // after the required members: a required member holding a nested variant
		return one
	}
	sorted := append([]Entry(nil), fields...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	var out []definition
	for _, f := range sorted {
		for _, e := range edges(f) {
			out = append(out, definition{Label: fmt.Sprintf("minimal %s + %s = %s", owner, f.Name, e.label), Inner: f.Name, Value: with(f.Name, e.value), Null: e.value == nil})
		}
		if depth+1 >= maxNestedDepth || len(Variants(f)) > 0 {
			continue // a scalar member (a string named like an owner: a model's provider name) holds nothing
		}
		var inner []definition
		switch held := HeldOwner(all, f); {
		case held != "":
			inner, _ = definitions(all, held, depth+1, callbacks)
		case len(f.Fields) > 0:
			inner, _ = objects(all, f.Name, f.Fields, depth+1, callbacks)
		}
		for _, d := range inner {
			if d.Inner == "" {
				continue // the member's full and minimal forms: "minimal + member" holds one already
			}
			if _, ok := values[f.Name]; !ok {
				continue // no value of the member is generated at all: the parent does not hold it
			}
			label := fmt.Sprintf("minimal %s + %s holding %s", owner, f.Name, d.Label)
			if f.Shape == "array" || f.Shape == "map" {
				label = fmt.Sprintf("minimal %s + %s holding one %s", owner, f.Name, d.Label)
			}
			out = append(out, definition{Label: label, Inner: f.Name + "." + d.Inner, Value: with(f.Name, wrap(f.Shape, d.Value)), Null: d.Null})
		}
	}
	return out
}

// NestedCount is how much of a probe judged values inside definitions: the distinct nested
// member paths per request (Finding.Key, "customagents.mcpservers.args"), the values set on
// them, and how many of those were an edge value ([] / {} / null).
type NestedCount struct{ Fields, Values, Edges int }

// Nested counts r's findings inside definitions (those that set a member alone: Inner).
func (r Result) Nested() NestedCount {
	var c NestedCount
	seen := map[string]bool{}
	for _, f := range r.Findings {
		if f.Inner == "" {
			continue
		}
		c.Values++
		if k := f.Request + " " + f.Entry.Owner + " " + f.Key(); !seen[k] {
			seen[k] = true
			c.Fields++
		}
		for _, e := range []string{" = []", " = {}", " = null"} {
			if strings.HasSuffix(f.Variant, e) {
				c.Edges++
			}
		}
	}
	return c
}
