// Package schemagen generates JSON values from the runtime's published schemas (api.schema.json,
// session-events.schema.json): for every method, params cases (only the required params, every
// optional param, and edge cases the schema allows) and a result (every field, or another Shape:
// only the required ones, nulls, unknown fields, each union alternative), all seeded by the method's name
// so that every run and every SDK gets the same values. Every value is checked with the schema
// validator (the library internal/schema uses, with format assertion on) before it is used; a
// value the walker cannot make valid is reported, never used.
//
// The walker over $ref, anyOf, enum, const, type lists, pattern, format and bounds is ours: no
// library walks a schema this way. Strings matching a pattern come from pgregory.net/rapid's
// regexp generator, seeded; everything else comes from math/rand/v2's PCG with the same seed.
package schemagen

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/copilot-sdk-conformance/conformance/internal/schema"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

var english = message.NewPrinter(language.English)

// The directions of the schema's groups: server and session methods are called by the SDK,
// clientSession and clientGlobal methods by the runtime.
var sdkToRuntime = map[string]bool{"server": true, "session": true}

// Method is one rpcMethod of api.schema.json.
type Method struct {
	Name         string // rpcMethod, e.g. "models.list", "session.model.switchTo"
	Group        string // the schema's top-level group: server, session, clientSession, clientGlobal
	Namespace    string // Group plus the method's namespace in it, e.g. "session.model"
	Internal     bool   // visibility: internal
	Notification bool
	FromSDK      bool // called by the SDK (server, session); else by the runtime
	ptr          string
	hasParams    bool
	hasResult    bool
}

// Case is one generated params object of a method.
type Case struct {
	Name   string         // "required", "all", or "edge <pointer> <what>[; <pointer> <what>…]"
	Params map[string]any // as the schema names them (a session method's sessionId included)
	Edges  []string       // an edge case's pointers, one per edge it takes
}

// Doc is the loaded api.schema.json with session-events.schema.json beside it (the first
// refers to the second), compiled once. It is safe for concurrent use.
type Doc struct {
	raw      map[string]map[string]any // file name -> document, every $ref made "file#pointer"
	base     string
	mu       sync.Mutex // guards compiler and compiled
	compiler *jsonschema.Compiler
	compiled map[string]*jsonschema.Schema
	hoisted  schema.Pointers // api.schema.json's method pointers, compiled from $defs (schema.Hoist)
	cases    sync.Map        // method name -> casesOf
	made     sync.Map        // madeKey -> *made: Result, Event and the shapes, generated once (once)
	Methods  []Method
	// EventTypes are the branches of session-events.schema.json's SessionEvent, sorted by type.
	EventTypes []EventType
}

// EventType is one branch of session-events.schema.json's SessionEvent.
type EventType struct {
	Type       string // e.g. "session.idle"
	Definition string // e.g. "SessionIdleEvent"
}

const (
	apiFile    = "api.schema.json"
	eventsFile = "session-events.schema.json"
)

// Load reads api.schema.json and session-events.schema.json from dir (the Node SDK's platform
// package's schemas folder).
func Load(dir string) (*Doc, error) {
	d := &Doc{raw: map[string]map[string]any{}, base: "https://copilot-runtime.invalid/gen/", compiled: map[string]*jsonschema.Schema{}}
	d.compiler = jsonschema.NewCompiler()
	d.compiler.AssertFormat()
	for _, f := range []string{apiFile, eventsFile} {
		path := filepath.Join(dir, f)
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		parsed, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if f == apiFile {
			d.hoisted = schema.Hoist(parsed)
		}
		if err := d.compiler.AddResource(d.base+f, parsed); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		var raw map[string]any
		if err := json.Unmarshal(b, &raw); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		absRefs(raw, f)
		d.raw[f] = raw
	}
	for _, g := range []string{"server", "session", "clientSession", "clientGlobal"} {
		d.collect(d.raw[apiFile][g], g, "/"+g)
	}
	sort.Slice(d.Methods, func(i, j int) bool { return d.Methods[i].Name < d.Methods[j].Name })
	if ev, ok := d.Node(eventsFile + "#/definitions/SessionEvent").(map[string]any); ok {
		branches, _ := ev["anyOf"].([]any)
		for _, b := range branches {
			bm, _ := b.(map[string]any)
			ref, _ := bm["$ref"].(string)
			def, _ := d.Node(ref).(map[string]any)
			props, _ := def["properties"].(map[string]any)
			typ, _ := props["type"].(map[string]any)
			if t, ok := typ["const"].(string); ok {
				d.EventTypes = append(d.EventTypes, EventType{Type: t, Definition: ref[strings.LastIndex(ref, "/")+1:]})
			}
		}
		sort.Slice(d.EventTypes, func(i, j int) bool { return d.EventTypes[i].Type < d.EventTypes[j].Type })
	}
	return d, nil
}

