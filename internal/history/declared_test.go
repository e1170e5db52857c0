package history

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/copilot-sdk-conformance/conformance/internal/canon"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
)

// recordedDeclarations reads what the full runs of node 1.0.11 and 1.0.13 recorded about the
// SDK (testdata/declared: their results.json's coverage, trimmed to the methods, and their
// surface observations, from `conformance history --sdk node --from 1.0.10 --to 1.0.14`).
func recordedDeclarations(t *testing.T, version string) (*report.Coverage, map[string]string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "declared", "node@"+version+".json"))
	require.NoError(t, err)
	var d struct {
		Coverage     *report.Coverage  `json:"coverage"`
		Observations map[string]string `json:"observations"`
	}
	require.NoError(t, json.Unmarshal(b, &d))
	return d.Coverage, d.Observations
}

func declaredOf(t *testing.T, version string) declared {
	cov, obs := recordedDeclarations(t, version)
	return declarations(&report.Results{Coverage: cov,
		Results: []report.Result{{SDK: "node", Observations: obs}}}, "node", version)
}

// TestExplainRecorded classifies the wire changes the real 1.0.11 → 1.0.13 run found with what
// the two versions' runs recorded: each explained kind is chosen for the change it names, and
// a change of what an existing method or field sends stays unexplained (silent).
func TestExplainRecorded(t *testing.T) {
	prev, cur := declaredOf(t, "1.0.11"), declaredOf(t, "1.0.13")
	sent := func(request string) Payload {
		return Payload{Request: request, Before: "not sent", After: "sent"}
	}
	gone := func(request string) Payload {
		return Payload{Request: request, Before: "sent", After: "not sent"}
	}
	gained := func(request, path, value string) Payload {
		return Payload{Request: request, Path: path, Before: canon.Absent, After: value}
	}
	tests := []struct {
		name    string
		payload []Payload // one scenario's payload changes; the first is checked
		newly   []string  // the surface declarations the scenario newly records
		kind    string
		because string
	}{
		{"a method 1.0.11's generated layer lacked", []Payload{sent("catalog.search#1")}, nil, MethodGenerated,
			"1.0.11's generated sweep: @github/copilot-sdk 1.0.11: catalog.search is not in this SDK's generated layer"},
		{"a method 1.0.11 sent in no scenario", []Payload{sent("session.detach#1")}, nil, MethodGenerated,
			"1.0.11 sent session.detach in no scenario"},
		{"a method that replaces one no longer sent stays silent", []Payload{sent("session.detach#1"), gone("session.destroy#1")}, nil, "", ""},
		{"the request no longer sent for no declared reason stays silent", []Payload{gone("session.destroy#1"), sent("session.detach#1")}, nil, "", ""},
		{"another call of a method 1.0.11 sent stays silent", []Payload{sent("connect#2")}, nil, "", ""},
		{"another call of it where the scenario newly declares fields", []Payload{sent("session.create#217"), gone("session.destroy#3")},
			[]string{"session.create askuservariant", "session.create featureflags"}, FieldDeclared,
			"one session.create more per field the scenario's surface probe newly declares on 1.0.13 (session.create askuservariant, session.create featureflags)"},
		{"a method never sent is not explained by the probe's new fields", []Payload{sent("session.detach#9"), gone("session.destroy#3")},
			[]string{"session.create featureflags"}, "", ""},
		{"a field 1.0.13's surface newly declares", []Payload{gained("connect#1", "clientInfo", `{"editorName":"x"}`)}, nil, FieldDeclared,
			`1.0.13's surface newly declares "connect clientinfo" (connect.clientInfo | not sent)`},
		{"a handler's registration 1.0.13's surface newly declares", []Payload{gained("session.create#1", "gitHubTokenProviderRegistrationId", `"<uuid>"`)},
			nil, FieldDeclared, `1.0.13's surface newly declares "session.create handler githubtokenprovider" (gitHubTokenProviderRegistrationId="<uuid>")`},
		{"a field gained that no declaration names stays silent", []Payload{gained("connect#1", "supportedTaskKinds", `["agent"]`)}, nil, "", ""},
		{"a field declared by both versions stays silent", []Payload{gained("session.create#1", "availableTools", `[]`)}, nil, "", ""},
		{"a declared field's value changed stays silent", []Payload{{Request: "session.create#1", Path: "featureFlags",
			Before: `{"a":true}`, After: `{"a":false}`}}, nil, "", ""},
		{"params of a method both versions send stay silent", []Payload{{Request: "session.create#1", Path: "managedSettings.permissions.disableBypassPermissionsMode",
			Before: `"disable"`, After: `"x"`}}, nil, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ps := append([]Payload(nil), tt.payload...)
			explain(ps, prev, cur, tt.newly)
			assert.Equal(t, tt.kind, ps[0].Explained)
			assert.Equal(t, tt.because, ps[0].Because)
		})
	}
}

