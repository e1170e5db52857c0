package schemagen

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"

	"pgregory.net/rapid"

	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
)

// nonASCII is the edge-case string: accents, CJK, a symbol and an astral-plane emoji (a UTF-16
// surrogate pair in languages whose strings are UTF-16).
const nonASCII = "Grüße, 世界 ✓ 🚀"

// maxOptionalDepth bounds how deep "every optional field" goes: recursive definitions (a
// schema of schemas) would otherwise never end. Below it only required fields are set.
const maxOptionalDepth = 6

// gen walks one schema node into one value. A choice (an enum value, an anyOf branch, a type
// of a type list, an empty list, a bound) takes alternative 0 unless override names another;
// every choice met is recorded in points, which is how Cases finds the edge cases.
type gen struct {
	d        *Doc
	rng      *rand.Rand
	seed     uint64
	all      bool // set every optional property
	nulls    bool // take null wherever the schema allows it (a choice with a null alternative)
	extra    bool // add UnknownField to every object the schema describes by its properties
	override map[string]int
	points   []point
	taken    map[string]int // the alternative each choice took, by "pointer#kind"
}

// point is one choice the walker met: at an instance pointer, of a kind, with n alternatives.
type point struct {
	at, kind string
	n        int
	labels   []string
	union    bool // an anyOf whose branches are told apart by a const property (a discriminator)
}

func (p point) label(alt int) string {
	if alt < len(p.labels) {
		return p.kind + " " + p.labels[alt]
	}
	return fmt.Sprintf("%s #%d", p.kind, alt)
}

func (d *Doc) newGen(seed string, all bool) *gen {
	s := seedOf(seed)
	return &gen{d: d, seed: s, rng: rand.New(rand.NewPCG(s, s^0x9e3779b97f4a7c15)), all: all}
}

// choose records a choice point and returns the alternative to take.
func (g *gen) choose(at, kind string, labels []string) int {
	if len(labels) < 2 {
		return 0
	}
	g.points = append(g.points, point{at: at, kind: kind, n: len(labels), labels: labels})
	alt := 0
	if o, ok := g.override[at+"#"+kind]; ok && o < len(labels) {
		alt = o
	} else if g.nulls {
		if i := slices.Index(labels, "null"); i >= 0 {
			alt = i
		}
	}
	if g.taken == nil {
		g.taken = map[string]int{}
	}
	g.taken[at+"#"+kind] = alt
	return alt
}

// resolve follows $ref (local "#/definitions/…" pointers) to the node it names.
func (g *gen) resolve(n map[string]any) map[string]any {
	for i := 0; i < 32; i++ {
		ref, ok := n["$ref"].(string)
		if !ok {
			return n
		}
		next, ok := g.d.Node(strings.TrimPrefix(ref, "#")).(map[string]any)
		if !ok {
			return n
		}
		n = next
	}
	return n
}

func (g *gen) value(node any, at string, depth int) any {
	n, ok := node.(map[string]any)
	if !ok {
		if b, ok := node.(bool); ok && b {
			return "any"
		}
		return nil
	}
	n = g.resolve(n)
	if depth > 24 {
		return nil
	}
	if c, ok := n["const"]; ok {
		return c
	}
	if enum, ok := n["enum"].([]any); ok && len(enum) > 0 {
		labels := make([]string, len(enum))
		for i, e := range enum {
			b, _ := json.Marshal(e)
			labels[i] = string(b)
		}
		return enum[g.choose(at, "enum", labels)]
	}
	if alts, ok := n["anyOf"].([]any); ok && len(alts) > 0 {
		type branch struct {
			node  any
			label string
		}
		var bs []branch
		for _, b := range alts {
			bm, _ := b.(map[string]any)
			if _, never := bm["not"]; never && len(bm) == 1 {
				continue // {"not": {}}: "absent", nothing to generate
			}
			bs = append(bs, branch{b, branchLabel(g.resolve(bm), bm)})
		}
		// The first branch that is not null is the default: null is an edge case.
		sort.SliceStable(bs, func(i, j int) bool { return !isNull(bs[i].node) && isNull(bs[j].node) })
		if len(bs) == 0 {
			return nil
		}
		branches, labels := make([]any, len(bs)), make([]string, len(bs))
		discriminated := 0
		for i, b := range bs {
			branches[i], labels[i] = g.withSiblings(n, b.node), b.label
			if g.hasConstProperty(b.node) {
				discriminated++
			}
		}
		before := len(g.points)
		alt := g.choose(at, "anyOf", labels)
		if len(g.points) > before && discriminated >= 2 {
			g.points[before].union = true
		}
		return g.value(branches[alt], at, depth+1)
	}
	typ := types(n)
	if len(typ) == 0 {
		if _, ok := n["properties"]; ok {
			typ = []string{"object"}
		} else {
			return map[string]any{"opaque": "value"} // x-opaque-json or {}: any JSON
		}
	}
	t := typ[0]
	if len(typ) > 1 {
		sort.SliceStable(typ, func(i, j int) bool { return typ[i] != "null" && typ[j] == "null" })
		t = typ[g.choose(at, "type", typ)]
	}
	switch t {
	case "null":
		return nil
	case "boolean":
		return g.choose(at, "boolean", []string{"true", "false"}) == 0
	case "integer", "number":
		return g.number(n, at, t == "integer")
	case "string":
		return g.str(n, at)
	case "array":
		minItems := intOf(n["minItems"], 0)
		labels := []string{"items"}
		if minItems == 0 {
			labels = append(labels, "empty")
		}
		if g.choose(at, "array", labels) == 1 {
			return []any{}
		}
		count := max(1, minItems)
		if mx := intOf(n["maxItems"], -1); mx >= 0 {
			count = min(count, mx)
		}
		out := make([]any, 0, count)
		for i := 0; i < count; i++ {
			out = append(out, g.value(n["items"], fmt.Sprintf("%s/%d", at, i), depth+1))
		}
		return out
	default:
		return g.object(n, at, depth)
	}
}