// absRefs rewrites every $ref of a document to "file#pointer", so that the walker can follow a
// reference from one file into the other and on inside it.
func absRefs(n any, file string) {
	switch n := n.(type) {
	case map[string]any:
		if ref, ok := n["$ref"].(string); ok && strings.HasPrefix(ref, "#") {
			n["$ref"] = file + ref
		}
		for _, v := range n {
			absRefs(v, file)
		}
	case []any:
		for _, v := range n {
			absRefs(v, file)
		}
	}
}

func (d *Doc) collect(node any, group, ptr string) {
	m, ok := node.(map[string]any)
	if !ok {
		return
	}
	if name, ok := m["rpcMethod"].(string); ok {
		ns := group
		if i := strings.LastIndex(name, "."); i > 0 {
			ns = group + "." + strings.TrimPrefix(name[:i], group+".")
		}
		notif, _ := m["notification"].(bool)
		d.Methods = append(d.Methods, Method{Name: name, Group: group, Namespace: ns, Internal: m["visibility"] == "internal",
			Notification: notif, FromSDK: sdkToRuntime[group], ptr: ptr, hasParams: m["params"] != nil, hasResult: m["result"] != nil})
		return
	}
	keys := slices.Sorted(maps.Keys(m))
	for _, k := range keys {
		d.collect(m[k], group, ptr+"/"+escape(k))
	}
}

// RuntimeMethods are the names of the methods the runtime calls on the SDK (clientSession,
// clientGlobal).
func (d *Doc) RuntimeMethods() []string {
	var out []string
	for _, m := range d.Methods {
		if !m.FromSDK {
			out = append(out, m.Name)
		}
	}
	return out
}

// Method finds a method by its rpcMethod name.
func (d *Doc) Method(name string) (Method, bool) {
	i := sort.Search(len(d.Methods), func(i int) bool { return d.Methods[i].Name >= name })
	if i < len(d.Methods) && d.Methods[i].Name == name {
		return d.Methods[i], true
	}
	return Method{}, false
}

// Node returns the schema node at "file#pointer", or at a pointer into api.schema.json.
func (d *Doc) Node(ref string) any {
	file, ptr, ok := strings.Cut(ref, "#")
	if !ok {
		file, ptr = apiFile, ref
	}
	var n any = d.raw[file]
	for _, p := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		if p == "" {
			continue
		}
		m, ok := n.(map[string]any)
		if !ok {
			return nil
		}
		n = m[unescape(p)]
	}
	return n
}

// Validate checks v against the schema at "file#pointer" (or a pointer into api.schema.json).
func (d *Doc) Validate(ref string, v any) error {
	s, err := d.compile(ref)
	if err != nil {
		return err
	}
	inst, err := instance(v)
	if err != nil {
		return err
	}
	if err := s.Validate(inst); err != nil {
		return errors.New(leaves(err))
	}
	return nil
}

