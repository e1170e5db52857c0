package surface

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// nestedEntries: custom agents holding MCP servers, as an SDK declares them.
var nestedEntries = []Entry{
	{Owner: "sessionConfig", Name: "customAgents", Kind: "field", Shape: "array", Optional: true, Type: "CustomAgentConfig[]"},
	{Owner: "customAgent", Name: "name", Kind: "field", Shape: "string", DeclaredBy: "CustomAgentConfig"},
	{Owner: "customAgent", Name: "tools", Kind: "field", Shape: "string[]", Optional: true, Type: "string[]", DeclaredBy: "CustomAgentConfig"},
	{Owner: "customAgent", Name: "description", Kind: "field", Shape: "string", Optional: true, Type: "string | null", DeclaredBy: "CustomAgentConfig"},
	{Owner: "customAgent", Name: "mcpServers", Kind: "field", Shape: "map", Optional: true, Type: "Record<string, MCPServerConfig>", DeclaredBy: "CustomAgentConfig"},
	{Owner: "mcpServer", Name: "command", Kind: "field", Shape: "string", DeclaredBy: "MCPServerConfig"},
	{Owner: "mcpServer", Name: "args", Kind: "field", Shape: "string[]", Optional: true, Type: "string[]", DeclaredBy: "MCPServerConfig"},
	{Owner: "mcpServer", Name: "env", Kind: "field", Shape: "map", Optional: true, Type: "Record<string, string>", DeclaredBy: "MCPServerConfig"},
}

func TestNestedGenerate(t *testing.T) {
	vs, why := Generate(nestedEntries, nestedEntries[0])
	require.Empty(t, why)
	byLabel := map[string]Variant{}
	for _, v := range vs {
		byLabel[v.Label] = v
	}
	name := NonASCII + " name"
	cmd := NonASCII + " command"
	tests := []struct {
		label, inner string
		value        any
	}{
		{"one minimal customAgent + tools = []", "tools", map[string]any{"name": name, "tools": []any{}}},
		{"one minimal customAgent + mcpServers = {}", "mcpServers", map[string]any{"name": name, "mcpServers": map[string]any{}}},
		{"one minimal customAgent + description = null", "description", map[string]any{"name": name, "description": nil}},
		{"one minimal customAgent + mcpServers holding one minimal mcpServer + args = []", "mcpServers.args",
			map[string]any{"name": name, "mcpServers": map[string]any{"entry-ü": map[string]any{"command": cmd, "args": []any{}}}}},
		{"one minimal customAgent + mcpServers holding one minimal mcpServer + env = {}", "mcpServers.env",
			map[string]any{"name": name, "mcpServers": map[string]any{"entry-ü": map[string]any{"command": cmd, "env": map[string]any{}}}}},
		{"one minimal customAgent + mcpServers holding one minimal mcpServer + args", "mcpServers.args",
			map[string]any{"name": name, "mcpServers": map[string]any{"entry-ü": map[string]any{"command": cmd, "args": []any{"α-one", "two"}}}}},
	}
	for _, tt := range tests {
		t.Run(tt.label, func(t *testing.T) {
			v, ok := byLabel[tt.label]
			require.True(t, ok, "generated: %v", labelsOf(vs))
			assert.Equal(t, tt.inner, v.Inner)
			assert.Equal(t, []any{tt.value}, v.Value)
		})
	}
	for _, v := range vs {
		assert.NotContains(t, v.Label, "name = ", "a required member is never set to an edge value")
		assert.NotContains(t, v.Label, "command = ")
	}
	// Go's omitempty and Rust's Option cannot say null apart from absent: no null there.
	assert.Empty(t, edges(Entry{Kind: "field", Shape: "string", Optional: true, Type: "Option<String>"}))
	assert.Equal(t, []edge{{"[]", []any{}}, {"null", nil}}, edges(Entry{Kind: "field", Shape: "string[]", Optional: true, Type: "Optional[list[str]]"}))
	assert.Equal(t, []edge{{"{}", map[string]any{}}, {"null", nil}}, edges(Entry{Kind: "field", Shape: "map", Optional: true, Type: "dict[str, str] | None"}))
}

func labelsOf(vs []Variant) []string {
	var out []string
	for _, v := range vs {
		out = append(out, v.Label)
	}
	return out
}

