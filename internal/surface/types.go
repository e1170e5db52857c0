package surface

import "strings"

// A declared type read as far as the value generator needs it: a map or list of something, a
// scalar, or "any JSON value". Every SDK writes its types in its own language (Record<string,
// boolean>, map[string]bool, dict[str, list[dict[str, Any]]], Option<IndexMap<String,
// Vec<IndexMap<String, Value>>>>, java.util.Map<java.lang.String, java.lang.Boolean>); no library
// reads all five spellings, so this small reader does, for containers and scalars only. Anything
// else (a named struct, a union of several types) is "unknown": its values come from the
// definition owners, the driver's Fields or the runtime schema, or it has no generator.
type typeExpr struct {
	kind string    // map, list, string, boolean, number, any, unknown
	elem *typeExpr // the value type of a map, the element type of a list
}

// Hand-written spellings: each language's names of the containers and scalars it has.
var (
	mapHeads  = setOf("Record", "Map", "HashMap", "IndexMap", "BTreeMap", "LinkedHashMap", "TreeMap", "dict", "Dict", "Mapping", "MutableMapping")
	listHeads = setOf("Array", "ReadonlyArray", "Vec", "list", "List", "Sequence", "Set", "HashSet", "tuple")
	scalars   = map[string]string{
		"string": "string", "str": "string", "String": "string", "&str": "string", "PathBuf": "string", "OsString": "string",
		"bool": "boolean", "boolean": "boolean", "Boolean": "boolean",
		"number": "number", "int": "number", "float": "number", "Integer": "number", "Long": "number", "Double": "number",
		"int32": "number", "int64": "number", "float32": "number", "float64": "number", "i32": "number", "i64": "number",
		"u32": "number", "u64": "number", "usize": "number", "f64": "number",
		"any": "any", "unknown": "any", "Any": "any", "Value": "any", "JsonValue": "any", "Object": "any", "interface{}": "any",
		"JsonNode": "any",
	}
)

func setOf(names ...string) map[string]bool {
	out := map[string]bool{}
	for _, n := range names {
		out[n] = true
	}
	return out
}

// parseType reads a declared type (see typeExpr).
func parseType(typ string) typeExpr {
	t := strings.Join(strings.Fields(typ), "")
	t = strings.TrimPrefix(strings.TrimSuffix(t, "'>"), "<class'") // Python's <class 'str'>
	// An optional value: its type without the "none" alternative.
	if alts := splitTop(t, '|'); len(alts) > 1 {
		var rest []string
		for _, a := range alts {
			switch a {
			case "None", "null", "undefined", "NoneType":
			default:
				rest = append(rest, a)
			}
		}
		if len(rest) != 1 {
			return typeExpr{kind: "unknown"}
		}
		t = rest[0]
	}
	t = strings.TrimPrefix(t, "*")
	if inner, ok := strings.CutSuffix(t, "[]"); ok {
		return list(parseType(inner))
	}
	if inner, ok := strings.CutPrefix(t, "[]"); ok {
		return list(parseType(inner))
	}
	if rest, ok := strings.CutPrefix(t, "map["); ok { // Go: map[K]V
		if i := closing(rest, '[', ']'); i >= 0 {
			return mapOf(parseType(rest[i+1:]))
		}
		return typeExpr{kind: "unknown"}
	}
	head, args := generic(t)
	switch {
	case args == nil:
		if k, ok := scalars[head]; ok {
			return typeExpr{kind: k}
		}
		return typeExpr{kind: "unknown"}
	case head == "Option" || head == "Optional" || head == "Box" || head == "Arc":
		if len(args) == 1 {
			return parseType(args[0])
		}
	case mapHeads[head] && len(args) == 2:
		return mapOf(parseType(args[1]))
	case listHeads[head] && len(args) == 1:
		return list(parseType(args[0]))
	}
	return typeExpr{kind: "unknown"}
}

func list(e typeExpr) typeExpr  { return typeExpr{kind: "list", elem: &e} }
func mapOf(e typeExpr) typeExpr { return typeExpr{kind: "map", elem: &e} }

// generic splits "pkg.Head<A, B>" or "Head[A, B]" into the head's last path segment and its
// top-level arguments (nil when the type has none).
func generic(t string) (string, []string) {
	open := strings.IndexAny(t, "<[")
	if open < 0 || !strings.HasSuffix(t, ">") && !strings.HasSuffix(t, "]") {
		return lastSegment(t), nil
	}
	head := lastSegment(t[:open])
	inner := t[open+1 : len(t)-1]
	return head, splitTop(inner, ',')
}

// lastSegment drops a module path: java.util.Map, std::collections::HashMap, typing.Any.
func lastSegment(name string) string {
	if i := strings.LastIndex(name, "::"); i >= 0 {
		name = name[i+2:]
	}
	if i := strings.LastIndex(name, "."); i >= 0 {
		name = name[i+1:]
	}
	return name
}

// splitTop splits s at sep outside any brackets.
func splitTop(s string, sep rune) []string {
	var out []string
	depth, last := 0, 0
	for i, c := range s {
		switch c {
		case '<', '[', '(', '{':
			depth++
		case '>', ']', ')', '}':
			depth--
		case sep:
			if depth == 0 {
				out = append(out, s[last:i])
				last = i + len(string(sep))
			}
		}
	}
	return append(out, s[last:])
}

// closing is the index in s of the bracket that closes one already opened before s.
func closing(s string, open, close rune) int {
	depth := 1
	for i, c := range s {
		switch c {
		case open:
			depth++
		case close:
			if depth--; depth == 0 {
				return i
			}
		}
	}
	return -1
}

// known says whether every part of the type is a container or a scalar the generator can make.
func (t typeExpr) known() bool {
	switch t.kind {
	case "map", "list":
		return t.elem.known()
	case "unknown":
		return false
	}
	return true
}

// value is a generated value of the type for field name: one entry (keyed "kéy-NAME") per map,
// one element per list, the field's non-ASCII string, true, 3; "any" takes the string. b is the
// boolean a map or list of booleans holds (both are generated for those).
func (t typeExpr) value(name string, b bool) any {
	switch t.kind {
	case "map":
		return map[string]any{"kéy-" + name: t.elem.value(name, b)}
	case "list":
		return []any{t.elem.value(name, b)}
	case "boolean":
		return b
	case "number":
		return 3
	}
	return NonASCII + " " + name
}

// leaf is the scalar at the bottom of nested containers.
func (t typeExpr) leaf() string {
	for t.elem != nil {
		t = *t.elem
	}
	return t.kind
}