func (g *gen) object(n map[string]any, at string, depth int) any {
	out := map[string]any{}
	props, _ := n["properties"].(map[string]any)
	required := map[string]bool{}
	if rs, ok := n["required"].([]any); ok {
		for _, r := range rs {
			if s, ok := r.(string); ok {
				required[s] = true
			}
		}
	}
	keys := slices.Sorted(maps.Keys(props))
	for _, k := range keys {
		if !required[k] && !(g.all && depth < maxOptionalDepth) {
			continue
		}
		out[k] = g.value(props[k], at+"/"+escape(k), depth+1)
	}
	if _, typed := n["additionalProperties"].(map[string]any); g.extra && len(props) > 0 && !typed {
		// Not where other keys must match a schema of their own (a map beside named fields):
		// there a string would be a wrong value, not an unknown field.
		out[UnknownField] = UnknownValue
	}
	if len(props) == 0 {
		// A map: one entry (a non-ASCII key is an edge case), or none.
		if ap, ok := n["additionalProperties"].(map[string]any); ok {
			switch g.choose(at, "map", []string{"one entry", "empty", "non-ASCII key"}) {
			case 0:
				out["key1"] = g.value(ap, at+"/key1", depth+1)
			case 2:
				out[nonASCII] = g.value(ap, at+"/"+escape(nonASCII), depth+1)
			}
		}
	}
	return out
}

func (g *gen) number(n map[string]any, at string, integer bool) any {
	lo, hasLo := floatOf(n["minimum"])
	if x, ok := floatOf(n["exclusiveMinimum"]); ok {
		lo, hasLo = x+1, true
		if !integer {
			lo = x + 0.5
		}
	}
	hi, hasHi := floatOf(n["maximum"])
	if x, ok := floatOf(n["exclusiveMaximum"]); ok {
		hi, hasHi = x-1, true
		if !integer {
			hi = x - 0.5
		}
	}
	labels := []string{"value"}
	if hasLo {
		labels = append(labels, "minimum")
	}
	if hasHi {
		labels = append(labels, "maximum")
	}
	if !integer {
		labels = append(labels, "fraction")
	}
	var v float64
	switch labels[g.choose(at, "number", labels)] {
	case "minimum":
		v = lo
	case "maximum":
		v = hi
	case "fraction":
		v = 0.125
		if hasLo && v < lo {
			v = lo + 0.125
		}
	default:
		base, span := 1.0, 1000.0
		if hasLo {
			base = lo
		}
		if hasHi {
			span = math.Max(0, hi-base)
		}
		v = base + math.Floor(g.rng.Float64()*math.Min(span, 1000))
		if !integer {
			v += 0.5
			if hasHi && v > hi {
				v = hi
			}
		}
	}
	if integer {
		return int64(v)
	}
	return v
}

// str is a string for the schema node n, known to the transcript as one the harness generated:
// under a credential key (a provider's header map) it is a placeholder, not a secret to scrub
// from every other text (transcript.Generated).
func (g *gen) str(n map[string]any, at string) any {
	s := g.drawString(n, at)
	transcript.Generated(s)
	return s
}

