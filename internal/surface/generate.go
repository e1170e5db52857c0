package surface

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// The owners whose fields are set directly on a request; every other owner (customAgent,
// mcpServer, tool, command, provider, systemMessage) is a definition held by one of their fields.
var requestOwners = map[string]bool{"sessionConfig": true, "resumeConfig": true, "clientOptions": true}

// HeldOwner is the definition owner a config field holds, found by name: the field bears the
// owner's name, alone or as a plural (customAgents holds customAgent definitions, provider a
// provider, Go's MCPServers and Python's mcp_servers mcpServer ones). "" when none.
func HeldOwner(all []Entry, e Entry) string {
	k := e.Key()
	for _, x := range all {
		if requestOwners[x.Owner] || x.Owner == e.Owner {
			continue
		}
		if o := Normalize(x.Owner); (o == k || o+"s" == k) && !namesAnother(e.Type, x.DeclaredBy) {
			return x.Owner
		}
	}
	return ""
}

var identifier = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)

// namesAnother says whether a field's declared type names a type built on the owner's declaring
// type without being it (Go's Providers is []NamedProviderConfig, not the ProviderConfig the
// provider owner is declared by): such a field holds something else under the owner's name.
func namesAnother(typ, declaredBy string) bool {
	ids := identifier.FindAllString(declaredBy, -1)
	if len(ids) == 0 {
		return false
	}
	d := ids[0]
	if i := strings.LastIndex(declaredBy[:strings.Index(declaredBy+" ", " ")], "."); i >= 0 {
		d = identifier.FindString(declaredBy[i+1:])
	}
	for _, id := range identifier.FindAllString(typ, -1) {
		if id != d && strings.HasSuffix(id, d) {
			return true
		}
	}
	return false
}

// Generate is every value a field is set to, and, when there is none, why. Plain shapes come
// from Variants. A field holding definitions of another owner (HeldOwner) gets objects built
// from that owner's own inventoried fields: the full object (every field the SDK declares for
// it, each with its first generated value), a minimal one (only the fields the type requires),
// and one with each optional field alone beside the required ones, so that every field of the
// definition is checked on its own; lists and maps of definitions hold one such object, and
// are also set empty. A map of anything else is a one-entry map of strings and {}. Inner names
// the definition field a variant adds alone ("" for full, minimal and empty).
func Generate(all []Entry, e Entry) ([]Variant, string) { return GenerateWith(all, e, nil, false) }

// Definitions generates a value of a type the runtime's schema defines by the same name
// (api.schema.json's definitions), all optional fields set or only the required ones; ok is
// false when the schema defines no such type.
type Definitions func(typeName string, all bool) (map[string]any, bool)

// GenerateWith is Generate, and for an object (or a list or map of objects) whose declared type
// names a type the runtime's schema defines by that very name (CapiSessionOptions,
// MemoryConfiguration), a value generated from the schema (every field, and only the required
// ones): the wire's own spelling, valid by construction. Any other object field whose members
// the driver read from the SDK's declaration of its type (Entry.Fields) gets objects built from
// them as a definition's are (full, minimal, each optional member alone beside the required
// ones). Without either, the field has no generated value. callbacks: the driver gives every
// required callback member of a definition a do-nothing callback of its own (capability
// surface.callbacks), so a definition that must carry one (a command's handler) is generated
// without it; else such a definition has no generated value.
func GenerateWith(all []Entry, e Entry, defs Definitions, callbacks bool) ([]Variant, string) {
	if e.Kind != "field" {
		return nil, "a handler: registered, not a value (checked by the handler features)"
	}
	if vs := Variants(e); len(vs) > 0 {
		return vs, ""
	}
	owner := HeldOwner(all, e)
	var objs []definition
	var why string
	switch {
	case owner != "":
		objs, why = definitions(all, owner, 0, callbacks)
	case len(e.Fields) > 0 && defs == nil || len(e.Fields) > 0 && !schemaNames(e.Type, defs):
		objs, why = objects(all, e.Name, e.Fields, 0, callbacks)
	}
	if owner != "" || len(objs) > 0 {
		if len(objs) == 0 {
			return nil, why
		}
		var out []Variant
		for _, o := range objs {
			v := Variant{Label: o.Label, Value: wrap(e.Shape, o.Value), Inner: o.Inner, Null: o.Null}
			if o.Wire != nil {
				v.Wire = wrap(e.Shape, o.Wire)
			}
			if e.Shape == "map" || e.Shape == "array" {
				v.Label = "one " + o.Label
			}
			out = append(out, v)
		}
		out = append(out, emptyOf(e.Shape)...)
		return out, ""
	}
	if defs != nil && (e.Shape == "object" || e.Shape == "array" || e.Shape == "map" || e.Shape == "other") {
		for _, id := range identifier.FindAllString(e.Type, -1) {
			full, ok := defs(id, true)
			if !ok {
				continue
			}
			out := []Variant{{Label: "every field of the schema's " + id, Value: wrap(e.Shape, full)}}
			if min, ok := defs(id, false); ok && !same(normalize(min), normalize(full)) {
				out = append(out, Variant{Label: "the schema's " + id + " with its required fields", Value: wrap(e.Shape, min)})
			}
			out = append(out, emptyOf(e.Shape)...)
			return out, ""
		}
	}
	if why != "" {
		return nil, why
	}
	if vs := typedVariants(e); vs != nil {
		return vs, ""
	}
	switch e.Shape {
	case "map":
		return []Variant{{Label: "a one-entry map", Value: stringMap(e.Name)}, {Label: "{}", Value: map[string]any{}}}, ""
	case "array":
		return nil, "a list of objects whose fields the SDK's surface does not list (no definition owner bears its name) and whose type the runtime schema does not define by that name"
	case "object":
		return nil, "an object whose fields the SDK's surface does not list (no definition owner bears its name) and whose type the runtime schema does not define by that name"
	}
	return nil, "a type with no value generator (" + e.Shape + ": " + e.Type + ")"
}