// compile is the schema at "file#pointer" (or a pointer into api.schema.json), compiled once.
func (d *Doc) compile(ref string) (*jsonschema.Schema, error) {
	if !strings.Contains(ref, "#") {
		ref = apiFile + "#" + ref
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if s := d.compiled[ref]; s != nil {
		return s, nil
	}
	at := ref
	if ptr, ok := strings.CutPrefix(ref, apiFile+"#"); ok {
		at = apiFile + "#" + d.hoisted.Of(ptr)
	}
	s, err := d.compiler.Compile(d.base + at)
	if err != nil {
		return nil, err
	}
	d.compiled[ref] = s
	return s, nil
}

// instance is v as the validator decodes JSON (numbers as json.Number): v round-tripped.
func instance(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return jsonschema.UnmarshalJSON(bytes.NewReader(b))
}

// ValidateParams checks a method's params; ValidateResult its result.
func (d *Doc) ValidateParams(m Method, v any) error { return d.Validate(m.ptr+"/params", v) }
func (d *Doc) ValidateResult(m Method, v any) error { return d.Validate(m.ptr+"/result", v) }

// leaves is a validation error's leaf causes, "pointer: message; …", sorted: the validator
// walks an object's properties in map order, and a failure message must read the same in every
// run (shards, replays and diffs compare messages).
func leaves(err error) string { return strings.Join(leafList(err), "; ") }

// leafList is a validation error's leaf causes, sorted, each "pointer: message" once.
func leafList(err error) []string {
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return []string{err.Error()}
	}
	var out []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			out = append(out, "/"+strings.Join(e.InstanceLocation, "/")+": "+schema.Ordered(e.ErrorKind).LocalizedString(english))
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	sort.Strings(out)
	return slices.Compact(out)
}

// Cases generates a method's params cases: "required" (only what the schema requires), "all"
// (every optional param set), then edge cases that together take every other alternative of
// every choice the schema makes (another enum value or anyOf branch, null where nullable, an
// empty list or object, a bound, a non-ASCII or empty string, false), the choices found inside
// another alternative included. A case takes several edges at once where they do not interact
// (no edge's pointer lies inside another's, and the alternatives that reveal a nested choice
// agree), so the number of cases grows with the largest number of alternatives of one choice
// and the nesting, not with the number of members. A packed case that does not validate is
// split into its edges, each tried alone; an edge that does not validate alone is left out and
// named in the second result. A method whose params are null has one case, "required", with
// nil params. The third result says how many choices got every alternative.
func (d *Doc) Cases(m Method) ([]Case, []string, Coverage) {
	ptr := m.ptr + "/params"
	if !m.hasParams || d.Node(ptr) == nil {
		return []Case{{Name: "required"}}, nil, Coverage{}
	}
	var out []Case
	var dropped []string
	build := func(name string, g *gen) (map[string]any, error) {
		v := g.value(d.Node(ptr), "", 0)
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: params are not an object (%T)", name, v)
		}
		if err := d.Validate(ptr, obj); err != nil {
			return nil, fmt.Errorf("%s: %s", name, err)
		}
		return obj, nil
	}
	add := func(name string, g *gen) bool {
		obj, err := build(name, g)
		if err != nil {
			dropped = append(dropped, err.Error())
			return false
		}
		out = append(out, Case{Name: name, Params: obj})
		return true
	}
	add("required", d.newGen(m.Name+"/required", false))
	all := d.newGen(m.Name+"/all", true)
	cov := newCoverage()
	var pending []edge
	if add("all", all) {
		pending = cov.discover(all, nil)
	}
	for len(pending) > 0 {
		chosen, override, rest := pack(pending)
		pending = rest
		g := d.newGen(m.Name+"/all", true)
		g.override = override
		labels := make([]string, len(chosen))
		for i, e := range chosen {
			labels[i] = orRoot(e.p.at) + " " + e.p.label(e.alt)
		}
		// A case's name shows its first edges (each failure names the pointer it is about).
		name := "edge " + strings.Join(labels[:min(len(labels), 3)], "; ")
		if len(labels) > 3 {
			name += fmt.Sprintf("; and %d more", len(labels)-3)
		}
		obj, err := build(name, g)
		if err != nil {
			if len(chosen) == 1 {
				dropped = append(dropped, err.Error())
				continue
			}
			// Split: each edge again, alone (solo never packs).
			for i := range chosen {
				chosen[i].solo = true
			}
			pending = append(chosen, pending...)
			continue
		}
		var edges []string
		var missed []edge
		for _, e := range chosen {
			if g.taken[e.key()] != e.alt {
				missed = append(missed, e) // another edge of the case hid it: again, alone
				continue
			}
			cov.took(e.key(), e.alt)
			edges = append(edges, orRoot(e.p.at))
		}
		for i := range missed {
			if missed[i].solo {
				dropped = append(dropped, fmt.Sprintf("edge %s %s: not reached", orRoot(missed[i].p.at), missed[i].p.label(missed[i].alt)))
				continue
			}
			missed[i].solo = true
			pending = append(pending, missed[i])
		}
		if len(edges) == 0 {
			continue
		}
		out = append(out, Case{Name: name, Params: obj, Edges: edges})
		pending = append(pending, cov.discover(g, override)...)
	}
	return out, dropped, cov.result()
}

