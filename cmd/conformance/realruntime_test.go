package main

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/copilot-sdk-conformance/conformance/internal/fidelity"
	"github.com/copilot-sdk-conformance/conformance/internal/realruntime"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/text"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/copilot-sdk-conformance/conformance/internal/wire"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sampleSDKs are the SDKs TestRealRuntimeSample runs on both runtimes: each that connects to
// the real runtime, and Java 0.3, which cannot (its expected failure there).
var sampleSDKs = []string{"node", "go", "python", "rust", "java"}

// TestRealRuntimeSample runs a small sample of the features on every SDK on both runtimes
// (`conformance fidelity`, without its per-method probe) and fails on a scenario whose status
// differs between them for no known reason: the reasons known are a runtime capability the real
// runtime lacks (unsupported there, with it) and an SDK that cannot connect to the real runtime
// (every result there its one expected failure, and the run says so with the SDK's words and
// the frame). So a stand-in change that makes it answer unlike the real runtime, in a way an SDK
// notices, fails here on every run. On Node it also checks the proxy: the agent loop runs for
// real against the scripted model, the real runtime's frames can be delivered split or
// coalesced, the processes are reused, and the transcript keeps the SDK's session.create as
// sent, with the provider the proxy added in a note of its own. The whole comparison is
// `conformance fidelity` (README, "The real runtime").
func TestRealRuntimeSample(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every SDK against the real runtime: not in -short mode")
	}
	bin := buildCLI(t)
	dir := t.TempDir()
	// Four scenarios of an SDK at once: the real runtime's turns must end within the 20 s a
	// step waits for the reply, on a loaded machine too.
	code, out := runCLI(t, bin, "fidelity", "--no-probe", "--jobs", "4", "--sdk", strings.Join(sampleSDKs, ","), "--report-dir", dir,
		"features/behaviour/terminal_tools.feature", "features/behaviour/framing.feature")
	require.Equal(t, 0, code, "%s", out)
	reports := filepath.Join(dir, "real")
	res, err := report.ReadResults(filepath.Join(reports, "results.json"))
	require.NoError(t, err, "%s", out)
	var fid fidelity.Report
	b, err := os.ReadFile(filepath.Join(dir, "fidelity.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &fid))
	assert.True(t, strings.HasPrefix(res.Harness.Runtime, "real: "), "results.json names the runtime: %q", res.Harness.Runtime)
	// The runtime processes are reused between scenarios, each left without a session first.
	assert.Regexp(t, `real runtime: [1-9]\d* process\(es\) started, [1-9]\d* scenario\(s\) served by one an earlier scenario left clean`, out)

	ran := map[string]report.SDK{}
	for _, s := range res.SDKs {
		if s.Status == report.Available {
			ran[s.Name] = s
		} else if slices.Contains(required(), s.Name) {
			t.Fatalf("%s is required here but did not run: %s\n%s", s.Name, s.Reason, out)
		}
	}
	if _, ok := ran["node"]; !ok {
		t.Skipf("node is not available here:\n%s", out)
	}
	real := map[string]report.Result{}
	for _, r := range res.Results {
		real[r.Feature+": "+r.Scenario+" @"+report.Target(r.SDK, r.Version)] = r
	}
	for _, s := range ran {
		target := report.Target(s.Name, s.Version)
		assert.Positive(t, fid.Counts[target].Total, "%s: compared", target)
		why, incompatible := fid.Incompatible[target]
		if s.Name == "java" {
			// Java 0.3 reads ping's timestamp as a long (README, "The real runtime").
			assert.True(t, incompatible, "java cannot connect to the real runtime")
			assert.Contains(t, why, "Cannot deserialize value of type `long`")
			assert.True(t, strings.HasPrefix(s.Runtime, report.CannotConnectReal+": "), "the run says java cannot connect: %q", s.Runtime)
			assert.Contains(t, s.Runtime, `"timestamp":"`, "with the frame it refused")
			continue
		}
		assert.False(t, incompatible, "%s connects to the real runtime: %s", target, why)
		assert.Empty(t, s.Runtime, "%s connects to the real runtime", target)
	}
	for _, target := range slices.Sorted(maps.Keys(fid.Counts)) {
		t.Logf("%s: %d of %d results the same on both runtimes", target, fid.Counts[target].Same, fid.Counts[target].Total)
	}
	if i := strings.Index(out, "## Time"); i >= 0 {
		t.Log(strings.TrimSpace(strings.SplitN(out[i:], "\nreports:", 2)[0]))
	}
	for _, d := range fid.Diffs {
		if _, out := fid.Incompatible[d.SDK]; out {
			continue
		}
		r := real[d.Feature+": "+d.Scenario+" @"+d.SDK]
		if r.Status == report.Unsupported && realruntime.Lacking[r.Capability] != "" && r.Message != "" {
			continue // a runtime capability the real runtime lacks, with the reason (its own, or the scenario's: Proxy.Plays)
		}
		// The real agent loop is timed by the real runtime: a difference is run again on it
		// once, and only one it repeats fails (a single one is logged: "a terminal tool after an
		// ordinary one ends the turn" ended after the first tool once on rust, once on node, and
		// passed in every other run; probable cause, fixed: steps/turns.go roundsAfter).
		again := t.TempDir()
		sdk, _, _ := strings.Cut(d.SDK, "@")
		runCLI(t, bin, "run", "--runtime", "real", "--sdk", sdk, "--report-dir", again, "--scenario", d.Scenario, filepath.Join("features", d.Feature))
		if rr, err := report.ReadResults(filepath.Join(again, "results.json")); err == nil && len(rr.Results) == 1 && rr.Results[0].Status == d.StandIn {
			t.Logf("FLAKY on the real runtime: %s: %s on %s: stand-in %s, real %s (%s), %s when run again",
				d.Feature, d.Scenario, d.SDK, d.StandIn, d.Real, text.FirstLine(d.Cause), rr.Results[0].Status)
			continue
		}
		assert.Fail(t, "a scenario's status differs between the runtimes for no known reason",
			"%s: %s on %s: stand-in %s, real %s: %s (and again when run alone)", d.Feature, d.Scenario, d.SDK, d.StandIn, d.Real, d.Cause)
	}

	status := map[string]report.Result{}
	for _, r := range res.Results {
		if r.SDK == "node" {
			status[r.Feature+": "+r.Scenario] = r
		}
	}
	for _, s := range []string{
		"behaviour/terminal_tools.feature: a successful terminal tool ends the turn with no further model round",
		"behaviour/terminal_tools.feature: a failed ordinary tool is reported to the model, which goes on",
		"behaviour/framing.feature: non-ASCII text both ways",
		// The real runtime's own frames, delivered split and coalesced by the proxy.
		"behaviour/framing.feature: frames split over many reads",
		"behaviour/framing.feature: several frames in one read",
	} {
		assert.Equal(t, report.Passed, status[s].Status, "%s: %s", s, status[s].Message)
	}
	surrogate := status["behaviour/framing.feature: an escaped unpaired surrogate from the runtime is read"]
	assert.Equal(t, report.Unsupported, surrogate.Status)
	assert.Equal(t, "runtime.script.escapes", surrogate.Capability)
	assert.Equal(t, realruntime.Lacking["runtime.script.escapes"], surrogate.Message)

	// The SDK's own frame, untouched, and the forwarded one apart.
	entries, err := transcript.Read(filepath.Join(reports, status["behaviour/terminal_tools.feature: a successful terminal tool ends the turn with no further model round"].Transcript))
	require.NoError(t, err)
	var sent, injected map[string]any
	for _, e := range entries {
		var m wire.Message
		if len(e.Frame) == 0 || json.Unmarshal(e.Frame, &m) != nil || m.Method != "session.create" {
			continue
		}
		var p map[string]any
		require.NoError(t, json.Unmarshal(m.Params, &p))
		switch {
		case e.Dir == transcript.SDKToRuntime:
			sent = p
		case e.Kind == realruntime.KindInjected:
			injected = p
		}
	}
	require.NotNil(t, sent, "the SDK's session.create is recorded")
	require.NotNil(t, injected, "the forwarded session.create is recorded apart")
	assert.NotContains(t, sent, "provider", "the SDK sent no provider")
	assert.Contains(t, injected, "provider")
	delete(injected, "provider")
	delete(injected, "model")
	delete(sent, "model")
	assert.Equal(t, sent, injected, "the proxy adds the provider and nothing else")
}