// rewrite applies f to every key and value inside v below the top (a misbehaving SDK's
// conversion of a definition): f returns the value to send and whether to send the key at all.
func rewrite(v any, f func(depth int, k string, v any) (any, bool), depth int) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			if nv, keep := f(depth, k, rewrite(e, f, depth+1)); keep {
				out[k] = nv
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = rewrite(e, f, depth)
		}
		return out
	}
	return v
}

func empty(v any) bool {
	switch x := v.(type) {
	case []any:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	}
	return false
}

func TestNestedEdgeValuesJudged(t *testing.T) {
	entries := append([]Entry{{Owner: "resumeConfig", Name: "customAgents", Kind: "field", Shape: "array", Optional: true, Type: "CustomAgentConfig[]"}}, nestedEntries...)
	sdk := func(f func(depth int, k string, v any) (any, bool)) func(string, any) map[string]any {
		return func(_ string, v any) map[string]any { return map[string]any{"customAgents": rewrite(v, f, 0)} }
	}
	tests := []struct {
		name string
		sdk  func(depth int, k string, v any) (any, bool)
		want []string // a substring of a problem, each on create and on resume
	}{
		{"as set", func(_ int, _ string, v any) (any, bool) { return v, true }, nil},
		{"an empty nested list dropped", func(_ int, k string, v any) (any, bool) { l, ok := v.([]any); return v, !ok || len(l) > 0 }, []string{
			"customAgents = one minimal customAgent + tools = []: session.%s: customAgents changed",
			"; customAgents.0.tools: want [], the key is absent",
			"; customAgents.0.mcpServers.entry-ü.args: want [], the key is absent",
		}},
		{"[] turned into null", func(_ int, k string, v any) (any, bool) {
			if l, ok := v.([]any); ok && len(l) == 0 {
				return nil, true
			}
			return v, true
		}, []string{"; customAgents.0.tools: want [], got null", "; customAgents.0.mcpServers.entry-ü.args: want [], got null"}},
		{"an empty nested map dropped", func(_ int, k string, v any) (any, bool) { m, ok := v.(map[string]any); return v, !ok || len(m) > 0 }, []string{
			"; customAgents.0.mcpServers: want {}, the key is absent", "; customAgents.0.mcpServers.entry-ü.env: want {}, the key is absent",
		}},
		{"only the deepest empty list dropped", func(depth int, k string, v any) (any, bool) { return v, depth < 2 || !empty(v) }, []string{
			"; customAgents.0.mcpServers.entry-ü.args: want [], the key is absent",
		}},
		{"an explicit null dropped", func(_ int, k string, v any) (any, bool) { return v, v != nil }, []string{
			"customAgents = one minimal customAgent + description = null: session.%s: customAgents changed",
			"; customAgents.0.description: want null, the key is absent",
		}},
		{"an unset list sent as []", func(depth int, k string, v any) (any, bool) { return v, true }, nil},
	}
	// An SDK that fills an unset list in with [] (absent must stay absent).
	filling := func(_ string, v any) map[string]any {
		agents := normalize(v).([]any)
		for _, a := range agents {
			if m, ok := a.(map[string]any); ok {
				if _, set := m["tools"]; !set {
					m["tools"] = []any{}
				}
			}
		}
		return map[string]any{"customAgents": agents}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			send := sdk(tt.sdk)
			want := tt.want
			if tt.name == "an unset list sent as []" {
				send = filling
				want = []string{"customAgents = one minimal customAgent: session.%s: customAgents changed", "; customAgents.0.tools: not set, got []"}
			}
			res, err := Probe(nullSchema{&fakeEnv{send: send}}, entries)
			require.NoError(t, err)
			ps := res.Problems()
			if want == nil {
				assert.Empty(t, ps)
				wk := res.WireKeys()
				assert.Equal(t, "customAgents.0.mcpServers.entry-ü.args", wk["session.create customagents.mcpservers.args"], "the nested key that arrived")
				assert.Equal(t, "customAgents.0.tools", wk["session.resume customagents.tools"])
				return
			}
			for _, req := range []string{"create", "resume"} {
				for _, w := range want {
					w = strings.ReplaceAll(w, "%s", req)
					found := false
					for _, p := range ps {
						found = found || strings.Contains(p, w) && strings.Contains(p, "session."+req)
					}
					assert.True(t, found, "%q among:\n%s", w, strings.Join(ps, "\n"))
				}
			}
			for _, p := range ps {
				assert.Regexp(t, `; customAgents\.0\.[\w.ü-]+: (want|not set)`, p, "each problem names the nested field path")
			}
		})
	}
}