// edge is one alternative of one choice, with the alternatives above it that reveal the choice
// (none for a choice of the every-field value).
type edge struct {
	p    point
	alt  int
	base map[string]int
	solo bool // tried alone: packed with others it did not validate or was hidden
}

func (e edge) key() string { return e.p.at + "#" + e.p.kind }

// atOf is the instance pointer of an override key ("pointer#kind").
func atOf(key string) string { return key[:strings.LastIndex(key, "#")] }

// related says whether one instance pointer lies inside the other (or is it): a choice at one
// changes what is generated at the other.
func related(a, b string) bool {
	return a == b || strings.HasPrefix(a, b+"/") || strings.HasPrefix(b, a+"/")
}

// pack takes from pending, in order, the edges that can share one case: an edge joins unless a
// choice the case already makes lies on its path (other than the same alternatives revealing
// it). A solo edge takes a case of its own.
func pack(pending []edge) (chosen []edge, override map[string]int, rest []edge) {
	override = map[string]int{}
	for _, e := range pending {
		own := maps.Clone(e.base)
		if own == nil {
			own = map[string]int{}
		}
		own[e.key()] = e.alt
		fits := !(e.solo && len(chosen) > 0) && !(len(chosen) > 0 && chosen[0].solo)
		for k, v := range own {
			if !fits {
				break
			}
			if ov, ok := override[k]; ok {
				fits = ov == v
				continue
			}
			for ko := range override {
				if _, mine := own[ko]; !mine && related(atOf(k), atOf(ko)) {
					fits = false
					break
				}
			}
		}
		if !fits {
			rest = append(rest, e)
			continue
		}
		chosen = append(chosen, e)
		maps.Copy(override, own)
	}
	return chosen, override, rest
}

// Coverage is how many of a method's params choices (a member's enum, anyOf branch, null,
// empty list or object, bound, string form, boolean) got every alternative in some case.
type Coverage struct {
	Members, Covered int
	Missing          []string // the choices that did not, "pointer kind"
}

type coverage struct {
	n     map[string]int          // choice key -> its number of alternatives
	label map[string]string       // choice key -> "pointer kind"
	seen  map[string]map[int]bool // choice key -> the alternatives some case took
}

func newCoverage() *coverage {
	return &coverage{n: map[string]int{}, label: map[string]string{}, seen: map[string]map[int]bool{}}
}

func (c *coverage) took(key string, alt int) {
	if c.seen[key] == nil {
		c.seen[key] = map[int]bool{}
	}
	c.seen[key][alt] = true
}

