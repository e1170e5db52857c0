package surface

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// laterEnv is fakeEnv whose SDK sends some fields (later) not in the create or resume request but
// in a session.options.update after it, as Node, Python and Rust send coauthorEnabled; and that
// knows the schema's open-time options.
type laterEnv struct {
	fakeEnv
	later   map[string]bool // field -> sent only through session.options.update
	options []string        // the schema's SessionOpenOptions properties
}

func (l *laterEnv) Open(owner, sid string, fields map[string]any) (string, error) {
	now, patch := map[string]any{}, map[string]any{}
	for k, v := range fields {
		if l.later[k] {
			patch[Normalize(k)] = v
		} else {
			now[k] = v
		}
	}
	id, err := l.fakeEnv.Open(owner, sid, now)
	if len(patch) > 0 {
		l.reqs = append(l.reqs, Request{Method: "session.options.update", Params: patch})
	}
	return id, err
}

func (l *laterEnv) OpenTimeOptions() []string { return l.options }

func TestProbeOpenTimeOptions(t *testing.T) {
	entries := []Entry{
		{Owner: "sessionConfig", Name: "coauthorEnabled", Kind: "field", Shape: "boolean", Optional: true},
		{Owner: "resumeConfig", Name: "coauthorEnabled", Kind: "field", Shape: "boolean", Optional: true},
		{Owner: "sessionConfig", Name: "scheduleEnabled", Kind: "field", Shape: "boolean"},
	}
	options := []string{"coauthorEnabled", "model"}
	misplaced := func(owner, req, v string) string {
		return fmt.Sprintf("%s.coauthorEnabled = %s: %s: an option the session opens with (definitions.SessionOpenOptions.coauthorEnabled) sent only after the session opened, as session.options.update.coauthorenabled, not in %s", owner, v, req, req)
	}
	tests := []struct {
		name     string
		later    map[string]bool
		options  []string
		problems []string
	}{
		{"an open-time option in create and resume", nil, options, nil},
		{"an open-time option only through session.options.update", map[string]bool{"coauthorEnabled": true}, options, []string{
			misplaced("sessionConfig", "session.create", "true"), misplaced("sessionConfig", "session.create", "false"),
			misplaced("resumeConfig", "session.resume", "true"), misplaced("resumeConfig", "session.resume", "false")}},
		{"an option the schema does not open with, through session.options.update", map[string]bool{"scheduleEnabled": true}, options, nil},
		{"no schema: not judged", map[string]bool{"coauthorEnabled": true}, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := &laterEnv{fakeEnv: fakeEnv{send: func(n string, v any) map[string]any { return map[string]any{Normalize(n): v} }}, later: tt.later, options: tt.options}
			res, err := Probe(env, entries)
			require.NoError(t, err)
			assert.Equal(t, tt.problems, res.Problems())
			if tt.later["coauthorEnabled"] {
				assert.Equal(t, "session.options.update.coauthorenabled", res.WireKeys()["session.create coauthorenabled"], "the cross-SDK comparison still sees where it went")
			}
		})
	}
}

func TestJudgeNeverSent(t *testing.T) {
	mode := Entry{Owner: "clientOptions", Name: "mode", Kind: "field", Shape: "enum"}
	hooks := Entry{Owner: "sessionConfig", Name: "hooks", Kind: "field", Shape: "boolean", Optional: true}
	onEvent := Entry{Owner: "sessionConfig", Name: "onEvent", Kind: "field", Shape: "handler"}
	dirs := Entry{Owner: "clientOptions", Name: "dirs", Kind: "field", Shape: "string[]"}
	notSent := []Finding{
		{Entry: mode, Variant: `"a"`, Request: "connect"},
		{Entry: hooks, Variant: "true", Request: "session.create"}, {Entry: hooks, Variant: "false", Request: "session.create"},
		{Entry: onEvent, Variant: "a callback", Request: "session.create"},
		{Entry: dirs, Variant: "[]", Request: "connect"},
	}
	refusedDirs := []Unchecked{{dirs, "a list: the SDK refused it: not an absolute path"}}
	listed := func(sdk, owner, field string) ClientSide {
		return ClientSide{SDK: sdk, Owner: owner, Field: field, Reason: "r", Evidence: "e", Where: "fixtures/client-side-fields.yaml:3"}
	}
	tests := []struct {
		name     string
		findings []Finding
		listed   []ClientSide
		want     []string
	}{
		{"never sent and not listed: each data field fails by name", notSent, nil,
			[]string{dropped("clientOptions.dirs", "[]"), dropped("clientOptions.mode", `"a"`), dropped("sessionConfig.hooks", "true; false")}},
		{"listed as client-side: passes", notSent, []ClientSide{listed("go", "clientOptions", "mode"), listed("go", "sessionConfig", "hooks"), listed("go", "clientOptions", "dirs")}, nil},
		{"another SDK's entry does not apply", notSent, []ClientSide{listed("node", "clientOptions", "mode"), listed("go", "sessionConfig", "hooks"), listed("go", "clientOptions", "dirs")},
			[]string{dropped("clientOptions.mode", `"a"`)}},
		{"sent and listed: a stale entry", append([]Finding{{Entry: mode, Variant: `"b"`, Request: "connect", Path: "connect.mode"}}, notSent[1:]...),
			[]ClientSide{listed("go", "clientOptions", "mode"), listed("go", "sessionConfig", "hooks"), listed("go", "clientOptions", "dirs")},
			[]string{"clientOptions.mode: listed as client-side at fixtures/client-side-fields.yaml:3, but its value reached the wire (connect: connect.mode): remove the entry"}},
		{"sent for one value only: not never sent", append([]Finding{{Entry: hooks, Variant: "true", Request: "session.create", Path: "hooks"}}, notSent[2:]...),
			[]ClientSide{listed("go", "clientOptions", "mode"), listed("go", "clientOptions", "dirs")}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := Result{Findings: tt.findings}
			res.JudgeNeverSent("go", tt.listed)
			assert.Equal(t, tt.want, res.Problems())
		})
	}
	res := Result{Findings: notSent, Unchecked: refusedDirs}
	res.JudgeNeverSent("go", []ClientSide{listed("go", "clientOptions", "mode"), listed("go", "sessionConfig", "hooks")})
	assert.Empty(t, res.Problems(), "a field with a value the SDK refused is judged by what it refused, not as never sent")
}

