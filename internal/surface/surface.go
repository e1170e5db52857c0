// Package surface is the application's surface of an SDK as its driver reads it from the SDK's
// own declarations (drivers/PROTOCOL.md "Surface"): every field and handler of the session
// config, client options, tool, custom agent, MCP server, command, provider and system message
// types. It generates a value for each field from its declared shape and finds, by running the
// SDK, under which wire key the value reaches the request, so no field list is written by hand.
package surface

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/driver"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
)

// Entry is one field or handler the SDK declares.
type Entry struct {
	Owner      string   `json:"owner"` // sessionConfig, resumeConfig, clientOptions, tool, …
	Name       string   `json:"name"`  // the language's own name
	Type       string   `json:"type"`  // the declared type, as the language writes it
	Kind       string   `json:"kind"`  // field or handler
	Shape      string   `json:"shape"` // string, boolean, number, integer, string[], enum, object, array, map, handler, other
	Values     []string `json:"values,omitempty"`
	Optional   bool     `json:"optional"`
	DeclaredBy string   `json:"declaredBy,omitempty"`
	// Fields are the members of the object an object field holds (of each element, for a list
	// or map of objects), read from the SDK's own declaration of that type by the driver, with
	// names as the driver's conversion reads them: what a value of a type that no definition
	// owner bears the name of and that the runtime schema does not define is generated from.
	Fields []Entry `json:"fields,omitempty"`
}

// Key is the name an entry is matched by across SDKs: the language's name lower-cased without
// underscores (Node's mcpServers, Go's MCPServers and Python's mcp_servers are one field).
func (e Entry) Key() string { return Normalize(e.Name) }

// Normalize is a language's field name as Key matches it.
func Normalize(name string) string { return strings.ToLower(strings.ReplaceAll(name, "_", "")) }

// Variant is one generated value of a field.
type Variant struct {
	Label string
	Value any
	Inner string // the definition field this variant sets alone (Generate), or ""
	// Wire is the value expected on the wire when it is not Value: a registration holding one
	// declaration beside its callbacks (Node's canvas {declaration, open}) sends the declaration.
	Wire any
	// Null: the variant sets a nested member to an explicit null, kept only where the runtime's
	// schema lets that member be null (NullEnv).
	Null bool
}

// Want is the value the variant must put on the wire.
func (v Variant) Want() any {
	if v.Wire != nil {
		return v.Wire
	}
	return v.Value
}

// NonASCII starts every generated string: a value an SDK must pass through unchanged.
const NonASCII = "Grüße, 世界 ✓"

// Variants are the values the checks set a field to, generated from its shape: a non-ASCII
// string; true and false (false only when the type can say "not set" apart from false); a
// non-empty list and []; an enum's alphabetically first value. Nil: no generator for the shape yet
// (objects, maps, lists of objects), which Probe reports as not checked.
func Variants(e Entry) []Variant {
	if e.Kind != "field" {
		return nil
	}
	switch e.Shape {
	case "string":
		// The field's name in the value keeps each field's string its own: the transcript
		// redacts every later occurrence of a string once it was sent as a secret.
		return []Variant{{Label: "non-ASCII string", Value: NonASCII + " " + e.Name}}
	case "boolean":
		if e.Optional {
			return []Variant{{Label: "true", Value: true}, {Label: "false", Value: false}}
		}
		return []Variant{{Label: "true", Value: true}}
	case "number", "integer":
		return []Variant{{Label: "3", Value: 3}}
	case "string[]":
		list := make([]any, len(driver.ListedNames))
		for i, n := range driver.ListedNames {
			list[i] = n
		}
		return []Variant{{Label: "a list", Value: list}, {Label: "[]", Value: []any{}}}
	case "enum":
		if len(e.Values) > 0 {
			// The alphabetically first, so that every SDK is given the same value.
			v := slices.Min(e.Values)
			return []Variant{{Label: fmt.Sprintf("%q", v), Value: v}}
		}
	}
	return nil
}