// discover records the choices a generated case met that no case met before (their default
// alternative taken there), and returns their other alternatives as edges, each with the
// overrides of the case on its path (what reveals it).
func (c *coverage) discover(g *gen, override map[string]int) []edge {
	var out []edge
	for _, p := range g.points {
		key := p.at + "#" + p.kind
		if _, known := c.n[key]; known {
			continue
		}
		c.n[key], c.label[key] = p.n, orRoot(p.at)+" "+p.kind
		c.took(key, g.taken[key])
		var base map[string]int
		for k, v := range override {
			if k != key && related(atOf(k), p.at) && len(atOf(k)) <= len(p.at) {
				if base == nil {
					base = map[string]int{}
				}
				base[k] = v
			}
		}
		for alt := 1; alt < p.n; alt++ {
			if alt != g.taken[key] {
				out = append(out, edge{p: p, alt: alt, base: base})
			}
		}
	}
	return out
}

func (c *coverage) result() Coverage {
	var r Coverage
	keys := slices.Sorted(maps.Keys(c.n))
	for _, k := range keys {
		r.Members++
		if len(c.seen[k]) >= c.n[k] {
			r.Covered++
		} else {
			r.Missing = append(r.Missing, c.label[k])
		}
	}
	return r
}

type casesOf struct {
	once     sync.Once
	cases    []Case
	dropped  []string
	coverage Coverage
}

// CasesOnce is Cases, generated once per Doc and method (every SDK of a run shares them).
func (d *Doc) CasesOnce(m Method) ([]Case, []string) {
	c := d.casesOf(m)
	return c.cases, c.dropped
}

// EdgeCoverage is the coverage of the method's edge cases (Cases), generated once as CasesOnce.
func (d *Doc) EdgeCoverage(m Method) Coverage { return d.casesOf(m).coverage }

func (d *Doc) casesOf(m Method) *casesOf {
	v, _ := d.cases.LoadOrStore(m.Name, &casesOf{})
	c := v.(*casesOf)
	c.once.Do(func() { c.cases, c.dropped, c.coverage = d.Cases(m) })
	return c
}

// madeKey names one generated value (or set of shapes) of a Doc.
type madeKey struct {
	what, ptr, seed string
	all             bool
}

type made struct {
	once    sync.Once
	shaped  []Shaped
	dropped []string
	err     error
}

// once generates what key names the first time it is asked for and gives every caller a copy of
// its own: each SDK of a run asks for the same results, events and shapes, and generating and
// validating them again for each was a tenth of the harness's CPU in a whole run. Generation is
// deterministic in the seed, so the values are those a fresh generation gives.
func (d *Doc) once(key madeKey, gen func() ([]Shaped, []string, error)) ([]Shaped, []string, error) {
	v, _ := d.made.LoadOrStore(key, &made{})
	m := v.(*made)
	m.once.Do(func() { m.shaped, m.dropped, m.err = gen() })
	out := make([]Shaped, len(m.shaped))
	for i, sh := range m.shaped {
		out[i] = Shaped{Name: sh.Name, Value: deepCopy(sh.Value)}
	}
	return out, slices.Clone(m.dropped), m.err
}

// deepCopy copies the objects and lists of a generated value (its leaves are immutable).
func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = deepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = deepCopy(e)
		}
		return out
	}
	return v
}

// Result generates a method's result (nil for a null result), seeded by the method's name.
func (d *Doc) Result(m Method) (any, error) {
	out, _, err := d.once(madeKey{what: "result", ptr: m.ptr}, func() ([]Shaped, []string, error) {
		v, err := d.result(m)
		return []Shaped{{Value: v}}, nil, err
	})
	if err != nil {
		return nil, err
	}
	return out[0].Value, nil
}

func (d *Doc) result(m Method) (any, error) {
	ptr := m.ptr + "/result"
	if !m.hasResult || d.Node(ptr) == nil {
		return nil, nil
	}
	v := d.newGen(m.Name+"/result", true).value(d.Node(ptr), "", 0)
	if err := d.Validate(ptr, v); err != nil {
		return nil, fmt.Errorf("generated result of %s does not validate: %s", m.Name, err)
	}
	return v, nil
}

