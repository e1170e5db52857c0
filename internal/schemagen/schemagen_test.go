package schemagen

import (
	"encoding/json"
	"maps"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEverySchema runs over the runtime's real schemas when CONFORMANCE_SCHEMA_DIR names the
// prepared Node SDK's schemas folder, else over the small schemas in testdata: every case and
// result validates, and generating twice gives the same values.
func TestEverySchema(t *testing.T) {
	dir := os.Getenv("CONFORMANCE_SCHEMA_DIR")
	if dir == "" {
		dir = "testdata"
	}
	d, err := Load(dir)
	require.NoError(t, err)
	require.NotEmpty(t, d.Methods)
	for _, m := range d.Methods {
		cases, dropped, cov := d.Cases(m)
		again, _, _ := d.Cases(m)
		a, _ := json.Marshal(cases)
		b, _ := json.Marshal(again)
		assert.Equal(t, string(a), string(b), m.Name)
		assert.Empty(t, dropped, m.Name)
		assert.Empty(t, cov.Missing, "%s: every alternative of every choice in some case", m.Name)
		assert.Equal(t, cov.Members, cov.Covered, m.Name)
		for _, c := range cases {
			if c.Params != nil {
				assert.NoError(t, d.ValidateParams(m, c.Params), "%s %s", m.Name, c.Name)
			}
		}
		_, err := d.Result(m)
		assert.NoError(t, err, m.Name)
		for _, s := range []Shape{RequiredOnly, Nulls, Unknown, Unions} {
			_, dropped := d.ResultShapes(m, s)
			assert.Empty(t, dropped, "%s %s", m.Name, s)
		}
	}
	for _, et := range d.EventTypes {
		for _, all := range []bool{false, true} {
			_, err := d.Event(et, et.Type, all)
			assert.NoError(t, err, et.Type)
		}
		for _, s := range []Shape{Nulls, Unknown, Unions} {
			_, dropped := d.EventShapes(et, et.Type, s)
			assert.Empty(t, dropped, "%s %s", et.Type, s)
		}
	}
}

func TestCases(t *testing.T) {
	d, err := Load("testdata")
	require.NoError(t, err)
	names := func(cs []Case) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.Name)
		}
		return out
	}
	tests := []struct {
		method string
		check  func(t *testing.T, cs []Case)
	}{
		{"models.list", func(t *testing.T, cs []Case) {
			// The anyOf beside properties constrains the required-only case too.
			assert.Contains(t, cs[0].Params, "selectionId")
			assert.NotContains(t, cs[0].Params, "kind")
			assert.Contains(t, cs[1].Params, "kind")
			var kinds []any
			for _, c := range cs {
				if strings.Contains(c.Name, "/kind enum") {
					kinds = append(kinds, c.Params["kind"])
				}
			}
			assert.ElementsMatch(t, []any{"embedding", "completion"}, kinds, names(cs))
		}},
		{"session.model.setAllowed", func(t *testing.T, cs []Case) {
			var null bool
			for _, c := range cs {
				if v, ok := c.Params["allowed"]; ok && v == nil {
					null = true
				}
				if l, ok := c.Params["allowed"].([]any); ok {
					assert.NotEmpty(t, l, "minItems beside the anyOf applies to the array branch")
				}
			}
			assert.True(t, null, "an explicit null where the schema allows it: %v", names(cs))
		}},
		{"session.log.read", func(t *testing.T, cs []Case) {
			all := cs[1].Params
			assert.Regexp(t, `^[^/]+/[^/]+$`, all["repo"])
			assert.LessOrEqual(t, len([]rune(all["repo"].(string))), 20)
			assert.Regexp(t, `^[0-9a-f]{8}-[0-9a-f]{4}-4`, all["id"])
			assert.Regexp(t, `^https://`, all["link"])
			var bounds []any
			for _, c := range cs {
				if strings.Contains(c.Name, "/max number") {
					bounds = append(bounds, c.Params["max"])
				}
			}
			assert.ElementsMatch(t, []any{int64(1), int64(50)}, bounds, names(cs))
		}},
		{"models.builtIn", func(t *testing.T, cs []Case) {
			require.Len(t, cs, 1)
			assert.Nil(t, cs[0].Params)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.method, func(t *testing.T) {
			m, ok := d.Method(tt.method)
			require.True(t, ok)
			cs, dropped, _ := d.Cases(m)
			require.Empty(t, dropped)
			require.GreaterOrEqual(t, len(cs), 1)
			tt.check(t, cs)
		})
	}
}