// TestExplainRemoved: a method no longer sent is method-removed when the new run's schema no
// longer has it or its generated layer lacks it, and stays silent otherwise; a run without
// coverage explains nothing.
func TestExplainRemoved(t *testing.T) {
	withCatalog := func(version string, methods []string, notGenerated map[string]string) declared {
		d := declared{version: version, catalog: map[string]bool{}, sent: map[string]bool{}, notGenerated: notGenerated}
		for _, m := range methods {
			d.catalog[m], d.sent[m] = true, true
		}
		return d
	}
	gone := func(m string) []Payload { return []Payload{{Request: m + "#1", Before: "sent", After: "not sent"}} }
	tests := []struct {
		name      string
		payload   []Payload
		prev, cur declared
		kind      string
	}{
		{"the schema no longer has it", gone("a.b"), withCatalog("1", []string{"a.b", "c.d"}, nil), withCatalog("2", []string{"c.d"}, nil), MethodRemoved},
		{"the generated layer lacks it", gone("a.b"), withCatalog("1", []string{"a.b"}, nil),
			withCatalog("2", []string{"a.b"}, map[string]string{"a.b": "x 2: a.b is not in this SDK's generated layer"}), MethodRemoved},
		{"still in the schema and generated", gone("a.b"), withCatalog("1", []string{"a.b"}, nil), withCatalog("2", []string{"a.b"}, nil), ""},
		{"new in the schema", []Payload{{Request: "c.d#1", Before: "not sent", After: "sent"}},
			withCatalog("1", []string{"a.b"}, nil), withCatalog("2", []string{"a.b", "c.d"}, nil), MethodGenerated},
		{"no coverage: nothing is explained", []Payload{{Request: "c.d#1", Before: "not sent", After: "sent"}},
			declarations(&report.Results{}, "node", "1"), declarations(&report.Results{}, "node", "2"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			explain(tt.payload, tt.prev, tt.cur, nil)
			assert.Equal(t, tt.kind, tt.payload[0].Explained)
		})
	}
}

// TestRecordedHandshakeStaysSilent builds the recorded history with what the full runs of
// 1.0.11 and 1.0.13 recorded: the handshake's real changes (session.destroy replaced by
// session.detach, connect gaining supportedTaskKinds) are what existing calls send, so they
// stay silent wire changes though 1.0.11 never sent session.detach.
func TestRecordedHandshakeStaysSilent(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("testdata", "recorded"))
	require.NoError(t, err)
	old, err := Read(filepath.Join(root, "history.json"))
	require.NoError(t, err)
	runs := old.Runs(root)
	for i := range runs {
		if v := runs[i].Version; v == "1.0.11" || v == "1.0.13" {
			cov, obs := recordedDeclarations(t, v)
			runs[i].Results.Coverage = cov
			runs[i].Results.Results[0].Observations = obs
		}
	}
	h := Build(runs, nil, Options{SDK: old.SDK, Root: root})
	v := h.Versions[3]
	require.Equal(t, "1.0.13", v.Version)
	kinds := map[string]string{}
	for _, w := range v.Wire {
		kinds[w.Headline] = w.Kind
	}
	assert.Equal(t, map[string]string{
		`connect gained supportedTaskKinds (["agent","client","shell"])`: SilentWire,
		"no longer sends session.destroy":                                SilentWire,
		"now sends session.detach":                                       SilentWire,
	}, kinds)
	assert.Equal(t, 1, h.Counts[SilentWire])
}

// call is one request a fake scenario sends.
type call struct{ method, params string }

