package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The end-to-end test's checks of the known divergence, as functions that read only what they
// claim to check, so that a unit test can feed them a run without the payload.

// explicitFalseXFail checks that node's "isTerminal explicitly false is omitted on
// session.create" is xfail for the reason the entry names, on the observed evidence: the
// failing assertion's own message (not the manifest's reason appended after it) and the
// session.create frame in its transcript carrying tools[0].isTerminal false.
func explicitFalseXFail(res *report.Results, dir string) error {
	for _, r := range res.Results {
		if r.SDK != "node" || r.Scenario != "isTerminal explicitly false is omitted on session.create" {
			continue
		}
		if r.Status != report.XFail {
			return fmt.Errorf("status %s, want xfail: %s", r.Status, r.Message)
		}
		observed, _, _ := strings.Cut(r.Message, "\nknown divergence")
		if !strings.Contains(observed, "want the key absent, got false") {
			return fmt.Errorf("the observed failure %q does not show the explicit false", observed)
		}
		entries, err := transcript.Read(filepath.Join(dir, r.Transcript))
		if err != nil {
			return err
		}
		reqs := transcript.Requests(entries, "session.create")
		if len(reqs) == 0 {
			return fmt.Errorf("%s holds no session.create request", r.Transcript)
		}
		var p struct {
			Tools []map[string]json.RawMessage `json:"tools"`
		}
		if err := json.Unmarshal(reqs[0].Params, &p); err != nil {
			return err
		}
		if len(p.Tools) == 0 || string(p.Tools[0]["isTerminal"]) != "false" {
			return fmt.Errorf("the session.create frame does not carry tools[0].isTerminal false: %s", reqs[0].Params)
		}
		return nil
	}
	return fmt.Errorf("no node result for the explicit-false scenario")
}

// diffNames checks that the cross-SDK comparison (results.json's comparisons, not the summary's
// other sections) of scenario names path with different values for sdks a and b.
func diffNames(res *report.Results, scenario, path, a, b string) error {
	for _, c := range res.Comparisons {
		if c.Scenario != scenario {
			continue
		}
		for _, d := range c.Differences {
			if d.Path == path && d.Values[a] != d.Values[b] {
				return nil
			}
		}
		return fmt.Errorf("the comparison of %q has no difference at %s between %s and %s: %+v", scenario, path, a, b, c.Differences)
	}
	return fmt.Errorf("no comparison of %q", scenario)
}

// Each check fails on a run that lacks its subject, even when the text it used to match on is
// present elsewhere (the manifest's reason, the xfail section).
func TestE2EChecksFailWithoutThePayload(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, frames ...string) string {
		rec, err := transcript.New(filepath.Join(dir, name))
		require.NoError(t, err)
		for _, f := range frames {
			rec.Frame("c1", transcript.SDKToRuntime, []byte(f))
		}
		require.NoError(t, rec.Close())
		return name
	}
	withFalse := write("with.ndjson", `{"jsonrpc":"2.0","id":1,"method":"session.create","params":{"tools":[{"name":"lookup","isTerminal":false}]}}`)
	without := write("without.ndjson", `{"jsonrpc":"2.0","id":1,"method":"session.create","params":{"tools":[{"name":"lookup"}]}}`)
	reason := "\nknown divergence (fixtures/expected-failures.yaml:17): an explicit isTerminal: false is sent as \"isTerminal\": false; want the key absent, got false"
	result := func(msg, tr string) *report.Results {
		return &report.Results{Results: []report.Result{{SDK: "node", Scenario: "isTerminal explicitly false is omitted on session.create",
			Status: report.XFail, Message: msg, Transcript: tr}}}
	}
	observed := `step "…": session.create tools[0].isTerminal (tool "lookup"): want the key absent, got false`
	assert.NoError(t, explicitFalseXFail(result(observed+reason, withFalse), dir))
	assert.Error(t, explicitFalseXFail(result("step failed: something else"+reason, withFalse), dir), "the reason's text is not the observation")
	assert.Error(t, explicitFalseXFail(result(observed+reason, without), dir), "the frame must carry the explicit false")

	diff := func(path string) *report.Results {
		return &report.Results{Comparisons: []report.Comparison{{Scenario: "s", SDKs: []string{"node", "go"},
			Differences: []report.Difference{{Request: "session.create#1", Path: path, Values: map[string]string{"node": "false", "go": "(absent)"}}}}}}
	}
	assert.NoError(t, diffNames(diff("tools[0].isTerminal"), "s", "tools[0].isTerminal", "node", "go"))
	assert.Error(t, diffNames(diff("tools[0].name"), "s", "tools[0].isTerminal", "node", "go"))
	assert.Error(t, diffNames(&report.Results{}, "s", "tools[0].isTerminal", "node", "go"), "an xfail section naming the path is no diff")
}