// Finding is what one variant of one field did on the wire.
type Finding struct {
	Entry   Entry
	Variant string
	Request string // session.create, session.resume, connect
	Path    string // where the value was found ("" when it was not sent)
	Problem string // what is wrong ("" when nothing)
	Inner   string // the definition field set alone inside the value (Variant.Inner)
	// Via is the later request that carried the value when Request did not (Path then starts
	// with its method: session.options.update after create or resume), or "".
	Via string
}

// Key is the field a finding is reported under across SDKs: the entry's Key, and the
// definition field's for a variant that sets one alone ("customagents.displayname").
func (f Finding) Key() string {
	if f.Inner != "" {
		return f.Entry.Key() + "." + Normalize(f.Inner)
	}
	return f.Entry.Key()
}

// Locate finds where value v went in params, given the params of the same request without it
// (base) and of a second such request (base2): keys whose values differ between the two bases
// are volatile (generated ids) and ignored unless they carry v. It returns the path of v and a
// problem: v altered, something else changed too, or v sent as something else.
func Locate(base, base2, params map[string]any, v any) (path, problem string) {
	var changed []string
	for k, pv := range params {
		bv, inBase := base[k]
		if inBase && reflect.DeepEqual(bv, pv) {
			continue
		}
		if b2, ok := base2[k]; ok && inBase && !reflect.DeepEqual(bv, b2) && !reflect.DeepEqual(pv, v) {
			continue // volatile, and not the value given
		}
		changed = append(changed, k)
	}
	for k := range base {
		if _, ok := params[k]; !ok {
			if b2, ok := base2[k]; ok && !reflect.DeepEqual(base[k], b2) {
				// A value the SDK generates per request (a session id), left to the runtime
				// for this value (a cloud session takes the id the server generates): not the
				// application's key.
				continue
			}
			changed = append(changed, k)
		}
	}
	sort.Strings(changed)
	var found []string
	for _, k := range changed {
		if pv, ok := params[k]; ok {
			if p := find(pv, v, k); p != "" {
				found = append(found, p)
			}
		}
	}
	switch {
	case len(changed) == 0:
		return "", ""
	case len(found) == 0:
		return "", fmt.Sprintf("%s changed (%s) but none carries the value given", strings.Join(changed, ", "), show(params, changed))
	case len(changed) > 1:
		var others []string
		for _, k := range changed {
			if !strings.HasPrefix(found[0]+".", k+".") {
				others = append(others, k)
			}
		}
		return found[0], fmt.Sprintf("sent under %s, and %s changed too (%s)", found[0], strings.Join(others, ", "), show(params, others))
	}
	return found[0], ""
}

// Carries says where a request's params carry the value given, up to the spelling of object keys
// (as find matches it), or "": the evidence that a request is one a field's value made the SDK
// send (features/session/startup_order.feature).
func Carries(params map[string]any, want any) string {
	return find(params, want, "params")
}

// find returns the path at which want is in v (v itself first), or "". A string the transcript
// recorded as a secret (transcript.Redacted) matches by its fingerprint.
func find(v, want any, path string) string {
	if same(normalize(v), normalize(want)) {
		return path
	}
	if m, ok := v.(map[string]any); ok {
		keys := slices.Sorted(maps.Keys(m))
		for _, k := range keys {
			if p := find(m[k], want, path+"."+k); p != "" {
				return p
			}
		}
	}
	return ""
}