// A field the SDK never sends fails the probe end to end, unless listed.
func TestProbeNeverSent(t *testing.T) {
	entries := []Entry{
		{Owner: "sessionConfig", Name: "Dirs", Kind: "field", Shape: "string[]", Optional: true},
		{Owner: "sessionConfig", Name: "Buffer", Kind: "field", Shape: "integer"},
	}
	env := &fakeEnv{send: func(n string, v any) map[string]any {
		if n == "Buffer" {
			return nil
		}
		return map[string]any{"dirs": v}
	}}
	res, err := Probe(env, entries)
	require.NoError(t, err)
	res.JudgeNeverSent("go", nil)
	assert.Equal(t, []string{dropped("sessionConfig.Buffer", "3")}, res.Problems())
	res.Judged = nil
	res.JudgeNeverSent("go", []ClientSide{{SDK: "go", Owner: "sessionConfig", Field: "Buffer"}})
	assert.Empty(t, res.Problems())
}

func dropped(id, values string) string {
	return id + ": no request carries it for any value set (" + values + "): a dropped field, unless an entry of fixtures/client-side-fields.yaml says why it is client-side"
}

func TestLoadClientSide(t *testing.T) {
	entry := "- sdk: go\n  owner: clientOptions\n  field: Mode\n  reason: r\n  evidence: toolset.go:20\n"
	tests := []struct {
		name, text, err string
		n               int
	}{
		{"an entry", entry, "", 1},
		{"empty", "", "", 0},
		{"a key missing", "- sdk: go\n  owner: clientOptions\n  field: Mode\n  reason: r\n", "client-side-fields.yaml:1: the entry has no evidence", 0},
		{"an unknown key", entry + "  link: x\n", `unknown key "link"`, 0},
		{"an unknown SDK", "- sdk: cobol\n  owner: clientOptions\n  field: Mode\n  reason: r\n  evidence: e\n", `unknown SDK "cobol"`, 0},
		{"a duplicate", entry + entry, "go clientOptions.Mode is listed already at", 0},
		{"not a list", "sdk: go\n", "must be a list", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), ClientSideFile)
			require.NoError(t, os.WriteFile(path, []byte(tt.text), 0o644))
			got, err := LoadClientSide(path, []string{"go", "node"})
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			assert.Len(t, got, tt.n)
		})
	}
	got, err := LoadClientSide(filepath.Join(t.TempDir(), "none.yaml"), nil)
	require.NoError(t, err)
	assert.Empty(t, got, "a missing file is no entry")
}

// The committed file loads: every entry complete, for an SDK the harness knows.
func TestTheRepositoryClientSideFieldsLoad(t *testing.T) {
	got, err := LoadClientSide(filepath.Join("..", "..", "fixtures", ClientSideFile), []string{"node", "go", "python", "rust", "java", "dotnet"})
	require.NoError(t, err)
	assert.NotEmpty(t, got)
}

func TestOpenTimeOption(t *testing.T) {
	options := []string{"coauthorEnabled", "model"}
	tests := []struct {
		name string
		f    Finding
		want string
	}{
		{"the field is an option", Finding{Entry: Entry{Name: "coauthor_enabled"}, Via: "session.options.update", Path: "session.options.update.coauthorEnabled"}, "coauthorEnabled"},
		{"the key sent later is an option", Finding{Entry: Entry{Name: "coauthor"}, Via: "session.options.update", Path: "session.options.update.coauthorEnabled"}, "coauthorEnabled"},
		{"neither", Finding{Entry: Entry{Name: "schedule"}, Via: "session.options.update", Path: "session.options.update.manageScheduleEnabled"}, ""},
		{"a definition's member named like an option", Finding{Entry: Entry{Name: "customAgents"}, Inner: "model", Via: "session.agents.set", Path: "session.agents.set.agents.0.model"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, openTimeOption(tt.f, options))
		})
	}
}