// Event generates a whole session event of type et (id, timestamp, parentId, type, data), every
// optional field set when all is true, seeded by seed.
func (d *Doc) Event(et EventType, seed string, all bool) (map[string]any, error) {
	out, _, err := d.once(madeKey{what: "event", ptr: et.Definition, seed: seed, all: all}, func() ([]Shaped, []string, error) {
		v, err := d.event(et, seed, all)
		return []Shaped{{Value: v}}, nil, err
	})
	if err != nil {
		return nil, err
	}
	v, _ := out[0].Value.(map[string]any)
	return v, nil
}

func (d *Doc) event(et EventType, seed string, all bool) (map[string]any, error) {
	ptr := eventsFile + "#/definitions/" + escape(et.Definition)
	v, _ := d.newGen(seed, all).value(d.Node(ptr), "", 0).(map[string]any)
	if err := d.Validate(ptr, v); err != nil {
		return nil, fmt.Errorf("generated %s event does not validate: %s", et.Type, err)
	}
	return v, nil
}

// Shape is how a generated value fills its schema.
type Shape string

const (
	EveryField   Shape = "every"    // every optional property set (what Result and Event give)
	RequiredOnly Shape = "required" // only the required properties
	Nulls        Shape = "nulls"    // every property set, null wherever the schema allows it
	Unknown      Shape = "unknown"  // every property set, and UnknownField in every object the schema describes
	Unions       Shape = "unions"   // one value per alternative of every discriminated union met
)

// UnknownField is the key the schema does not know (Shape Unknown), as a newer runtime would
// send one; UnknownValue its value.
const (
	UnknownField = "conformanceUnknownField"
	UnknownValue = "from a newer runtime"
)

// MaxUnionCases bounds the cases of Shape Unions per value (a union inside a union's branch is
// reached too, breadth first).
const MaxUnionCases = 64

// Shaped is one generated value of a Shape: Name says which ("nulls", "union /request
// PermissionRequestShell").
type Shaped struct {
	Name  string
	Value any
}

// ResultShapes generates a method's result in shape s, seeded as Result is. A shape that gives
// the same value as EveryField (a result without optional or nullable fields, without unions)
// gives no case, and neither does a null (void) result: there is nothing more to judge. The
// second result names the values left out because they do not validate.
func (d *Doc) ResultShapes(m Method, s Shape) ([]Shaped, []string) {
	ptr := m.ptr + "/result"
	if !m.hasResult || d.Node(ptr) == nil {
		return nil, nil
	}
	return d.shapes(ptr, m.Name+"/result", s)
}

// EventShapes generates whole session events of type et in shape s (as Event does for
// EveryField and RequiredOnly), seeded by seed.
func (d *Doc) EventShapes(et EventType, seed string, s Shape) ([]Shaped, []string) {
	return d.shapes(eventsFile+"#/definitions/"+escape(et.Definition), seed, s)
}

func (d *Doc) shapes(ptr, seed string, s Shape) ([]Shaped, []string) {
	out, dropped, _ := d.once(madeKey{what: "shapes " + string(s), ptr: ptr, seed: seed}, func() ([]Shaped, []string, error) {
		out, dropped := d.makeShapes(ptr, seed, s)
		return out, dropped, nil
	})
	return out, dropped
}

func (d *Doc) makeShapes(ptr, seed string, s Shape) ([]Shaped, []string) {
	node := d.Node(ptr)
	every := d.newGen(seed, true).value(node, "", 0)
	one := func(name string, g *gen, twin *gen) ([]Shaped, []string) {
		v := g.value(node, "", 0)
		check := v
		if twin != nil { // the schema may forbid unknown keys: the value without them must validate
			check = twin.value(node, "", 0)
		}
		if err := d.Validate(ptr, check); err != nil {
			return nil, []string{fmt.Sprintf("%s: %s", name, err)}
		}
		if s != EveryField && reflect.DeepEqual(v, every) {
			return nil, nil
		}
		return []Shaped{{Name: name, Value: v}}, nil
	}
	switch s {
	case EveryField:
		return one("every", d.newGen(seed, true), nil)
	case RequiredOnly:
		return one("required", d.newGen(seed, false), nil)
	case Nulls:
		g := d.newGen(seed, true)
		g.nulls = true
		return one("nulls", g, nil)
	case Unknown:
		g := d.newGen(seed, true)
		g.extra = true
		return one("unknown", g, d.newGen(seed, true))
	case Unions:
		return d.unionShapes(ptr, seed)
	}
	return nil, []string{fmt.Sprintf("no shape %q", s)}
}