// same says whether a sent value (decoded JSON) is the value given, up to the spelling of object
// keys: an application's definition is written with the SDK's own names (Python's
// display_name), the wire has the runtime's (displayName), and Normalize makes them one; a key
// the SDK renames (Node's MCP workingDirectory sent as cwd) matches the one sent key left over
// that carries its value (every generated value names its field, so that key is unique). Where
// each key went is compared across SDKs by the inner findings. A string the transcript
// recorded as a secret matches by its fingerprint.
//
// A key the application left out sent with the zero value of its scalar type ("", false, 0;
// never null) is the same value too: every SDK sends a command's unset description as "". An
// empty list or map is not: [] is a value of its own (a custom agent's tools: [] gives it no
// tools, an absent tools every tool), so absent stays absent.
func same(sent, given any) bool {
	switch g := given.(type) {
	case map[string]any:
		s, ok := sent.(map[string]any)
		if !ok {
			return false
		}
		if len(s) < len(g) {
			return false
		}
		pairs := matchKeys(s, g)
		if pairs == nil {
			return false
		}
		paired := map[string]bool{}
		for _, sk := range pairs {
			paired[sk] = true
		}
		for sk, sv := range s {
			if !paired[sk] && !zero(sv) {
				return false
			}
		}
		return true
	case []any:
		s, ok := sent.([]any)
		if !ok || len(s) != len(g) {
			return false
		}
		for i := range g {
			if !same(s[i], g[i]) {
				return false
			}
		}
		return true
	case string:
		return sent == g || sent == transcript.Redacted(g)
	}
	return reflect.DeepEqual(sent, given)
}

// zero says whether a sent JSON value is its scalar type's zero value (null is not one: a key
// not set is not sent as null; nor [] or {}, which say something of their own).
func zero(v any) bool {
	switch x := v.(type) {
	case string:
		return x == ""
	case bool:
		return !x
	case float64:
		return x == 0
	}
	return false
}

// matchKeys pairs every given key with the sent key carrying its value (by Normalize, else the
// one unpaired sent key with the same value), or nil when some given key has none.
func matchKeys(sent, given map[string]any) map[string]string {
	out := map[string]string{}
	used := map[string]bool{}
	var rest []string
	for gk := range given {
		for sk := range sent {
			if !used[sk] && Normalize(sk) == Normalize(gk) {
				if !same(sent[sk], given[gk]) {
					return nil
				}
				out[gk], used[sk] = sk, true
				break
			}
		}
		if _, ok := out[gk]; !ok {
			rest = append(rest, gk)
		}
	}
	sort.Strings(rest)
	for _, gk := range rest {
		var hits []string
		for sk, sv := range sent {
			if !used[sk] && same(sv, given[gk]) {
				hits = append(hits, sk)
			}
		}
		if len(hits) != 1 {
			return nil
		}
		out[gk], used[hits[0]] = hits[0], true
	}
	return out
}

// innerPath is where a definition field set alone (Variant.Inner) went inside the value sent at
// path: the sent key matchKeys pairs it with, through lists and maps of definitions; a dotted
// Inner (a member of a definition held inside the definition: "mcpServers.tools") is followed
// one member at a time, as deep as the sent value goes.
func innerPath(sent, given any, path, inner string) string {
	head, rest, deeper := strings.Cut(inner, ".")
	p, s, g := innerFind(sent, given, path, head)
	if p == "" || !deeper {
		return p
	}
	if q := innerPath(s, g, p, rest); q != "" {
		return q
	}
	return p
}

// innerFind is innerPath for one member name, with the sent and given values found there.
func innerFind(sent, given any, path, inner string) (string, any, any) {
	switch g := given.(type) {
	case map[string]any:
		s, _ := sent.(map[string]any)
		pairs := matchKeys(s, g)
		if sk, ok := pairs[inner]; ok {
			return path + "." + sk, s[sk], g[inner]
		}
		keys := slices.Sorted(maps.Keys(g))
		for _, gk := range keys {
			if sk, ok := pairs[gk]; ok {
				if p, sv, gv := innerFind(s[sk], g[gk], path+"."+sk, inner); p != "" {
					return p, sv, gv
				}
			}
		}
	case []any:
		s, _ := sent.([]any)
		for i := range g {
			if i < len(s) {
				if p, sv, gv := innerFind(s[i], g[i], fmt.Sprintf("%s.%d", path, i), inner); p != "" {
					return p, sv, gv
				}
			}
		}
	}
	return "", nil, nil
}