func (g *gen) drawString(n map[string]any, at string) string {
	minLen, maxLen := intOf(n["minLength"], 0), intOf(n["maxLength"], -1)
	if p, ok := n["pattern"].(string); ok {
		// rapid does not know the length bounds: draw until a string fits (validation after
		// generation catches one that never does).
		var s string
		for i := 0; i < 32; i++ {
			s = rapid.StringMatching(p).Example(int(g.rng.Uint32()))
			if n := len([]rune(s)); n >= minLen && (maxLen < 0 || n <= maxLen) {
				break
			}
		}
		return s
	}
	switch n["format"] {
	case "date-time":
		if g.choose(at, "date-time", []string{"UTC", "offset with nanoseconds"}) == 1 {
			return "2026-07-08T09:10:11.123456789+02:00"
		}
		return fmt.Sprintf("2026-%02d-%02dT%02d:%02d:%02d.%03dZ", 1+g.rng.IntN(12), 1+g.rng.IntN(28), g.rng.IntN(24), g.rng.IntN(60), g.rng.IntN(60), g.rng.IntN(1000))
	case "uri":
		return fmt.Sprintf("https://example.invalid/p/%d?q=%d", g.rng.IntN(1000), g.rng.IntN(1000))
	case "uuid":
		b := make([]byte, 16)
		for i := range b {
			b[i] = byte(g.rng.UintN(256))
		}
		b[6], b[8] = b[6]&0x0f|0x40, b[8]&0x3f|0x80
		return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
	case "duration":
		return "PT1.5S"
	}
	labels := []string{"text", "non-ASCII"}
	if minLen == 0 {
		labels = append(labels, "empty")
	}
	var s string
	switch g.choose(at, "string", labels) {
	case 1:
		s = nonASCII
	case 2:
		return ""
	default:
		s = fmt.Sprintf("%s-%d", lastKey(at), g.rng.IntN(10000))
	}
	for len([]rune(s)) < minLen {
		s += "x"
	}
	if maxLen >= 0 && len([]rune(s)) > maxLen {
		s = string([]rune(s)[:maxLen])
	}
	return s
}

// withSiblings applies the keywords beside an anyOf to its branch: {"anyOf": [{"required":
// ["a"]}, …], "properties": …} and {"anyOf": [array, null], "minItems": 1} constrain every branch.
func (g *gen) withSiblings(parent map[string]any, branch any) any {
	base := map[string]any{}
	for k, v := range parent {
		switch k {
		case "anyOf", "description", "title", "x-opaque-json":
		default:
			base[k] = v
		}
	}
	if len(base) == 0 {
		return branch
	}
	bm, _ := branch.(map[string]any)
	for k, v := range g.resolve(bm) {
		if k == "required" {
			if r, ok := base["required"].([]any); ok {
				v = append(append([]any{}, r...), v.([]any)...)
			}
		}
		base[k] = v
	}
	return base
}

func lastKey(at string) string {
	k := at[strings.LastIndex(at, "/")+1:]
	if k == "" {
		return "v"
	}
	return unescape(k)
}

func types(n map[string]any) []string {
	switch t := n["type"].(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, x := range t {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// hasConstProperty says whether a union's branch is an object with a property of one constant
// value (a discriminator: "kind": "shell", "handled": true).
func (g *gen) hasConstProperty(branch any) bool {
	bm, _ := branch.(map[string]any)
	props, _ := g.resolve(bm)["properties"].(map[string]any)
	for _, p := range props {
		pm, _ := p.(map[string]any)
		if _, ok := g.resolve(pm)["const"]; ok {
			return true
		}
	}
	return false
}

func isNull(b any) bool {
	m, _ := b.(map[string]any)
	return m["type"] == "null"
}

func branchLabel(resolved, raw map[string]any) string {
	if ref, ok := raw["$ref"].(string); ok {
		return ref[strings.LastIndex(ref, "/")+1:]
	}
	if c, ok := resolved["const"]; ok {
		b, _ := json.Marshal(c)
		return string(b)
	}
	// An inline branch of a discriminated union is named by its discriminator: kind "shell".
	if props, ok := resolved["properties"].(map[string]any); ok {
		names := slices.Sorted(maps.Keys(props))
		for _, k := range names {
			if p, ok := props[k].(map[string]any); ok {
				if c, ok := p["const"]; ok {
					b, _ := json.Marshal(c)
					return k + " " + string(b)
				}
			}
		}
	}
	if t := types(resolved); len(t) > 0 {
		return strings.Join(t, "|")
	}
	return "branch"
}

func intOf(v any, def int) int {
	if f, ok := v.(float64); ok {
		return int(f)
	}
	return def
}

func floatOf(v any) (float64, bool) {
	f, ok := v.(float64)
	return f, ok
}