func TestMismatch(t *testing.T) {
	tests := []struct {
		name        string
		sent, given any
		want        string
	}{
		{"same", map[string]any{"a": []any{}}, map[string]any{"a": []any{}}, ""},
		{"[] as null", map[string]any{"a": nil}, map[string]any{"a": []any{}}, "x.a: want [], got null"},
		{"[] dropped", map[string]any{}, map[string]any{"a": []any{}}, "x.a: want [], the key is absent"},
		{"{} dropped deep", []any{map[string]any{"m": map[string]any{"e": map[string]any{}}}}, []any{map[string]any{"m": map[string]any{"e": map[string]any{"env": map[string]any{}}}}}, "x.0.m.e.env: want {}, the key is absent"},
		{"absent sent as []", map[string]any{"n": "v", "tools": []any{}}, map[string]any{"n": "v"}, "x.tools: not set, got []"},
		{"an unset description sent as \"\" is the same", map[string]any{"n": "v", "description": ""}, map[string]any{"n": "v"}, ""},
		{"a key spelled by the language", map[string]any{"displayName": nil}, map[string]any{"display_name": "d"}, "x.displayName: want \"d\", got null"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Mismatch(tt.sent, tt.given, "x"))
		})
	}
}

// nullSchema stands in for the runtime's schema: only a custom agent's description may be null.
type nullSchema struct{ *fakeEnv }

func (nullSchema) Nullable(field string, inner []string) (bool, bool) {
	return Normalize(field) == "customagents" && len(inner) == 1 && inner[0] == "description", true
}

func TestNestedNullOnlyWhereTheSchemaAllowsIt(t *testing.T) {
	asSet := func(_ string, v any) map[string]any { return map[string]any{"customAgents": v} }
	dropNull := func(_ string, v any) map[string]any {
		return map[string]any{"customAgents": rewrite(v, func(_ int, _ string, v any) (any, bool) { return v, v != nil }, 0)}
	}
	nullable := []Entry{
		nestedEntries[0], nestedEntries[1], nestedEntries[3],
		{Owner: "customAgent", Name: "model", Kind: "field", Shape: "string", Optional: true, Type: "string | null", DeclaredBy: "CustomAgentConfig"},
	}
	tests := []struct {
		name     string
		env      Env
		nulls    int // null values set
		problems []string
	}{
		{"no schema: no null is set", &fakeEnv{send: asSet}, 0, nil},
		{"the schema allows it: null arrives as null", nullSchema{&fakeEnv{send: asSet}}, 1, nil},
		{"the schema allows it: a dropped null fails", nullSchema{&fakeEnv{send: dropNull}}, 1, []string{
			"sessionConfig.customAgents = one minimal customAgent + description = null: session.create: customAgents changed (customAgents=[{\"name\":\"" + NonASCII + " name\"}]) but none carries the value given; customAgents.0.description: want null, the key is absent",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Probe(tt.env, nullable)
			require.NoError(t, err)
			nulls := 0
			for _, f := range res.Findings {
				if strings.HasSuffix(f.Variant, "= null") {
					nulls++
				}
			}
			assert.Equal(t, tt.nulls, nulls, "model is never nullable in the schema, description only with it")
			assert.Equal(t, tt.problems, res.Problems())
			assert.Equal(t, tt.nulls, Values(tt.env, nullable)-Values(&fakeEnv{}, nullable), "the deadline counts the null values set")
		})
	}
}

func TestNestedCount(t *testing.T) {
	res, err := Probe(nullSchema{&fakeEnv{send: func(_ string, v any) map[string]any { return map[string]any{"customAgents": v} }}}, nestedEntries)
	require.NoError(t, err)
	c := res.Nested()
	// On session.create: description, mcpServers and tools, and the server's args and env inside
	// mcpServers, each with a value and its edge value (description's null: the schema allows it).
	assert.Equal(t, NestedCount{Fields: 5, Values: 10, Edges: 5}, c)
}