// writeCalls writes one fake run whose scenarios send the given requests.
func writeCalls(t *testing.T, dir, version string, cov *report.Coverage, obs map[string]string,
	statuses map[string]string, scenarios map[string][]call) *report.Results {
	t.Helper()
	res := &report.Results{Schema: 1, Totals: map[string]int{}, Coverage: cov,
		SDKs: []report.SDK{{Name: sdkUnder, Version: version, Status: report.Available}}}
	for _, name := range slices.Sorted(maps.Keys(scenarios)) {
		r := report.Result{Feature: feature, Scenario: name, SDK: sdkUnder, Version: version, Status: statuses[name],
			Transcript: report.TranscriptRel(sdkUnder, feature, name)}
		if r.Status == "" {
			r.Status = report.Passed
		}
		if len(res.Results) == 0 {
			r.Observations = obs
		}
		rec, err := transcript.New(filepath.Join(dir, r.Transcript))
		require.NoError(t, err)
		for i, c := range scenarios[name] {
			rec.Add(transcript.Entry{Dir: transcript.SDKToRuntime, Conn: "c1",
				Frame: json.RawMessage(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, i+1, c.method, c.params))})
		}
		require.NoError(t, rec.Close())
		res.Results = append(res.Results, r)
		res.Totals[r.Status]++
	}
	return res
}

// TestBuildKeepsSilentForExistingMethods: a scenario whose every payload change is explained
// takes the explained kind; one with a change of an existing method's params stays a silent
// wire change; a wire change explained in every scenario is of the explained kind even where
// it came with a regression.
func TestBuildKeepsSilentForExistingMethods(t *testing.T) {
	root := t.TempDir()
	covPrev := &report.Coverage{
		Exercised: []report.MethodUse{{Method: "a.existing", Direction: "sent", SDKs: []string{sdkUnder}},
			{Method: "session.create", Direction: "sent", SDKs: []string{sdkUnder}}},
		Sweep: []report.SweepCoverage{{SDK: sdkUnder, Uncovered: []report.Uncovered{{Name: "b.new", Kind: "method",
			Reason: "unsupported: sdk 1: b.new is not in this SDK's generated layer"}}}},
	}
	covCur := &report.Coverage{Exercised: append(covPrev.Exercised, report.MethodUse{Method: "b.new", Direction: "sent", SDKs: []string{sdkUnder}})}
	run := func(version string, cov *report.Coverage, obs, statuses map[string]string, sc map[string][]call) Run {
		dir := filepath.Join(root, report.Target(sdkUnder, version))
		return Run{Version: version, Dir: dir, Results: writeCalls(t, dir, version, cov, obs, statuses, sc)}
	}
	x1, x2, b := call{"a.existing", `{"x":1}`}, call{"a.existing", `{"x":2}`}, call{"b.new", `{}`}
	runs := []Run{
		run("1", covPrev, map[string]string{"surface session.create model": "model"}, nil, map[string][]call{
			"sweep": {x1}, "params": {x1}, "mixed": {x1}, "regressed": {x1},
			"declared": {{"session.create", `{"model":"m"}`}},
		}),
		run("2", covCur, map[string]string{"surface session.create model": "model", "surface session.create featureflags": "featureFlags"},
			map[string]string{"regressed": report.Failed}, map[string][]call{
				"sweep": {x1, b}, "params": {x2}, "mixed": {x2, b}, "regressed": {x1, b},
				"declared": {{"session.create", `{"model":"m","featureFlags":{"a":true}}`}},
			}),
	}
	h := Build(runs, nil, Options{SDK: sdkUnder, Root: root})
	kinds := map[string]string{}
	for _, c := range h.Versions[1].Changes {
		kinds[c.Scenario] = c.Kind
	}
	assert.Equal(t, map[string]string{
		"sweep":     MethodGenerated, // only b.new, which version 1's generated layer lacked
		"declared":  FieldDeclared,   // featureFlags, which version 2's surface newly declares
		"params":    SilentWire,      // a.existing's params: sent by both, changed
		"mixed":     SilentWire,      // b.new explained, a.existing's params not
		"regressed": Regression,
	}, kinds)
	wires := map[string]Wire{}
	for _, w := range h.Versions[1].Wire {
		wires[w.Headline] = w
	}
	require.Len(t, wires, 3)
	assert.Equal(t, SilentWire, wires[`a.existing x: 1 → 2`].Kind)
	assert.True(t, wires[`a.existing x: 1 → 2`].Silent)
	gen := wires["now sends b.new"]
	assert.Equal(t, MethodGenerated, gen.Kind)
	assert.False(t, gen.Silent)
	assert.Contains(t, gen.Because, "b.new is not in this SDK's generated layer")
	assert.Len(t, gen.Scenarios, 3)
	assert.Equal(t, FieldDeclared, wires[`session.create gained featureFlags ({"a":true})`].Kind)
	assert.Equal(t, map[string]int{SilentWire: 1, MethodGenerated: 1, FieldDeclared: 1}, h.WireCounts)
	assert.Equal(t, []string{"a.existing x: 1 → 2", "now sends b.new", `session.create gained featureFlags ({"a":true})`},
		[]string{h.Versions[1].Wire[0].Headline, h.Versions[1].Wire[1].Headline, h.Versions[1].Wire[2].Headline},
		"silent first, then the explained ones grouped per kind")

	md := Markdown(h)
	assert.Contains(t, md, "- **silent wire change**: `a.existing x: 1 → 2`")
	assert.Contains(t, md, "- **method-generated**: 1 wire change in 3 scenarios: `now sends b.new`")
	assert.NotContains(t, md, "silent wire change**: `now sends b.new`")
	assert.Contains(t, h.Versions[1].Summary(), "a.existing x: 1 → 2")
	assert.NotContains(t, h.Versions[1].Summary(), "now sends b.new", "the timeline names silent changes, counts the explained")
}

