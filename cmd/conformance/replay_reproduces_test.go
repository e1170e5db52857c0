package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A replay of a run gives every result the run gave: the same statuses and messages (the
// manifest applied), so `diff RUN REPLAY` finds no change; and a single transcript replayed
// beside its run's results.json is classified as the run classified it (an expected failure is
// xfail, not failed). Node and Go, on features with expected failures, a spawned runtime's
// argv (handshake) and client options probed on runtimes the SDK started itself (surface/fields:
// replayed from the spawns' recorded facts), and requests the runtime sends while another is held
// (pending_requests: the recorded phase written when the hold is answered); hook_requests' messages
// name requests by their number in the transcript. resolved_requests has the runtime send events
// itself on a session only the recording holds (a replay's runtime plays them from it, with what
// followed each); options.feature has scenarios whose names quote a secret, recorded redacted.
func TestReplayReproducesTheRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the Node and Go SDKs")
	}
	bin := buildCLI(t)
	features := []string{"features/tools/is_terminal.feature", "features/session/connect_options.feature", "features/session/handshake.feature",
		"features/surface/fields.feature", "features/behaviour/pending_requests.feature", "features/behaviour/hook_requests.feature",
		"features/behaviour/resolved_requests.feature", "features/session/options.feature"}
	run, replayed := t.TempDir(), t.TempDir()
	code, out := runCLI(t, bin, append([]string{"run", "--sdk", "node,go", "--report-dir", run}, features...)...)
	require.Less(t, code, 2, "%s", out)
	res, err := report.Load(filepath.Join(run, "results.json"))
	require.NoError(t, err)
	for _, s := range res.SDKs {
		if s.Status != report.Available {
			t.Skipf("%s is unavailable: %s", s.Name, s.Reason)
		}
	}
	code, out = runCLI(t, bin, "replay", filepath.Join(run, "results.json"), "--report-dir", replayed)
	require.Less(t, code, 2, "%s", out)

	code, out = runCLI(t, bin, "diff", filepath.Join(run, "results.json"), filepath.Join(replayed, "results.json"))
	assert.Equal(t, 0, code, "%s", out)
	assert.True(t, strings.HasSuffix(out, "\nno changes\n"), "%s", out) // after what was compared
	assert.NotContains(t, out, "PAYLOAD CHANGES", "a replay's requests pair with the run's, case by case")
	back, err := report.Load(filepath.Join(replayed, "results.json"))
	require.NoError(t, err)
	require.False(t, back.Incomplete(), "%+v", back.Completeness)
	assert.Equal(t, res.Totals, back.Totals)
	assert.Equal(t, res.CrossSDKFailing(), back.CrossSDKFailing(), "the cross-SDK judgement of the fields found on spawned runtimes")
	// Messages exactly, down to a request's place in its transcript ("request #16"): a replay's
	// transcript grows entry for entry as the recorded one did.
	type verdict struct{ Status, Message, Expected string }
	of := func(r report.Result) verdict { return verdict{r.Status, r.Message, r.Expected} }
	got := map[string]verdict{}
	for _, r := range back.Results {
		got[r.SDK+" "+r.Feature+" "+r.Scenario] = of(r)
	}
	xfails := 0
	for _, r := range res.Results {
		assert.Equal(t, of(r), got[r.SDK+" "+r.Feature+" "+r.Scenario], "%s on %s", r.Scenario, r.SDK)
		if r.Status != report.XFail {
			continue
		}
		xfails++
		code, out := runCLI(t, bin, "replay", filepath.Join(run, r.Transcript))
		assert.Equal(t, 0, code, "%s", out)
		assert.Contains(t, out, "\nxfail: ", "a lone transcript is judged with the manifest: %s", out)
	}
	assert.NotZero(t, xfails, "the features have expected failures on these SDKs")
}
