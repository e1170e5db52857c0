package surface

import (
	"fmt"
	"strings"
	"testing"

	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestVariants(t *testing.T) {
	tests := []struct {
		name  string
		entry Entry
		want  []any
	}{
		{"string is non-ASCII and names the field", Entry{Name: "model", Kind: "field", Shape: "string"}, []any{NonASCII + " model"}},
		{"optional boolean: true and false", Entry{Kind: "field", Shape: "boolean", Optional: true}, []any{true, false}},
		{"plain boolean: true only", Entry{Kind: "field", Shape: "boolean"}, []any{true}},
		{"string list: non-empty and empty", Entry{Kind: "field", Shape: "string[]"}, []any{[]any{"α-one", "two"}, []any{}}},
		{"enum: the alphabetically first value", Entry{Kind: "field", Shape: "enum", Values: []string{"on", "export", "off"}}, []any{"export"}},
		{"object: no generator yet", Entry{Kind: "field", Shape: "object"}, nil},
		{"handler: never a value", Entry{Kind: "handler", Shape: "handler"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []any
			for _, v := range Variants(tt.entry) {
				got = append(got, v.Value)
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestLocate(t *testing.T) {
	base := map[string]any{"sessionId": "a", "streaming": true}
	base2 := map[string]any{"sessionId": "b", "streaming": true}
	tests := []struct {
		name        string
		params      map[string]any
		value       any
		path, issue string
	}{
		{"new key", map[string]any{"sessionId": "c", "streaming": true, "model": "m"}, "m", "model", ""},
		{"volatile key carrying the value", map[string]any{"sessionId": "mine", "streaming": true}, "mine", "sessionId", ""},
		{"nested", map[string]any{"sessionId": "c", "streaming": true, "x": map[string]any{"y": "v"}}, "v", "x.y", ""},
		{"not sent", map[string]any{"sessionId": "c", "streaming": true}, "v", "", ""},
		{"null instead", map[string]any{"sessionId": "c", "streaming": true, "model": nil}, "m", "", "none carries the value given"},
		{"something else changed", map[string]any{"sessionId": "c", "model": "m"}, "m", "model", "streaming changed too"},
		{"secret by fingerprint", map[string]any{"sessionId": "c", "streaming": true, "gitHubToken": transcript.Redacted("tok")}, "tok", "gitHubToken", ""},
		{"a generated id left out", map[string]any{"streaming": true, "cloud": map[string]any{}}, map[string]any{}, "cloud", ""},
		{"the application's key left out", map[string]any{"sessionId": "c", "model": "m"}, "m", "model", "streaming changed too (streaming=<absent>)"},
		{"an unset key sent as its zero value", map[string]any{"sessionId": "c", "streaming": true, "cmd": map[string]any{"name": "n", "description": ""}}, map[string]any{"name": "n"}, "cmd", ""},
		{"an unset key sent as null", map[string]any{"sessionId": "c", "streaming": true, "cmd": map[string]any{"name": "n", "description": nil}}, map[string]any{"name": "n"}, "", "none carries the value given"},
		{"number as JSON", map[string]any{"sessionId": "c", "streaming": true, "n": 3.0}, 3, "n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path, issue := Locate(base, base2, tt.params, tt.value)
			assert.Equal(t, tt.path, path)
			if tt.issue == "" {
				assert.Empty(t, issue)
			} else {
				assert.Contains(t, issue, tt.issue)
			}
		})
	}
}

// fakeEnv is an SDK that sends each field under a key of its own choosing (send), after a
// baseline of keys it always sends.
type fakeEnv struct {
	reqs []Request
	send func(name string, v any) map[string]any
	n    int
}

func (f *fakeEnv) Open(owner, sid string, fields map[string]any) (string, error) {
	f.n++
	p := map[string]any{"sessionId": fmt.Sprint(f.n), "streaming": true}
	for k, v := range fields {
		for wk, wv := range f.send(k, v) {
			p[wk] = wv
		}
	}
	method := "session.create"
	if sid != "" {
		method = "session.resume"
	}
	f.reqs = append(f.reqs, Request{Method: method, Params: p})
	return "s1", nil
}

func (f *fakeEnv) Requests() []Request { return f.reqs }

func TestProbe(t *testing.T) {
	entries := []Entry{
		{Owner: "sessionConfig", Name: "Dirs", Kind: "field", Shape: "string[]", Optional: true},
		{Owner: "resumeConfig", Name: "Dirs", Kind: "field", Shape: "string[]", Optional: true},
		{Owner: "sessionConfig", Name: "Agents", Kind: "field", Shape: "array"},
	}
	tests := []struct {
		name     string
		send     func(string, any) map[string]any
		problems []string
		wire     map[string]string
	}{
		{"every value under one key", func(n string, v any) map[string]any { return map[string]any{"dirs": v} }, nil,
			map[string]string{"session.create dirs": "dirs", "session.resume dirs": "dirs"}},
		{"an empty list dropped", func(n string, v any) map[string]any {
			if l, ok := v.([]any); ok && len(l) == 0 {
				return nil
			}
			return map[string]any{"dirs": v}
		}, []string{"sessionConfig.Dirs = []: session.create: not sent, though another value of the field is sent under dirs",
			"resumeConfig.Dirs = []: session.resume: not sent, though another value of the field is sent under dirs"}, nil},
		{"never sent", func(string, any) map[string]any { return nil }, nil,
			map[string]string{"session.create dirs": "not sent", "session.resume dirs": "not sent"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Probe(&fakeEnv{send: tt.send}, entries)
			require.NoError(t, err)
			assert.Equal(t, tt.problems, res.Problems())
			if tt.wire != nil {
				assert.Equal(t, tt.wire, res.WireKeys())
			}
			require.Len(t, res.Unchecked, 1)
			assert.True(t, strings.HasPrefix(res.Unchecked[0].Entry.Name, "Agents"))
		})
	}
}

func TestGenerate(t *testing.T) {
	all := []Entry{
		{Owner: "sessionConfig", Name: "customAgents", Kind: "field", Shape: "array", Type: "CustomAgentConfig[]"},
		{Owner: "sessionConfig", Name: "providers", Kind: "field", Shape: "array", Type: "NamedProviderConfig[]"},
		{Owner: "sessionConfig", Name: "commands", Kind: "field", Shape: "array", Type: "CommandDefinition[]"},
		{Owner: "sessionConfig", Name: "env", Kind: "field", Shape: "map"},
		{Owner: "sessionConfig", Name: "infinite", Kind: "field", Shape: "object"},
		{Owner: "customAgent", Name: "name", Kind: "field", Shape: "string", DeclaredBy: "CustomAgentConfig (d.ts)"},
		{Owner: "customAgent", Name: "infer", Kind: "field", Shape: "boolean", Optional: true, DeclaredBy: "CustomAgentConfig (d.ts)"},
		{Owner: "customAgent", Name: "tools", Kind: "field", Shape: "string[]", Optional: true, DeclaredBy: "CustomAgentConfig (d.ts)"},
		{Owner: "provider", Name: "baseUrl", Kind: "field", Shape: "string", DeclaredBy: "ProviderConfig (d.ts)"},
		{Owner: "command", Name: "name", Kind: "field", Shape: "string", DeclaredBy: "CommandDefinition (d.ts)"},
		{Owner: "command", Name: "handler", Kind: "handler", Shape: "handler", DeclaredBy: "CommandDefinition (d.ts)"},
	}
	byName := map[string]Entry{}
	for _, e := range all[:5] {
		byName[e.Name] = e
	}
	name := NonASCII + " name"
	vs, why := Generate(all, byName["customAgents"])
	require.Empty(t, why)
	var labels []string
	for _, v := range vs {
		labels = append(labels, v.Label+"|"+v.Inner)
	}
	assert.Equal(t, []string{"one customAgent with every field|", "one minimal customAgent|", "one minimal customAgent + infer|infer",
		"one minimal customAgent + tools|tools", "one minimal customAgent + tools = []|tools", "[]|"}, labels)
	assert.Equal(t, []any{map[string]any{"name": name, "infer": true, "tools": []any{"α-one", "two"}}}, vs[0].Value)
	assert.Equal(t, []any{map[string]any{"name": name, "infer": true}}, vs[2].Value)

	_, why = Generate(all, byName["providers"])
	assert.Contains(t, why, "no definition owner bears its name", "a type built on the owner's type is not the owner")
	_, why = Generate(all, byName["commands"])
	assert.Contains(t, why, "carries a handler")
	vs, _ = Generate(all, byName["env"])
	require.Len(t, vs, 2)
	assert.Equal(t, map[string]any{}, vs[1].Value)
	_, why = Generate(all, byName["infinite"])
	assert.Contains(t, why, "does not list")

	// A map of booleans gets boolean values, in every SDK's spelling of its type.
	for _, typ := range []string{"Record<string, boolean>", "map[string]bool", "dict[str, bool] | None", "Option<HashMap<String, bool>>", "Map<String, Boolean>"} {
		vs, why := Generate(nil, Entry{Owner: "sessionConfig", Name: "featureFlags", Kind: "field", Shape: "map", Type: typ})
		require.Empty(t, why, typ)
		require.Len(t, vs, 3, typ)
		assert.Equal(t, map[string]any{"kéy-featureFlags": true}, vs[0].Value, typ)
		assert.Equal(t, map[string]any{"kéy-featureFlags": false}, vs[1].Value, typ)
	}
	vs, _ = Generate(nil, Entry{Owner: "sessionConfig", Name: "env", Kind: "field", Shape: "map", Type: "Record<string, string>"})
	assert.Equal(t, map[string]any{"kéy-env": NonASCII + " env"}, vs[0].Value, "a map of strings keeps string values")

	// A map of lists of objects (a custom agent's hooks), in the spellings SDKs declare it with:
	// a map holding a list holding a map, whatever the shape the driver gave it.
	hooks := map[string]any{"kéy-hooks": []any{map[string]any{"kéy-hooks": NonASCII + " hooks"}}}
	for _, c := range []struct{ shape, typ string }{
		{"map", "dict[str, list[dict[str, Any]]]"},
		{"other", "Option<IndexMap<String, Vec<IndexMap<String, serde_json::Value>>>>"},
		{"map", "Record<string, Array<Record<string, unknown>>>"},
		{"map", "map[string][]map[string]interface {}"},
		{"map", "java.util.Map<java.lang.String, java.util.List<java.util.Map<java.lang.String, java.lang.Object>>>"},
	} {
		vs, why := Generate(nil, Entry{Owner: "customAgent", Name: "hooks", Kind: "field", Shape: c.shape, Type: c.typ})
		require.Empty(t, why, c.typ)
		require.Len(t, vs, 2, c.typ)
		assert.Equal(t, hooks, vs[0].Value, c.typ)
		assert.Equal(t, map[string]any{}, vs[1].Value, c.typ)
	}
	// Inside a definition, the full object holds the same value.
	agent := []Entry{
		{Owner: "sessionConfig", Name: "customAgents", Kind: "field", Shape: "array", Type: "list[CustomAgentConfig]"},
		{Owner: "customAgent", Name: "name", Kind: "field", Shape: "string", DeclaredBy: "CustomAgentConfig"},
		{Owner: "customAgent", Name: "hooks", Kind: "field", Shape: "other", Optional: true, Type: "Option<IndexMap<String, Vec<IndexMap<String, Value>>>>", DeclaredBy: "CustomAgentConfig"},
	}
	vs, why = Generate(agent, agent[0])
	require.Empty(t, why)
	assert.Equal(t, hooks, vs[0].Value.([]any)[0].(map[string]any)["hooks"])
	assert.Equal(t, "hooks", vs[2].Inner, "hooks is set alone beside the required fields")
	// What the reader leaves to other generators: unions, named types, tuples.
	for _, typ := range []string{"ZodSchema<TArgs> | Record<string, unknown>", "map[string]copilot.SectionOverride", "Vec<(OsString, OsString)>", "{ [key: string]: Foo }"} {
		assert.False(t, parseType(typ).known(), typ)
	}

	// An object field whose members the driver read from the SDK's type: built from them.
	inf := byName["infinite"]
	inf.Fields = []Entry{
		{Name: "enabled", Kind: "field", Shape: "boolean", Optional: true},
		{Name: "threshold", Kind: "field", Shape: "number", Optional: true},
		{Name: "onCompact", Kind: "handler", Shape: "handler", Optional: true},
	}
	vs, why = GenerateWith(all, inf, func(string, bool) (map[string]any, bool) { return nil, false }, false)
	require.Empty(t, why)
	labels = nil
	for _, v := range vs {
		labels = append(labels, v.Label+"|"+v.Inner)
	}
	assert.Equal(t, []string{"infinite with every field|", "minimal infinite|", "minimal infinite + enabled|enabled", "minimal infinite + threshold|threshold"}, labels)
	assert.Equal(t, map[string]any{"enabled": true, "threshold": 3}, vs[0].Value)
	assert.Equal(t, map[string]any{}, vs[1].Value, "no member is required: {} is the minimal object")
	inf.Fields = append(inf.Fields, Entry{Name: "run", Kind: "handler", Shape: "handler"})
	_, why = Generate(all, inf)
	assert.Contains(t, why, "carries a handler (run)", "the reason the members give is kept")
	vs, why = GenerateWith(all, inf, nil, true)
	require.Empty(t, why, "the driver fills the required callback in")
	assert.Equal(t, map[string]any{"enabled": true, "threshold": 3}, vs[0].Value)
	reg := Entry{Owner: "sessionConfig", Name: "canvases", Kind: "field", Shape: "array", Fields: []Entry{
		{Name: "declaration", Kind: "field", Shape: "object", Fields: []Entry{{Name: "id", Kind: "field", Shape: "string"}}},
		{Name: "open", Kind: "handler", Shape: "handler"},
	}}
	vs, why = GenerateWith(all, reg, nil, true)
	require.Empty(t, why)
	assert.Equal(t, []any{map[string]any{"declaration": map[string]any{"id": NonASCII + " id"}}}, vs[0].Value)
	assert.Equal(t, []any{map[string]any{"id": NonASCII + " id"}}, vs[0].Want(), "a registration sends its declaration")
	vs, why = GenerateWith(all, byName["commands"], nil, true)
	require.Empty(t, why)
	assert.Equal(t, []any{map[string]any{"name": NonASCII + " name"}}, vs[0].Value)
}

func TestSame(t *testing.T) {
	tests := []struct {
		name        string
		sent, given any
		want        bool
	}{
		{"keys spelled by the language", map[string]any{"displayName": "a"}, map[string]any{"display_name": "a"}, true},
		{"a renamed key carrying the value", map[string]any{"cwd": "w dir"}, map[string]any{"workingDirectory": "w dir"}, true},
		{"a key added", map[string]any{"name": "a", "type": nil}, map[string]any{"name": "a"}, false},
		{"a value changed", map[string]any{"name": "b"}, map[string]any{"name": "a"}, false},
		{"a secret by its fingerprint", transcript.Redacted("tok"), "tok", true},
		{"lists in order", []any{"a", "b"}, []any{"b", "a"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, same(tt.sent, tt.given))
		})
	}
	assert.Equal(t, "x.0.cwd", innerPath([]any{map[string]any{"cwd": "d", "name": "n"}}, []any{map[string]any{"workingDirectory": "d", "name": "n"}}, "x", "workingDirectory"))
}

func TestTally(t *testing.T) {
	entries := []Entry{
		{Owner: "sessionConfig", Name: "agents", Kind: "field", Shape: "array", Type: "Agent[]"},
		{Owner: "sessionConfig", Name: "model", Kind: "field", Shape: "string"},
		{Owner: "sessionConfig", Name: "cloud", Kind: "field", Shape: "object"},
		{Owner: "agent", Name: "name", Kind: "field", Shape: "string", DeclaredBy: "Agent"},
		{Owner: "agent", Name: "infer", Kind: "field", Shape: "boolean", Optional: true, DeclaredBy: "Agent"},
		{Owner: "agent", Name: "extra", Kind: "field", Shape: "object", Optional: true, DeclaredBy: "Agent"},
	}
	res := Result{
		Findings: []Finding{
			{Entry: entries[0], Variant: "one agent with every field"},
			{Entry: entries[0], Variant: "one minimal agent + infer", Inner: "infer"},
			{Entry: entries[1], Variant: "non-ASCII string"},
		},
		Unchecked: []Unchecked{{entries[2], "no owner"}},
	}
	got := res.Tally(entries)
	require.Len(t, got, 2)
	assert.Equal(t, "sessionConfig", got[0].Owner)
	assert.Equal(t, []int{3, 2}, []int{got[0].Fields, got[0].Checked})
	assert.Equal(t, "no owner", got[0].Unchecked[0].Reason)
	assert.Equal(t, []int{3, 2}, []int{got[1].Fields, got[1].Checked}, "name (required, in every agent) and infer (alone)")
	assert.Equal(t, "extra", got[1].Unchecked[0].Entry.Name)
}

// fakeClients is an SDK whose client options go to connect (sent), nowhere, or are refused.
type fakeClients struct {
	reqs    []Request
	sent    map[string]string // option -> connect key
	refused map[string]bool
	clients int
}

func (f *fakeClients) Open(string, string, map[string]any) (string, error) { return "s", nil }
func (f *fakeClients) Requests() []Request                                 { return f.reqs }
func (f *fakeClients) OpenClient(fields map[string]any) error {
	for k := range fields {
		if f.refused[k] {
			return fmt.Errorf("%s is refused", k)
		}
	}
	f.clients++
	p := map[string]any{"protocol": 1.0}
	for k, v := range fields {
		if w, ok := f.sent[k]; ok {
			p[w] = v
		}
	}
	f.reqs = append(f.reqs, Request{Method: "connect", Params: p}, Request{Method: "session.create", Params: map[string]any{"sessionId": fmt.Sprint(f.clients)}})
	return nil
}

func TestProbeClient(t *testing.T) {
	var entries []Entry
	for _, n := range []string{"a", "b", "c", "d", "e", "f"} {
		entries = append(entries, Entry{Owner: "clientOptions", Name: n, Kind: "field", Shape: "string"})
	}
	env := &fakeClients{sent: map[string]string{"b": "bee"}, refused: map[string]bool{"e": true}}
	res, err := ProbeClient(env, entries)
	require.NoError(t, err)
	assert.Empty(t, res.Problems())
	assert.Equal(t, map[string]string{"connect a": "not sent", "connect b": "connect.bee", "connect c": "not sent",
		"connect d": "not sent", "connect f": "not sent"}, res.WireKeys())
	require.Len(t, res.Unchecked, 1)
	assert.Equal(t, "e", res.Unchecked[0].Entry.Name)
	assert.Less(t, env.clients, 2+len(entries), "options found nowhere share clients")
}

// fakeProviders is an SDK whose option "fs" is refused unless the session registers the fs.*
// provider, and then configures it: sent as the params of fs.setProvider.
type fakeProviders struct {
	fakeClients
	methods []string
}

func (f *fakeProviders) RuntimeMethods() []string { return f.methods }
func (f *fakeProviders) OpenClientWith(fields map[string]any, methods []string) error {
	if _, ok := fields["fs"]; !ok {
		return f.fakeClients.OpenClient(fields)
	}
	if len(methods) == 0 {
		return fmt.Errorf("fs needs its provider")
	}
	f.clients++
	f.reqs = append(f.reqs, Request{Method: "connect", Params: map[string]any{"protocol": 1.0}}, Request{Method: "fs.setProvider", Params: map[string]any{"root": fields["fs"]}},
		Request{Method: "session.create", Params: map[string]any{"sessionId": fmt.Sprint(f.clients)}})
	return nil
}
func (f *fakeProviders) OpenClient(fields map[string]any) error {
	return f.OpenClientWith(fields, nil)
}

func TestProbeClientWithProvider(t *testing.T) {
	entries := []Entry{{Owner: "clientOptions", Name: "fs", Kind: "field", Shape: "string"}}
	env := &fakeProviders{methods: []string{"fs.read", "fs.write", "other.call"}}
	env.fakeClients.sent = map[string]string{}
	res, err := ProbeClient(env, entries)
	require.NoError(t, err)
	assert.Empty(t, res.Unchecked, "refused alone, found with the session registering fs.read and fs.write")
	assert.Equal(t, map[string]string{"connect fs": "fs.setProvider.root"}, res.WireKeys())

	env.methods = []string{"other.call"}
	res, err = ProbeClient(env, entries)
	require.NoError(t, err)
	require.Len(t, res.Unchecked, 1, "no provider is named like the option: refused, with the SDK's words")
	assert.Contains(t, res.Unchecked[0].Reason, "fs needs its provider")
}

// lostDriver is an env error that ends the scenario (its driver is gone), as driver.Failure is.
type lostDriver struct{}

func (lostDriver) Error() string      { return "driver crashed: exited (signal: killed)" }
func (lostDriver) EndsScenario() bool { return true }

// lostAfter is fakeEnv / fakeClients whose driver is lost after its first `after` opens: every
// later open fails with lostDriver.
type lostAfter struct {
	fakeClients
	session fakeEnv
	after   int
	opens   int
}

func (l *lostAfter) Open(owner, sid string, fields map[string]any) (string, error) {
	if l.opens++; l.opens > l.after {
		return "", lostDriver{}
	}
	return l.session.Open(owner, sid, fields)
}

func (l *lostAfter) OpenClient(fields map[string]any) error {
	if l.opens++; l.opens > l.after {
		return lostDriver{}
	}
	return l.fakeClients.OpenClient(fields)
}

// A probe whose driver is lost ends at the first value that finds it gone, with that error and
// how far it got: it does not go on opening a session or client per value, each failing.
func TestProbesEndWhenTheDriverIsLost(t *testing.T) {
	var entries []Entry
	for _, n := range []string{"a", "b", "c", "d", "e", "f"} {
		entries = append(entries, Entry{Owner: "sessionConfig", Name: n, Kind: "field", Shape: "string[]", Optional: true},
			Entry{Owner: "clientOptions", Name: n, Kind: "field", Shape: "string"})
	}
	tests := []struct {
		name  string
		probe func(*lostAfter) error
		after int // opens before the loss: past the baselines, with values left
		want  string
	}{
		{"session config fields", func(env *lostAfter) error { _, err := Probe(env, entries); return err }, 4, "the sweep ended at sessionConfig."},
		{"client options", func(env *lostAfter) error { _, err := ProbeClient(env, entries); return err }, 2, "the client option sweep ended after"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := &lostAfter{session: fakeEnv{send: func(n string, v any) map[string]any { return map[string]any{n: v} }}, after: tt.after}
			err := tt.probe(env)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.ErrorIs(t, err, lostDriver{})
			assert.Equal(t, env.after+1, env.opens, "nothing is opened after the loss was found")
		})
	}
}