// TestMarkdownStaysWithinBudget renders a 20-version history as large as the node 1.0.0 →
// previews one (hundreds of wire changes per version, each shown by dozens of scenarios):
// history.md opens with the timeline and every regression, and stays within the budget with
// pointers to history.html and history.json.
func TestMarkdownStaysWithinBudget(t *testing.T) {
	h := &History{Schema: 1, SDK: sdkUnder, Command: "conformance history --sdk node --from 1.0.0 --previews",
		Counts: map[string]int{}, WireCounts: map[string]int{}}
	long := strings.Repeat("a long scenario name that goes on ", 4)
	for i := 0; i < 20; i++ {
		v := Version{Version: fmt.Sprintf("1.0.%d", i), Status: report.Available, Totals: map[string]int{report.Passed: 140}}
		if i > 0 {
			v.Previous = fmt.Sprintf("1.0.%d", i-1)
		}
		for j := 0; i > 0 && j < 200; j++ {
			kind := []string{SilentWire, MethodGenerated, FieldDeclared, MethodRemoved}[j%4]
			w := Wire{Headline: fmt.Sprintf("now sends session.method%d.%d", i, j), Method: "m", Kind: kind, Silent: kind == SilentWire}
			if kind != SilentWire {
				w.Because = "the previous version's generated sweep: m is not in this SDK's generated layer"
			}
			for s := 0; s < 60; s++ {
				w.Scenarios = append(w.Scenarios, Ref{Feature: "schema/generated_rpc.feature", Scenario: fmt.Sprintf("%s %d", long, s),
					Request: "m#1", Before: "node@x/transcripts/" + long, After: "node@y/transcripts/" + long})
			}
			v.Wire = append(v.Wire, w)
			h.WireCounts[kind]++
			v.Changes = append(v.Changes, Change{Kind: kind, Feature: "f", Scenario: fmt.Sprintf("s%d", j)})
			h.Counts[kind]++
		}
		for j := 0; i > 0 && j < 30; j++ {
			v.Changes = append(v.Changes, Change{Kind: Fix, Feature: "f", Scenario: long, From: report.Failed, To: report.Passed,
				Message: long, Before: long, After: long, NoLongerFails: []string{long, long + "2", long + "3"}, Rerun: long})
			h.Counts[Fix]++
		}
		if i%7 == 3 {
			v.Changes = append(v.Changes, Change{Kind: Regression, Feature: "f", Scenario: fmt.Sprintf("regressed in %s", v.Version),
				From: report.Passed, To: report.Failed, Message: long, NowFails: []string{long}})
			h.Counts[Regression]++
		}
		h.Versions = append(h.Versions, v)
	}
	md := Markdown(h)
	if os.Getenv("HISTORY_MD") != "" {
		require.NoError(t, os.WriteFile(os.Getenv("HISTORY_MD"), []byte(md), 0o644))
	}
	assert.LessOrEqual(t, len(md), MarkdownBudget)
	timeline, regressions, perVersion := strings.Index(md, "| version |"), strings.Index(md, "\n## Regressions"), strings.Index(md, "\n## Changes per version")
	assert.True(t, 0 < timeline && timeline < regressions && regressions < perVersion, "timeline, regressions, then the versions")
	for _, v := range []string{"1.0.3", "1.0.10", "1.0.17"} {
		assert.Contains(t, md[regressions:perVersion], "- **regression** ("+v+"): f: regressed in "+v)
	}
	assert.Contains(t, md, "(history.html, history.json)")
	assert.Contains(t, md, "- **method-generated**: 50 wire changes in ")
	for _, v := range h.Versions {
		assert.Contains(t, md, "| "+v.Version+" | available |", "every version is in the timeline")
	}
}
