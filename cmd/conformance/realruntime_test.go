package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/copilot-sdk-conformance/conformance/internal/realruntime"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/copilot-sdk-conformance/conformance/internal/wire"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRealRuntimeSample runs a small sample of the features on the Node SDK against the real
// Copilot runtime (the one its pinned platform package ships) behind the recording proxy: the
// agent loop runs for real against the scripted model, what the real runtime cannot be scripted
// to do is unsupported with its runtime capability, the real runtime's frames can be delivered
// split or coalesced, and the transcript keeps the SDK's
// session.create as sent, with the provider the proxy added in a note of its own. The full
// comparison is `conformance fidelity` (README, "The real runtime").
func TestRealRuntimeSample(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the Node SDK against the real runtime: not in -short mode")
	}
	bin := buildCLI(t)
	reports := t.TempDir()
	code, out := runCLI(t, bin, "run", "--sdk", "node", "--runtime", "real", "--report-dir", reports,
		"features/behaviour/terminal_tools.feature", "features/behaviour/framing.feature")
	res, err := report.ReadResults(filepath.Join(reports, "results.json"))
	if err != nil || len(res.SDKs) == 0 || res.SDKs[0].Status != report.Available {
		if slices.Contains(required(), "node") {
			t.Fatalf("node is required here but did not run (exit %d):\n%s", code, out)
		}
		t.Skipf("node is not available here:\n%s", out)
	}
	require.Equal(t, 0, code, "%s", out)
	assert.True(t, strings.HasPrefix(res.Harness.Runtime, "real: "), "results.json names the runtime: %q", res.Harness.Runtime)
	// The runtime processes are reused between scenarios, each left without a session first.
	assert.Regexp(t, `real runtime: [1-9]\d* process\(es\) started, [1-9]\d* scenario\(s\) served by one an earlier scenario left clean`, out)

	status := map[string]report.Result{}
	for _, r := range res.Results {
		status[r.Feature+": "+r.Scenario] = r
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