// unionShapes takes every other alternative of each discriminated union the every-field value
// meets, one at a time, then the unions met inside those alternatives (their override kept),
// breadth first, up to MaxUnionCases.
func (d *Doc) unionShapes(ptr, seed string) ([]Shaped, []string) {
	node := d.Node(ptr)
	type pending struct {
		p        point
		override map[string]int
	}
	var queue []pending
	seen := map[string]bool{}
	enqueue := func(g *gen, override map[string]int) {
		for _, p := range g.points {
			key := p.at + "#" + strings.Join(p.labels, "|")
			if p.union && !seen[key] {
				seen[key] = true
				queue = append(queue, pending{p, override})
			}
		}
	}
	g := d.newGen(seed, true)
	g.value(node, "", 0)
	enqueue(g, nil)
	var out []Shaped
	var dropped []string
	for len(queue) > 0 && len(out) < MaxUnionCases {
		q := queue[0]
		queue = queue[1:]
		for alt := 1; alt < q.p.n && len(out) < MaxUnionCases; alt++ {
			o := maps.Clone(q.override)
			if o == nil {
				o = map[string]int{}
			}
			o[q.p.at+"#"+q.p.kind] = alt
			g := d.newGen(seed, true)
			g.override = o
			v := g.value(node, "", 0)
			name := fmt.Sprintf("union %s %s", orRoot(q.p.at), q.p.labels[alt])
			if err := d.Validate(ptr, v); err != nil {
				dropped = append(dropped, fmt.Sprintf("%s: %s", name, err))
				continue
			}
			out = append(out, Shaped{Name: name, Value: v})
			enqueue(g, o)
		}
	}
	return out, dropped
}

func orRoot(p string) string {
	if p == "" {
		return "/"
	}
	return p
}

