package expect

import (
	"fmt"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

var scenarios = []Scenario{{Feature: "tools/is_terminal.feature", Name: "explicit false"}, {Feature: "a.feature", Name: "other"}}
var known = []string{"node", "go"}

func write(t *testing.T, body string) string {
	p := filepath.Join(t.TempDir(), "expected-failures.yaml")
	require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	return p
}

func TestLoadRejectsBadEntries(t *testing.T) {
	tests := []struct{ name, body, want string }{
		{"no scenario matches", "- sdk: node\n  scenario: nope\n  reason: r\n  link: l\n  message: m\n", `:1: the entry matches no scenario: no scenario named "nope" exists`},
		{"wrong feature", "- sdk: node\n  feature: a.feature\n  scenario: explicit false\n  reason: r\n  link: l\n  message: m\n", "matches no scenario"},
		{"unknown sdk", "- sdk: cobol\n  scenario: other\n  reason: r\n  link: l\n  message: m\n", `unknown sdk "cobol"`},
		{"missing reason", "- sdk: node\n  scenario: other\n", "needs sdk, scenario (or a runtime, for every scenario on it) and reason"},
		{"bad range", "- sdk: node\n  scenario: other\n  reason: r\n  link: l\n  message: m\n  versions: '<= banana'\n", "versions"},
		{"second entry line", "- sdk: node\n  scenario: other\n  reason: r\n  link: l\n  message: m\n- sdk: go\n  scenario: zz\n  reason: r\n  link: l\n  message: m\n", ":6: "},
		{"not a list", "sdk: node\n", "must be a list"},
		{"no expected failure", "- sdk: node\n  scenario: other\n  reason: r\n  link: l\n", ":1: an entry must name the failure it expects with message"},
		{"request and path only", "- sdk: node\n  scenario: other\n  reason: r\n  link: l\n  request: session.create\n  path: x\n", ":1: an entry must name the failure it expects with message"},
		{"no link", "- sdk: node\n  scenario: other\n  reason: r\n  message: 'want true, the key is absent'\n", ":1: an entry needs a link"},
		{"a bare timed out", "- sdk: node\n  scenario: other\n  reason: r\n  link: l\n  message: 'timed out'\n", `:1: message "timed out" names no observed value`},
		{"a bare SDK timeout", "- sdk: node\n  scenario: other\n  reason: r\n  link: l\n  message: 'the SDK raised Error::Session: timed out'\n", "names no observed value"},
		{"path without request", "- sdk: node\n  scenario: other\n  reason: r\n  link: l\n  path: tools\n  message: m\n", `path "tools" needs a request`},
		{"request not a method", "- sdk: node\n  scenario: other\n  reason: r\n  link: l\n  request: 'session create'\n  message: m\n", `request "session create" is not a method name`},
		{"message not a regexp", "- sdk: node\n  scenario: other\n  reason: r\n  link: l\n  message: 'got (x'\n", `message "got (x" is not a regular expression`},
		{"unknown key names its line", "- sdk: node\n  scenario: other\n  reason: r\n  link: l\n  mesage: m\n", `:5: unknown key "mesage"`},
		{"entry not a mapping", "- [1]\n", ":1: an entry must be a mapping"},
		{"no scenario without a runtime", "- sdk: node\n  reason: r\n  link: l\n  message: m\n", "an entry needs sdk, scenario (or a runtime"},
		{"unknown runtime", "- sdk: node\n  runtime: docker\n  reason: r\n  link: l\n  message: m\n", `runtime "docker" is not one of stand-in, real`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(write(t, tt.body), scenarios, known)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestMatch(t *testing.T) {
	m, err := Load(write(t, "- sdk: node\n  versions: '<= 1.0.14'\n  scenario: explicit false\n  reason: r\n  link: l\n  message: m\n- sdk: go\n  scenario: other\n  reason: r\n  link: l\n  message: m\n"+
		"- sdk: node\n  versions: '< 1.0.0'\n  runtime: real\n  reason: r\n  link: l\n  message: m\n- sdk: go\n  runtime: stand-in\n  scenario: explicit false\n  reason: r\n  link: l\n  message: m\n"), scenarios, known)
	require.NoError(t, err)
	tests := []struct {
		sdk, version, runtime, feature, scenario string
		want                                     bool
	}{
		{"node", "1.0.14", "stand-in", "tools/is_terminal.feature", "explicit false", true},
		{"node", "1.0.13", "real", "tools/is_terminal.feature", "explicit false", true},
		{"node", "1.0.15", "stand-in", "tools/is_terminal.feature", "explicit false", false},
		{"node", "1.0.14-preview.1", "stand-in", "tools/is_terminal.feature", "explicit false", true},
		{"node", "1.0.15-preview.4", "stand-in", "tools/is_terminal.feature", "explicit false", false},
		{"node", "(devel)", "stand-in", "tools/is_terminal.feature", "explicit false", false},
		// A source build 6 commits after 1.0.14 (sdks.MatchVersion) is past "<= 1.0.14"; one after
		// 1.0.13 is inside it; a source with no release version matches no range.
		{"node", "1.0.15-0.6", "stand-in", "tools/is_terminal.feature", "explicit false", false},
		{"node", "1.0.14-0.6", "stand-in", "tools/is_terminal.feature", "explicit false", true},
		{"node", "", "stand-in", "tools/is_terminal.feature", "explicit false", false},
		{"node", "0.0.0-dev", "stand-in", "tools/is_terminal.feature", "explicit false", true}, // why a placeholder is never matched as itself
		// PyPI's pre-releases are ranged as the pre-releases they are (PEP 440 has no dash).
		{"node", "1.0.0b1", "stand-in", "tools/is_terminal.feature", "explicit false", true},
		{"node", "1.0.14rc2", "stand-in", "tools/is_terminal.feature", "explicit false", true},
		{"node", "1.0.15rc1", "stand-in", "tools/is_terminal.feature", "explicit false", false},
		{"go", "v1.0.14", "real", "tools/is_terminal.feature", "explicit false", false},
		{"go", "v1.0.14", "stand-in", "tools/is_terminal.feature", "explicit false", true},
		{"go", "anything", "stand-in", "a.feature", "other", true},
		// A runtime entry without a scenario: every scenario of the version, on that runtime only.
		{"node", "0.3.0", "real", "a.feature", "other", true},
		{"node", "0.3.0", "stand-in", "a.feature", "other", false},
		{"node", "1.0.15", "real", "a.feature", "other", false},
	}
	for _, tt := range tests {
		got := m.Match(tt.sdk, tt.version, tt.runtime, tt.feature, tt.scenario)
		assert.Equal(t, tt.want, got != nil, "%+v", tt)
	}
	// The whole-runtime entry stands alone: the scenario's own entry is never reached there.
	all := m.MatchAll("node", "0.3.0", "real", "tools/is_terminal.feature", "explicit false")
	require.Len(t, all, 1)
	assert.Empty(t, all[0].Scenario)
	assert.Empty(t, mustLoadMissing(t).Entries, "a missing manifest is empty")
}

func TestExplains(t *testing.T) {
	const create = `step "the tool \"lookup\" in the \"session.create\" request has no key \"isTerminal\"": session.create tools[0].isTerminal (tool "lookup"): want the key absent, got false`
	tests := []struct {
		name    string
		entry   string
		failure Failure
		want    bool
		why     string
	}{
		{name: "request, path and message match",
			entry:   "  request: session.create\n  path: tools[0].isTerminal\n  message: 'want the key absent, got false'\n",
			failure: Failure{Message: create, Checked: []report.Check{{Method: "session.create", Path: "tools[0].name"}, {Method: "session.create", Path: "tools[0].isTerminal"}}}, want: true},
		{name: "request alone matches any path",
			entry:   "  request: session.create\n",
			failure: Failure{Message: create, Checked: []report.Check{{Method: "session.create", Path: "tools[0].isTerminal"}}}, want: true},
		{name: "a different path is a different failure",
			entry:   "  request: session.create\n  path: tools[0].isTerminal\n",
			failure: Failure{Message: "session.create tools[1].defer: want true, got false", Checked: []report.Check{{Method: "session.create", Path: "tools[0].isTerminal"}, {Method: "session.create", Path: "tools[1].defer"}}},
			why:     `expected a failed check of session.create tools[0].isTerminal with a message matching /./ (m.yaml:1); observed last check session.create tools[1].defer with the message "session.create tools[1].defer: want true, got false"`},
		{name: "the same path on another request",
			entry:   "  request: session.create\n  path: tools[0].isTerminal\n",
			failure: Failure{Message: create, Checked: []report.Check{{Method: "session.resume", Path: "tools[0].isTerminal"}}}},
		{name: "no payload check at all",
			entry:   "  request: session.create\n",
			failure: Failure{Message: "driver crashed"},
			why:     `expected a failed check of session.create with a message matching /./ (m.yaml:1); observed no payload check with the message "driver crashed"`},
		{name: "message pattern matches",
			entry:   "  message: 'the first request is \"ping\", want \"connect\"'\n",
			failure: Failure{Message: `step "the first request is \"connect\"": the first request is "ping", want "connect"`}, want: true},
		{name: "message pattern does not match",
			entry:   "  message: 'the first request is \"ping\"'\n",
			failure: Failure{Message: "driver timed out during \"createSession\"\n--- driver stderr (tail) ---\nboom"},
			why:     `expected a message matching /the first request is "ping"/ (m.yaml:1); observed no payload check with the message "driver timed out during \"createSession\""`},
		{name: "request matches but message does not",
			entry:   "  request: session.create\n  message: 'got false'\n",
			failure: Failure{Message: "session.create tools[0].isTerminal: want true, got null", Checked: []report.Check{{Method: "session.create", Path: "tools[0].isTerminal"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			entry := tt.entry
			if !strings.Contains(entry, "message:") {
				entry += "  message: '.'\n" // every entry names a message; '.' leaves the test to request and path
			}
			m, err := Parse([]byte("- sdk: node\n  scenario: other\n  reason: r\n  link: l\n"+entry), "m.yaml", scenarios, known)
			require.NoError(t, err)
			ok, why := m.Entries[0].Explains(tt.failure)
			assert.Equal(t, tt.want, ok)
			if tt.want {
				assert.Empty(t, why)
			} else {
				assert.NotEmpty(t, why)
			}
			if tt.why != "" {
				assert.Equal(t, tt.why, why)
			}
		})
	}
}

// TestProjectManifestNamesEachFailure loads the real manifest: every entry is valid and says
// what its failure must be (whether its scenarios exist is checked by the harness at run time).
func TestProjectManifestNamesEachFailure(t *testing.T) {
	b, err := os.ReadFile("../../fixtures/expected-failures.yaml")
	require.NoError(t, err)
	var raw []Entry
	require.NoError(t, yaml.Unmarshal(b, &raw))
	var named []Scenario
	for _, e := range raw {
		named = append(named, Scenario{Feature: e.Feature, Name: e.Scenario})
	}
	m, err := Parse(b, "expected-failures.yaml", named, []string{"node", "go", "python", "rust", "java", "dotnet"})
	require.NoError(t, err)
	// A listing step is matched item by item (Judge): a message quoting its head and count would
	// match no item and hold on no version.
	countPinned := regexp.MustCompile(`(\d+|\\d\+) (of (\d+|\\d\+) field values|generated (calls|events)|runtime-to-SDK calls)`)
	for _, e := range m.Entries {
		assert.NotEmpty(t, e.Expectation(), e.Where())
		assert.False(t, countPinned.MatchString(e.Message), "%s pins the count of a listing step: name the item", e.Where())
	}
}

func mustLoadMissing(t *testing.T) *Manifest {
	m, err := Load(filepath.Join(t.TempDir(), "none.yaml"), scenarios, known)
	require.NoError(t, err)
	return m
}

// FuzzParse: any manifest either loads into entries that each name a known SDK and an existing
// scenario, or is an error naming the file; it never panics.
func FuzzParse(f *testing.F) {
	f.Add([]byte("- sdk: node\n  versions: '<= 1.0.14'\n  feature: tools/is_terminal.feature\n  scenario: explicit false\n  reason: r\n  link: l\n  link: l\n"))
	f.Add([]byte("- sdk: go\n  scenario: other\n  reason: r\n  link: l\n  request: session.create\n  path: tools[0].isTerminal\n"))
	f.Add([]byte("- sdk: node\n  scenario: other\n  reason: r\n  link: l\n  message: 'got (\"x\"'\n"))
	f.Add([]byte("sdk: node\n"))
	f.Add([]byte("- [1, 2]\n- &a {sdk: *a}\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := Parse(b, "expected-failures.yaml", scenarios, known)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "expected-failures.yaml") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		for _, e := range m.Entries {
			if e.SDK != "node" && e.SDK != "go" {
				t.Fatalf("accepted unknown sdk %q", e.SDK)
			}
			_ = m.Match(e.SDK, "1.0.14", "stand-in", e.Feature, e.Scenario)
		}
	})
}

// Judge is strict both ways: every failure explained by an entry, every entry observed.
func TestJudge(t *testing.T) {
	m, err := Parse([]byte(`- sdk: node
  scenario: other
  reason: r
  link: l
  request: session.create
  path: streaming
  message: 'want false, the key is absent'
- sdk: node
  scenario: other
  reason: r
  link: l
  message: 'the first request is "ping"'
`), "m.yaml", scenarios, known)
	require.NoError(t, err)
	streaming := Failure{Message: "session.create streaming: want false, the key is absent", Checked: []report.Check{{Method: "session.create", Path: "streaming"}}}
	ping := Failure{Message: `the first request is "ping", want "connect"`}
	later := Failure{Message: "session.create model: want \"gpt-5\", got null", Checked: []report.Check{{Method: "session.create", Path: "model"}}}
	tests := []struct {
		name     string
		failures []Failure
		ok       bool
		why      string
	}{
		{"both known divergences", []Failure{streaming, ping}, true, ""},
		{"a later check failing too", []Failure{streaming, ping, later}, false, "observed last check session.create model"},
		{"one known divergence not seen", []Failure{streaming}, false, "m.yaml:8 (a message matching /the first request is \"ping\"/) was not observed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ok, why := Judge(m.Entries, tt.failures)
			assert.Equal(t, tt.ok, ok, why)
			if tt.why != "" {
				assert.Contains(t, strings.Join(why, "\n"), tt.why)
			}
		})
	}
}

func TestLoadDifferences(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, yaml, err string
	}{
		{"valid", "- request: session.create\n  field: x\n  keys: {a: x, b: later.x}\n  reason: r\n  link: l\n", ""},
		{"unknown key", "- request: session.create\n  feild: x\n", `unknown key "feild"`},
		{"one SDK only", "- request: session.create\n  field: x\n  keys: {a: x}\n  reason: r\n  link: l\n", "at least two SDKs"},
		{"unknown SDK", "- request: session.create\n  field: x\n  keys: {a: x, cobol: y}\n  reason: r\n  link: l\n", `unknown sdk "cobol"`},
		{"no reason", "- request: session.create\n  field: x\n  keys: {a: x, b: y}\n  link: l\n", "needs request, field, reason and link"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, "d.yaml")
			require.NoError(t, os.WriteFile(path, []byte(tt.yaml), 0o644))
			got, err := LoadDifferences(path, []string{"a", "b"})
			if tt.err != "" {
				assert.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			require.Len(t, got, 1)
			assert.Equal(t, filepath.ToSlash(path)+":1", got[0].Where)
		})
	}
}

func TestTheRepositoryDifferencesLoad(t *testing.T) {
	got, err := LoadDifferences(filepath.Join("..", "..", "fixtures", DifferencesFile), []string{"node", "go", "python", "rust", "java", "dotnet"})
	require.NoError(t, err)
	assert.NotEmpty(t, got)
}

// A step that lists divergences (a sweep, the surface) is judged item by item: an entry names
// what diverges, so the known divergence holds whatever the count on a version; an item no entry
// names is a new failure; an entry no item shows is gone.
func TestJudgeListedDivergences(t *testing.T) {
	m, err := Parse([]byte(`- sdk: node
  scenario: other
  reason: r
  link: l
  message: 'sessionConfig\.(Tools|ExcludedTools) = \[\]: session\.(create|resume): not sent$'
- sdk: node
  scenario: other
  reason: r
  link: l
  message: 'server\.sessions: sessions\.getClientMetadata \[[^\]]*\]: the SDK raised \*json\.UnmarshalTypeError'
`), "m.yaml", scenarios, known)
	require.NoError(t, err)
	const surface, sweep = `step "each value reaches its request": `, `step "the application received every generated result": `
	listed := func(step string, items ...string) Failure {
		f := Failure{Message: step + "N of M …"}
		for _, it := range items {
			f.Items = append(f.Items, step+it)
		}
		return f
	}
	tools := "sessionConfig.Tools = []: session.create: not sent"
	excluded := "sessionConfig.ExcludedTools = []: session.resume: not sent"
	newOne := "sessionConfig.Streaming = false: session.create: not sent"
	metadata := "server.sessions: sessions.getClientMetadata [required]: the SDK raised *json.UnmarshalTypeError: json: cannot unmarshal object"
	tests := []struct {
		name     string
		failures []Failure
		ok       bool
		why      string
	}{
		{"every item named, as on the pinned version", []Failure{listed(surface, tools, excluded), listed(sweep, metadata, metadata)}, true, ""},
		{"fewer items of the same divergences, as on an older version", []Failure{listed(surface, tools), listed(sweep, metadata)}, true, ""},
		{"more items of the same divergences", []Failure{listed(surface, tools, excluded, tools, excluded), listed(sweep, metadata, metadata, metadata)}, true, ""},
		{"a new item is a new failure", []Failure{listed(surface, tools, newOne), listed(sweep, metadata)}, false, `message "step \"each value reaches its request\": sessionConfig.Streaming = false`},
		{"an entry whose divergence is gone", []Failure{listed(surface, tools)}, false, "m.yaml:6 (a message matching /server\\.sessions"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ok, why := Judge(m.Entries, tt.failures)
			assert.Equal(t, tt.ok, ok, why)
			if tt.why != "" {
				assert.Contains(t, strings.Join(why, "\n"), tt.why)
			}
		})
	}
}

// A count-pinned message (the whole list of a listing step, with its count) never explains an
// item: such an entry is reported not observed instead of silently holding on one version only.
func TestCountPinnedEntryDoesNotExplainItems(t *testing.T) {
	m, err := Parse([]byte("- sdk: node\n  scenario: other\n  reason: r\n  link: l\n  message: '^step \"s\": 2 of \\d+ field values did not reach the wire as set:\\n  x = \\[\\]: session\\.create: not sent'\n"),
		"m.yaml", scenarios, known)
	require.NoError(t, err)
	ok, why := Judge(m.Entries, []Failure{{Message: "step \"s\": 2 of 9 field values did not reach the wire as set:\n  x = []: session.create: not sent\n  y = []: session.create: not sent",
		Items: []string{`step "s": x = []: session.create: not sent`, `step "s": y = []: session.create: not sent`}}})
	assert.False(t, ok)
	assert.Contains(t, strings.Join(why, "\n"), "was not observed")
}

// Judge spells out the first unexplained failures of a long sweep and counts the rest.
func TestJudgeCapsUnexplained(t *testing.T) {
	m, err := Parse([]byte("- sdk: node\n  scenario: other\n  reason: r\n  link: l\n  message: 'never'\n"), "m.yaml", scenarios, known)
	require.NoError(t, err)
	f := Failure{Message: "many"}
	for i := 0; i < maxUnexplained+5; i++ {
		f.Items = append(f.Items, fmt.Sprintf("item %d", i))
	}
	_, why := Judge(m.Entries, []Failure{f})
	assert.Len(t, why, maxUnexplained+2) // the first ones, "and 5 more", the entry not observed
	assert.Contains(t, strings.Join(why, "\n"), "and 5 more failures no entry explains")
}

// A malformed known violation is an error naming the file and line.
func TestLoadViolationsNamesTheFileAndLine(t *testing.T) {
	tests := []struct{ name, yaml, want string }{
		{"unknown key", "- sdk: go\n  method: ping\n  message: x\n  reason: r\n  link: l\n  scenario: s\n", `:6: unknown key "scenario"`},
		{"no message", "- sdk: go\n  method: ping\n  reason: r\n  link: l\n", ":1: a known violation needs sdk, method, message, reason and link"},
		{"unknown sdk", "- sdk: cobol\n  method: ping\n  message: x\n  reason: r\n  link: l\n", `:1: unknown sdk "cobol"`},
		{"not a method", "- sdk: go\n  method: not a method\n  message: x\n  reason: r\n  link: l\n", `:1: method "not a method" is not a method name`},
		{"bad pointer", "- sdk: go\n  method: ping answer\n  pointer: '('\n  message: x\n  reason: r\n  link: l\n", `:1: pointer "(" is not a regular expression`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), ViolationsFile)
			require.NoError(t, os.WriteFile(path, []byte(tt.yaml), 0o644))
			_, err := LoadViolations(path, []string{"go"})
			require.Error(t, err)
			assert.Contains(t, err.Error(), filepath.ToSlash(path)+tt.want)
		})
	}
}