// typedVariants are the values of a map or list whose declared type is made of containers and
// scalars only (parseType): a map of booleans gets true and false, a map of lists of objects
// (Python's and Rust's custom-agent hooks) a map holding a list holding a map; and the empty one.
// Nil for any other type.
func typedVariants(e Entry) []Variant {
	t := parseType(e.Type)
	if t.kind != "map" && t.kind != "list" || !t.known() {
		return nil
	}
	one, empty := Variant{Label: "a one-entry map"}, Variant{Label: "{}", Value: map[string]any{}}
	if t.kind == "list" {
		one, empty = Variant{Label: "a one-element list"}, Variant{Label: "[]", Value: []any{}}
	}
	if t.leaf() != "boolean" {
		one.Value = t.value(e.Name, false)
		return []Variant{one, empty}
	}
	yes, no := one, one
	yes.Label, yes.Value = one.Label+" to true", t.value(e.Name, true)
	no.Label, no.Value = one.Label+" to false", t.value(e.Name, false)
	return []Variant{yes, no, empty}
}

// stringMap is a generated map: one non-ASCII entry naming the field it is for.
func stringMap(name string) map[string]any {
	return map[string]any{"kéy-" + name: NonASCII + " " + name}
}

// emptyOf is the empty container of the field's shape (none for an object): a variant of its own.
func emptyOf(shape string) []Variant {
	switch shape {
	case "array":
		return []Variant{{Label: "[]", Value: []any{}}}
	case "map":
		return []Variant{{Label: "{}", Value: map[string]any{}}}
	}
	return nil
}

// wrap puts a definition into the container the field's shape declares.
func wrap(shape string, obj map[string]any) any {
	switch shape {
	case "array":
		return []any{obj}
	case "map":
		return map[string]any{"entry-ü": obj}
	}
	return obj
}

type definition struct {
	Label, Inner string
	Null         bool // see Variant.Null
	Value        map[string]any
	Wire         map[string]any // see Variant.Wire
}

// definitions are the generated objects of a definition owner (see Generate), or why there are
// none. depth bounds definitions held inside definitions (a custom agent's MCP servers).
func definitions(all []Entry, owner string, depth int, callbacks bool) ([]definition, string) {
	var members []Entry
	for _, x := range all {
		if x.Owner == owner {
			members = append(members, x)
		}
	}
	return objects(all, owner, members, depth, callbacks)
}

// objects are the generated objects of a type with the given members (a definition owner's
// entries, or an object field's Fields), labelled by label, or why there are none.
func objects(all []Entry, owner string, members []Entry, depth int, callbacks bool) ([]definition, string) {
	var fields []Entry
	for _, x := range members {
		if x.Kind == "handler" && !x.Optional && !callbacks {
			return nil, fmt.Sprintf("each %s carries a handler (%s), which a generated JSON value cannot hold", owner, x.Name)
		}
		if x.Kind == "field" {
			fields = append(fields, x)
		}
	}
	if len(fields) == 0 {
		return nil, "the SDK's surface lists no fields of " + owner
	}
	values := map[string]any{}
	var skipped []string
	for _, f := range fields {
		v, ok := firstValue(all, f, depth, callbacks)
		if !ok {
			if !f.Optional {
				return nil, fmt.Sprintf("%s.%s is required and has no value generator (%s)", owner, f.Name, f.Shape)
			}
			skipped = append(skipped, f.Name)
			continue
		}
		values[f.Name] = v
	}
	minimal := map[string]any{}
	for _, f := range fields {
		if v, ok := values[f.Name]; ok && !f.Optional {
			minimal[f.Name] = v
		}
	}
	out := []definition{{Label: owner + " with every field", Value: values}}
	if len(minimal) < len(values) {
		out = append(out, definition{Label: "minimal " + owner, Value: minimal})
	}
	names := make([]string, 0, len(values))
	for _, f := range fields {
		if _, ok := values[f.Name]; ok && f.Optional {
			names = append(names, f.Name)
		}
	}
	sort.Strings(names)
	{
		for _, n := range names {
			one := map[string]any{n: values[n]}
			for k, v := range minimal {
				one[k] = v
			}
			out = append(out, definition{Label: fmt.Sprintf("minimal %s + %s", owner, n), Inner: n, Value: one})
		}
	}
	out = append(out, nested(all, owner, fields, values, minimal, depth, callbacks)...)
	// A registration: one declaration (an object) beside callbacks only. What reaches the wire
	// is the declaration, so a member set inside it is found at the declaration's own level.
	if len(fields) == 1 && len(fields) < len(members) && fields[0].Shape == "object" {
		for i := range out {
			if d, ok := out[i].Value[fields[0].Name].(map[string]any); ok {
				out[i].Wire = d
				out[i].Inner = strings.TrimPrefix(out[i].Inner, fields[0].Name+".")
			}
		}
	}
	why := ""
	if len(skipped) > 0 {
		why = "not generated inside " + owner + ": " + strings.Join(skipped, ", ")
	}
	return out, why
}