func seedOf(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

func escape(k string) string { return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1") }
func unescape(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~1", "/"), "~0", "~")
}

// Definition generates a value of api.schema.json's definition name (every optional property
// set when all is true, else only the required ones), seeded by the name so every SDK gets the
// same value; ok is false when the schema has no such definition or its value is not an
// object that validates.
func (d *Doc) Definition(name string, all bool) (map[string]any, bool) {
	ptr := "/definitions/" + escape(name)
	n, isObj := d.Node(ptr).(map[string]any)
	if !isObj {
		return nil, false
	}
	v, isMap := d.newGen("definition "+name, all).value(n, "", 0).(map[string]any)
	if !isMap || d.Validate(ptr, v) != nil {
		return nil, false
	}
	return v, true
}

// Properties are the property names of the schema's definition name (its $ref followed), sorted;
// nil when the schema defines no such object. The surface sweep reads the options a session
// opens with from definitions.SessionOpenOptions this way, never from a list of its own.
func (d *Doc) Properties(name string) []string {
	n, _ := d.Node("/definitions/" + escape(name)).(map[string]any)
	n = (&gen{d: d}).resolve(n)
	props, _ := n["properties"].(map[string]any)
	if len(props) == 0 {
		return nil
	}
	return slices.Sorted(maps.Keys(props))
}

// RequiredParams are the param names a method's params schema requires (its $ref followed).
func (d *Doc) RequiredParams(m Method) []string {
	if !m.hasParams {
		return nil
	}
	n, _ := d.Node(m.ptr + "/params").(map[string]any)
	n = (&gen{d: d}).resolve(n)
	var out []string
	req, _ := n["required"].([]any)
	for _, r := range req {
		if s, ok := r.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// Exchange is a request the runtime hands the SDK in frames rather than in one call: a
// runtime-to-SDK start and chunk method keyed by requestId, answered by SDK-to-runtime response
// start and chunk methods of the same namespace (llmInference's HTTP requests). An SDK serves it
// with one request handler, not a handler per method.
type Exchange struct {
	Start, Chunk         Method
	RespStart, RespChunk string
}

// Exchange finds the schema's exchange by that shape; ok is false when it has none.
func (d *Doc) Exchange() (x Exchange, ok bool) {
	ns := func(name string) string { return name[:max(strings.LastIndex(name, "."), 0)] }
	byNS := map[string][]Method{}
	for _, m := range d.Methods {
		if slices.Contains(d.RequiredParams(m), "requestId") {
			byNS[ns(m.Name)] = append(byNS[ns(m.Name)], m)
		}
	}
	spaces := slices.Sorted(maps.Keys(byNS))
	for _, space := range spaces {
		x = Exchange{}
		for _, m := range byNS[space] {
			last := strings.ToLower(m.Name[len(space)+1:])
			switch {
			case !m.FromSDK && strings.HasSuffix(last, "requeststart"):
				x.Start = m
			case !m.FromSDK && strings.HasSuffix(last, "requestchunk"):
				x.Chunk = m
			case m.FromSDK && strings.HasSuffix(last, "responsestart"):
				x.RespStart = m.Name
			case m.FromSDK && strings.HasSuffix(last, "responsechunk"):
				x.RespChunk = m.Name
			}
		}
		if x.Start.Name != "" && x.Chunk.Name != "" && x.RespStart != "" && x.RespChunk != "" {
			return x, true
		}
	}
	return Exchange{}, false
}

// IsExchange says whether a runtime-to-SDK method is one of the exchange's (served by a request
// handler).
func (d *Doc) IsExchange(name string) bool {
	x, ok := d.Exchange()
	return ok && (name == x.Start.Name || name == x.Chunk.Name)
}

// Nullable says whether the schema lets the member at path inside definition name be null: each
// segment is a property (matched by match, the caller's spelling of names) of the node reached
// so far, looked for through $ref, anyOf / oneOf / allOf alternatives, list items and map
// values. known is false when the schema does not define the path (then nothing is said).
func (d *Doc) Nullable(name string, path []string, match func(prop, segment string) bool) (nullable, known bool) {
	g := &gen{d: d}
	n, _ := d.Node("/definitions/" + escape(name)).(map[string]any)
	for _, seg := range path {
		if n = g.member(n, seg, match, 0); n == nil {
			return false, false
		}
	}
	return g.nullable(n, 0), true
}

// member is the schema node of property seg of node n (see Nullable), or nil.
func (g *gen) member(n map[string]any, seg string, match func(string, string) bool, depth int) map[string]any {
	if n == nil || depth > 8 {
		return nil
	}
	n = g.resolve(n)
	if props, ok := n["properties"].(map[string]any); ok {
		keys := slices.Sorted(maps.Keys(props))
		for _, k := range keys {
			if p, ok := props[k].(map[string]any); ok && match(k, seg) {
				return p
			}
		}
	}
	var inner []any
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		if alts, ok := n[k].([]any); ok {
			inner = append(inner, alts...)
		}
	}
	inner = append(inner, n["items"], n["additionalProperties"])
	for _, x := range inner {
		if m, ok := x.(map[string]any); ok {
			if p := g.member(m, seg, match, depth+1); p != nil {
				return p
			}
		}
	}
	return nil
}

// nullable says whether node n admits null.
func (g *gen) nullable(n map[string]any, depth int) bool {
	if n == nil || depth > 8 {
		return false
	}
	n = g.resolve(n)
	switch t := n["type"].(type) {
	case string:
		if t == "null" {
			return true
		}
	case []any:
		for _, x := range t {
			if x == "null" {
				return true
			}
		}
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		alts, _ := n[k].([]any)
		for _, a := range alts {
			if m, ok := a.(map[string]any); ok && g.nullable(m, depth+1) {
				return true
			}
		}
	}
	return false
}