func TestMethodsAndEvents(t *testing.T) {
	d, err := Load("testdata")
	require.NoError(t, err)
	m, _ := d.Method("connect")
	assert.True(t, m.Internal)
	m, _ = d.Method("sessionFs.readFile")
	assert.False(t, m.FromSDK)
	assert.Equal(t, "clientSession", m.Group)
	m, _ = d.Method("session.model.setAllowed")
	assert.Equal(t, "session.model", m.Namespace)
	assert.Equal(t, []EventType{{"abort", "AbortEvent"}, {"session.idle", "IdleEvent"}}, d.EventTypes)
	// A result refers into session-events.schema.json, and on inside it.
	r, err := d.Result(func() Method { m, _ := d.Method("session.log.read"); return m }())
	require.NoError(t, err)
	assert.Contains(t, r, "events")
}

// Each shape of a result is what its name says, validates, and the union shape reaches every
// discriminator value, booleans and the union inside a union's branch included.
func TestResultShapes(t *testing.T) {
	d, err := Load("testdata")
	require.NoError(t, err)
	method := func(name string) Method { m, ok := d.Method(name); require.True(t, ok, name); return m }
	list, enqueue := method("models.list"), method("session.queue.enqueue")
	tests := []struct {
		name  string
		m     Method
		shape Shape
		check func(t *testing.T, cs []Shaped)
	}{
		{"required only: no optional field", list, RequiredOnly, func(t *testing.T, cs []Shaped) {
			require.Len(t, cs, 1)
			v := cs[0].Value.(map[string]any)
			assert.NotContains(t, v, "labels")
			for _, m := range v["models"].([]any) {
				assert.Equal(t, []string{"id"}, slices.Sorted(maps.Keys(m.(map[string]any))))
			}
		}},
		{"nulls: null wherever nullable, every other field set", list, Nulls, func(t *testing.T, cs []Shaped) {
			require.Len(t, cs, 1)
			m := cs[0].Value.(map[string]any)["models"].([]any)[0].(map[string]any)
			assert.Contains(t, m, "price")
			assert.Nil(t, m["price"])
			assert.Equal(t, "enabled", m["policy"])
		}},
		{"unknown: the unknown field in every object the schema describes, not in a map", list, Unknown, func(t *testing.T, cs []Shaped) {
			require.Len(t, cs, 1)
			v := cs[0].Value.(map[string]any)
			assert.Equal(t, UnknownValue, v[UnknownField])
			assert.Equal(t, UnknownValue, v["models"].([]any)[0].(map[string]any)[UnknownField])
			assert.NotContains(t, v["labels"], UnknownField)
		}},
		{"unions: every discriminator value, a boolean one and one nested in a branch", enqueue, Unions, func(t *testing.T, cs []Shaped) {
			var handled []any
			var kinds []any
			for _, c := range cs {
				v := c.Value.(map[string]any)
				handled = append(handled, v["handled"])
				if r, ok := v["reason"].(map[string]any); ok {
					kinds = append(kinds, r["kind"])
				}
			}
			assert.Equal(t, []any{false, false}, handled, "the default (every field) case has handled true")
			assert.Equal(t, []any{"busy", "closed"}, kinds)
		}},
		{"unions: none where the result has no union", list, Unions, func(t *testing.T, cs []Shaped) { assert.Empty(t, cs) }},
		{"nulls: none where nothing is nullable (the every-field value again)", enqueue, Nulls, func(t *testing.T, cs []Shaped) { assert.Empty(t, cs) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs, dropped := d.ResultShapes(tt.m, tt.shape)
			require.Empty(t, dropped)
			for _, c := range cs {
				if tt.shape != Unknown {
					assert.NoError(t, d.ValidateResult(tt.m, c.Value), c.Name)
				}
			}
			tt.check(t, cs)
			again, _ := d.ResultShapes(tt.m, tt.shape)
			assert.Equal(t, cs, again, "seeded: the same values every time")
		})
	}
	every, err := d.Result(enqueue)
	require.NoError(t, err)
	assert.Equal(t, true, every.(map[string]any)["handled"])
}

