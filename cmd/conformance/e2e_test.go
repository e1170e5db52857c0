package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/selftest"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// buildCLI builds the conformance binary once per test process.
func buildCLI(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "conformance")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "%s", out)
	return bin
}

func repoDir(t *testing.T) string {
	dir, err := filepath.Abs("../..")
	require.NoError(t, err)
	return dir
}

// required lists the SDKs that must be available: $CONFORMANCE_REQUIRE_SDKS (set by .ci/run),
// or none, in which case the suite runs on whatever toolchains are present.
func required() []string {
	v := os.Getenv("CONFORMANCE_REQUIRE_SDKS")
	if v == "" {
		return nil
	}
	return strings.Split(v, ",")
}

// TestFeatureSuite runs the whole feature suite through the CLI, on real SDKs, and checks the
// reports the way a CI job reads them.
func TestFeatureSuite(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every SDK: not in -short mode")
	}
	bin := buildCLI(t)
	reports := t.TempDir()
	cmd := exec.Command(bin, "run", "-V", "--report-dir", reports)
	cmd.Dir = repoDir(t)
	out, err := cmd.CombinedOutput()
	t.Logf("conformance run:\n%s", out)
	require.NoError(t, err, "the run must exit 0: every result passed or failed only as expected")

	res, err := report.ReadResults(filepath.Join(reports, "results.json"))
	require.NoError(t, err)
	byName := map[string]report.SDK{}
	for _, s := range res.SDKs {
		byName[s.Name] = s
		if s.Status != report.Available {
			assert.NotEmpty(t, s.Reason, "an unavailable SDK says why: %s", s.Name)
		}
	}
	for _, name := range required() {
		s := byName[name]
		require.Equal(t, report.Available, s.Status, "%s must be available here: %s", name, s.Reason)
		assert.NotEmpty(t, s.Version, "%s names its exact version", name)
	}
	executed := map[string]int{}
	for _, r := range res.Results {
		assert.False(t, report.Failing(r.Status), "%s on %s: %s\n%s", r.Scenario, r.SDK, r.Status, r.Message)
		require.NotEmpty(t, r.Transcript, "%s on %s names its transcript", r.Scenario, r.SDK)
		assert.FileExists(t, filepath.Join(reports, r.Transcript))
		if byName[r.SDK].Status != report.Available {
			assert.Equal(t, report.Unavailable, r.Status, "an unavailable SDK never passes")
			continue
		}
		switch r.Status {
		case report.Unsupported:
			// Unsupported always names a capability the SDK's driver declared false.
			if assert.NotEmpty(t, r.Capability, "%s on %s is unsupported without a capability: %s", r.Scenario, r.SDK, r.Message) {
				assert.False(t, byName[r.SDK].Capabilities[r.Capability], "%s on %s is unsupported for %s, which the driver declared true", r.Scenario, r.SDK, r.Capability)
			}
		case report.Passed, report.XFail:
			executed[r.SDK]++
			entries, err := transcript.Read(filepath.Join(reports, r.Transcript))
			require.NoError(t, err)
			// The evidence judged: the SDK's frames, or (a scenario that never connects, such as
			// the generated types' converters) the driver's answers to the harness's commands.
			assert.True(t, len(transcript.Requests(entries, "")) > 0 || driverAnswered(entries),
				"%s on %s: the transcript holds the SDK's frames or the driver's answers", r.Scenario, r.SDK)
		}
	}
	for _, name := range required() {
		// Node and Go carry every feature of the suite; an older SDK (Java 0.3) runs what it has.
		least := 1
		if name == "node" || name == "go" {
			least = 8
		}
		assert.GreaterOrEqual(t, executed[name], least, "%s executes the suite", name)
	}
	for _, f := range []string{"junit.xml", "summary.md"} {
		assert.FileExists(t, filepath.Join(reports, f))
	}

	// The known divergence shows as an expected failure on its observed evidence, not as a pass.
	if byName["node"].Status == report.Available {
		assert.NoError(t, explicitFalseXFail(res, reports))
	}
	if byName["node"].Status == report.Available && byName["go"].Status == report.Available {
		assert.NoError(t, diffNames(res, "isTerminal explicitly false is omitted on session.create", "tools[0].isTerminal", "node", "go"),
			"the cross-SDK diff names the JSON path")
	}
}