// Mismatch is every place where a sent value (decoded JSON) is not the value given (as same
// judges it), each named by its path from path and joined by "; ": "customAgents.0.tools: want
// [], got null", "….tools: want [], the key is absent", "….tools: not set, got []". "" when
// they are the same.
func Mismatch(sent, given any, path string) string {
	return strings.Join(mismatches(normalize(sent), normalize(given), path), "; ")
}

func mismatches(sent, given any, path string) []string {
	if same(sent, given) {
		return nil
	}
	switch g := given.(type) {
	case map[string]any:
		s, ok := sent.(map[string]any)
		if !ok {
			break
		}
		keys := slices.Sorted(maps.Keys(g))
		var out []string
		used := map[string]bool{}
		for _, gk := range keys {
			sk := ""
			for k := range s {
				if !used[k] && Normalize(k) == Normalize(gk) {
					sk = k
				}
			}
			if sk == "" {
				for k, sv := range s { // a key the SDK renames, carrying the value (see same)
					if !used[k] && same(sv, g[gk]) && !keyOf(g, k) {
						sk = k
						break
					}
				}
			}
			if sk == "" {
				out = append(out, fmt.Sprintf("%s.%s: want %s, the key is absent", path, gk, brief(g[gk])))
				continue
			}
			used[sk] = true
			out = append(out, mismatches(s[sk], g[gk], path+"."+sk)...)
		}
		extra := make([]string, 0, len(s))
		for k := range s {
			if !used[k] && !zero(s[k]) {
				extra = append(extra, k)
			}
		}
		sort.Strings(extra)
		for _, k := range extra {
			out = append(out, fmt.Sprintf("%s.%s: not set, got %s", path, k, brief(s[k])))
		}
		if len(out) > 0 {
			return out
		}
	case []any:
		s, ok := sent.([]any)
		if !ok {
			break
		}
		if len(s) != len(g) {
			return []string{fmt.Sprintf("%s: want %d elements, got %d (%s)", path, len(g), len(s), brief(sent))}
		}
		var out []string
		for i := range g {
			out = append(out, mismatches(s[i], g[i], fmt.Sprintf("%s.%d", path, i))...)
		}
		if len(out) > 0 {
			return out
		}
	}
	return []string{fmt.Sprintf("%s: want %s, got %s", path, brief(given), brief(sent))}
}

// keyOf says whether k names a key of m (by Normalize).
func keyOf(m map[string]any, k string) bool {
	for gk := range m {
		if Normalize(gk) == Normalize(k) {
			return true
		}
	}
	return false
}

// brief is a JSON value for a message, cut at 80 characters.
func brief(v any) string {
	b, _ := json.Marshal(v)
	s := []rune(string(b))
	if len(s) > 80 {
		s = append(s[:77], []rune("...")...)
	}
	return string(s)
}

// normalize makes Go values and decoded JSON comparable (3 and 3.0, []any and []string).
func normalize(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}

func show(params map[string]any, keys []string) string {
	var out []string
	for _, k := range keys {
		v, ok := params[k]
		if !ok {
			out = append(out, k+"=<absent>")
			continue
		}
		b, _ := json.Marshal(v)
		// Cut on a character, not a byte: the generated strings are non-ASCII.
		s := []rune(string(b))
		if len(s) > 200 {
			s = append(s[:197], []rune("...")...)
		}
		out = append(out, k+"="+string(s))
	}
	return strings.Join(out, ", ")
}

// Counts are the entries per owner and kind, for the surface command.
func Counts(entries []Entry) map[string]map[string]int {
	out := map[string]map[string]int{}
	for _, e := range entries {
		if out[e.Owner] == nil {
			out[e.Owner] = map[string]int{}
		}
		out[e.Owner][e.Kind]++
	}
	return out
}