// Every alternative of every choice of every method's params (the choices of the every-field
// value and those found inside another alternative) is taken by some case: the value a case has
// at the choice's pointer is the one a generator told to take that alternative alone gives
// there. Fewer cases than edges: edges that do not interact share a case.
func TestEveryEdgeCovered(t *testing.T) {
	d, err := Load("testdata")
	require.NoError(t, err)
	packed := false
	for _, m := range d.Methods {
		cases, dropped, cov := d.Cases(m)
		require.Empty(t, dropped, m.Name)
		if !m.hasParams || d.Node(m.ptr+"/params") == nil {
			continue
		}
		all := d.newGen(m.Name+"/all", true)
		all.value(d.Node(m.ptr+"/params"), "", 0)
		edges := 0
		for _, p := range all.points {
			for alt := 1; alt < p.n; alt++ {
				edges++
				g := d.newGen(m.Name+"/all", true)
				g.override = map[string]int{p.at + "#" + p.kind: alt}
				want := at(g.value(d.Node(m.ptr+"/params"), "", 0), p.at)
				found := false
				for _, c := range cases {
					if reflect.DeepEqual(at(any(c.Params), p.at), want) && slices.Contains(c.Edges, orRoot(p.at)) {
						found = true
					}
				}
				assert.True(t, found, "%s: no case takes %s %s", m.Name, orRoot(p.at), p.label(alt))
			}
		}
		assert.Equal(t, cov.Members, cov.Covered, "%s: %v", m.Name, cov.Missing)
		if edges > 2 && len(cases)-2 < edges {
			packed = true
		}
	}
	assert.True(t, packed, "some method's edges share cases")
}

// at is the value at an instance pointer of v (nil when there is none).
func at(v any, ptr string) any {
	for _, seg := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		if seg == "" {
			continue
		}
		switch x := v.(type) {
		case map[string]any:
			v = x[unescape(seg)]
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// TestGeneratedOnceCopiedEach: Result, Event and the shapes are generated once per Doc, equal
// to a fresh generation, and each caller may change its copy without changing another's.
func TestGeneratedOnceCopiedEach(t *testing.T) {
	d, err := Load("testdata")
	require.NoError(t, err)
	m, ok := d.Method("models.list")
	require.True(t, ok)
	require.NotEmpty(t, d.EventTypes)
	et := d.EventTypes[0]
	for _, c := range []struct {
		name  string
		get   func() any
		fresh func() any
	}{
		{"result", func() any { v, _ := d.Result(m); return v }, func() any { v, _ := d.result(m); return v }},
		{"event", func() any { v, _ := d.Event(et, "seed", true); return v }, func() any { v, _ := d.event(et, "seed", true); return v }},
		{"shapes", func() any { v, _ := d.ResultShapes(m, Nulls); return v[0].Value },
			func() any { v, _ := d.makeShapes(m.ptr+"/result", m.Name+"/result", Nulls); return v[0].Value }},
	} {
		t.Run(c.name, func(t *testing.T) {
			first := c.get()
			require.Equal(t, c.fresh(), first)
			first.(map[string]any)["changed"] = true
			assert.Equal(t, c.fresh(), c.get(), "a caller's change reaches no other caller")
		})
	}
}
