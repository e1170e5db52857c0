package schemagen

import (
	"encoding/json"
	"os"
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
		cases, dropped := d.Cases(m, MaxEdges)
		again, _ := d.Cases(m, MaxEdges)
		a, _ := json.Marshal(cases)
		b, _ := json.Marshal(again)
		assert.Equal(t, string(a), string(b), m.Name)
		assert.Empty(t, dropped, m.Name)
		for _, c := range cases {
			if c.Params != nil {
				assert.NoError(t, d.ValidateParams(m, c.Params), "%s %s", m.Name, c.Name)
			}
		}
		_, err := d.Result(m)
		assert.NoError(t, err, m.Name)
	}
	for _, et := range d.EventTypes {
		for _, all := range []bool{false, true} {
			_, err := d.Event(et, et.Type, all)
			assert.NoError(t, err, et.Type)
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
			cs, dropped := d.Cases(m, 20)
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