// driverAnswered says whether the driver answered a command of the harness other than hello (a
// liveness probe, which judges nothing) in entries.
func driverAnswered(entries []transcript.Entry) bool {
	cmds := map[string]string{}
	for _, e := range entries {
		var m struct {
			ID      json.RawMessage `json:"id"`
			Cmd     string          `json:"cmd"`
			Outcome string          `json:"outcome"`
		}
		if json.Unmarshal(e.Frame, &m) != nil {
			continue
		}
		switch {
		case e.Dir == transcript.HarnessToDriver && m.Cmd != "":
			cmds[string(m.ID)] = m.Cmd
		case e.Dir == transcript.DriverToHarness && m.Outcome != "" && cmds[string(m.ID)] != "" && cmds[string(m.ID)] != "hello":
			return true
		}
	}
	return false
}

// TestSmokeEveryRequiredSDK runs `conformance smoke` on each SDK CI requires (their drivers are
// cached by TestFeatureSuite, which runs first).
func TestSmokeEveryRequiredSDK(t *testing.T) {
	if testing.Short() || len(required()) == 0 {
		t.Skip("needs CONFORMANCE_REQUIRE_SDKS")
	}
	bin := buildCLI(t)
	for _, sdk := range required() {
		t.Run(sdk, func(t *testing.T) {
			cmd := exec.Command(bin, "smoke", "--sdk", sdk)
			cmd.Dir = repoDir(t)
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "%s", out)
			assert.Contains(t, string(out), "smoke test of "+sdk+" passed")
			assert.NotContains(t, string(out), "FAIL")
		})
	}
}

func TestRunExitCodes(t *testing.T) {
	bin := buildCLI(t)
	tests := []struct {
		name string
		args []string
		want int
	}{
		{"unknown sdk", []string{"run", "--sdk", "cobol"}, 2},
		{"bad pair", []string{"run", "--sdk-version", "node"}, 2},
		{"unknown runner", []string{"run", "--runner", "podman"}, 2},
		{"local bases without docker", []string{"run", "--local-bases"}, 2},
		{"docker runner with a source holding no SDK", []string{"run", "--runner", "docker", "--sdk", "go", "--sdk-source", "go=.", "--report-dir", t.TempDir()}, 2},
		{"bad shard", []string{"run", "--shard", "5/4"}, 2},
		{"merge without shards", []string{"merge", "--report-dir", t.TempDir(), "fixtures/sdks.yaml"}, 2},
		{"unavailable sdk named explicitly", []string{"run", "--sdk", "dotnet", "--report-dir", t.TempDir()}, 2},
	}
	if _, err := exec.LookPath("dotnet"); err == nil {
		tests = tests[:len(tests)-1]
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(bin, tt.args...)
			cmd.Dir = repoDir(t)
			out, err := cmd.CombinedOutput()
			var ee *exec.ExitError
			require.ErrorAs(t, err, &ee, "%s", out)
			assert.Equal(t, tt.want, ee.ExitCode(), "%s", out)
			assert.Contains(t, string(out), "conformance:")
		})
	}
}

// TestSelftestCatchesEveryMutant runs conformance selftest: known regressions injected into
// copies of the pinned Node, Go and Python SDKs must each make a scenario fail.
func TestSelftestCatchesEveryMutant(t *testing.T) {
	if testing.Short() {
		t.Skip("prepares mutated SDKs: not in -short mode")
	}
	for _, tool := range []string{"npm", "go", "python3"} {
		if _, err := exec.LookPath(tool); err != nil && len(required()) == 0 {
			t.Skipf("%s is not installed", tool)
		}
	}
	bin := buildCLI(t)
	cmd := exec.Command(bin, "selftest", "--report-dir", t.TempDir())
	cmd.Dir = repoDir(t)
	out, err := cmd.CombinedOutput()
	t.Logf("conformance selftest:\n%s", out)
	require.NoError(t, err)
	mutants, err := selftest.Load(filepath.Join(repoDir(t), "fixtures", "mutants.yaml"))
	require.NoError(t, err)
	assert.Contains(t, string(out), fmt.Sprintf("all %d mutants caught", len(mutants)))
}