// firstValue is the value a definition's field takes in the full object.
func firstValue(all []Entry, f Entry, depth int, callbacks bool) (any, bool) {
	if f.Kind != "field" {
		return nil, false
	}
	if vs := Variants(f); len(vs) > 0 {
		return vs[0].Value, true
	}
	if owner := HeldOwner(all, f); owner != "" && depth < 1 {
		// A definition held inside another (a custom agent's MCP servers) takes its minimal form:
		// its fields are checked where they are the owner's, and the owner's every-field object
		// may merge the fields of several types (stdio and HTTP servers) that no typed SDK holds
		// in one value.
		if objs, _ := definitions(all, owner, depth+1, callbacks); len(objs) > 0 {
			return wrap(f.Shape, objs[min(1, len(objs)-1)].Value), true
		}
	}
	if len(f.Fields) > 0 && depth < 2 {
		if objs, _ := objects(all, f.Name, f.Fields, depth+1, callbacks); len(objs) > 0 {
			return wrap(f.Shape, objs[0].Value), true
		}
	}
	if t := parseType(f.Type); (t.kind == "map" || t.kind == "list") && t.known() {
		return t.value(f.Name, true), true
	}
	if f.Shape == "map" {
		return stringMap(f.Name), true
	}
	return nil, false
}

// Tally is one owner's account: the fields the SDK declares, how many have a generated check
// in this probe, and why each other one has none.
type Tally struct {
	Owner     string
	Fields    int
	Checked   int
	Unchecked []Unchecked
}

// Tally accounts for every field of entries against a probe's result: a config field is
// checked when some value of it was set and looked for; a definition's field when a value set
// it alone (or, required, in every definition) on a field that holds the definition.
func (r Result) Tally(entries []Entry) []Tally {
	checked := map[string]bool{} // owner + "\x00" + name
	why := map[string]string{}
	held := map[string]bool{}
	for _, f := range r.Findings {
		checked[f.Entry.Owner+"\x00"+f.Entry.Name] = true
		if o := HeldOwner(entries, f.Entry); o != "" && (f.Inner != "" || strings.Contains(f.Variant, o)) {
			held[o] = true
			if f.Inner != "" {
				checked[o+"\x00"+f.Inner] = true
			}
		}
	}
	for _, u := range r.Unchecked {
		k := u.Entry.Owner + "\x00" + u.Entry.Name
		if why[k] == "" {
			why[k] = u.Reason
		}
		if o := HeldOwner(entries, u.Entry); o != "" && why[o] == "" {
			why[o] = u.Reason
		}
	}
	byOwner := map[string]*Tally{}
	var order []string
	for _, e := range entries {
		if e.Kind != "field" {
			continue
		}
		t := byOwner[e.Owner]
		if t == nil {
			t = &Tally{Owner: e.Owner}
			byOwner[e.Owner] = t
			order = append(order, e.Owner)
		}
		t.Fields++
		k := e.Owner + "\x00" + e.Name
		switch {
		case checked[k], held[e.Owner] && !e.Optional:
			t.Checked++
		case why[k] != "":
			t.Unchecked = append(t.Unchecked, Unchecked{e, why[k]})
		case requestOwners[e.Owner]:
			t.Unchecked = append(t.Unchecked, Unchecked{e, "no generated check sets " + e.Owner + " fields"})
		case why[e.Owner] != "":
			t.Unchecked = append(t.Unchecked, Unchecked{e, why[e.Owner]})
		case held[e.Owner]:
			t.Unchecked = append(t.Unchecked, Unchecked{e, "no value generator for its shape (" + e.Shape + ") inside " + e.Owner})
		default:
			t.Unchecked = append(t.Unchecked, Unchecked{e, "no session or resume config field holds " + e.Owner + " definitions"})
		}
	}
	out := make([]Tally, 0, len(order))
	for _, o := range order {
		out = append(out, *byOwner[o])
	}
	return out
}

// schemaNames says whether an object field's declared type names a type the runtime schema
// defines by that very name: its value comes from the schema (the wire's own spelling).
func schemaNames(typ string, defs Definitions) bool {
	for _, id := range identifier.FindAllString(typ, -1) {
		if _, ok := defs(id, true); ok {
			return true
		}
	}
	return false
}
