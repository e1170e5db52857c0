package main

import (
	"errors"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestUnpreparableVersionIsNamedInTheReport: a requested version that cannot be prepared is the
// version results.json names for the SDK (with the reason), not the pinned one.
func TestUnpreparableVersionIsNamedInTheReport(t *testing.T) {
	if testing.Short() {
		t.Skip("asks npm for a version that does not exist")
	}
	if _, err := exec.LookPath("npm"); err != nil {
		t.Skip("npm is not installed")
	}
	bin := buildCLI(t)
	reports := t.TempDir()
	cmd := exec.Command(bin, "run", "--root", repoDir(t), "--cache-dir", t.TempDir(), "--report-dir", reports,
		"--sdk", "node", "--sdk-version", "node=0.0.1-no-such-version",
		"--scenario", "a prompt sent and waited for returns the assistant's reply")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	require.True(t, errors.As(err, &ee), "%s", out)
	assert.Equal(t, 2, ee.ExitCode(), "%s", out)
	res, err := report.ReadResults(filepath.Join(reports, "results.json"))
	require.NoError(t, err)
	require.Len(t, res.SDKs, 1)
	assert.Equal(t, report.Unavailable, res.SDKs[0].Status)
	assert.Equal(t, "0.0.1-no-such-version", res.SDKs[0].Version)
	assert.NotEmpty(t, res.SDKs[0].Reason)
}

// TestDoctorSaysANewerJavaSDKMayExist: doctor tells a user with full registry access that Maven
// Central publishes a newer Java line, without claiming to have checked.
func TestDoctorSaysANewerJavaSDKMayExist(t *testing.T) {
	bin := buildCLI(t)
	cmd := exec.Command(bin, "doctor", "--root", repoDir(t))
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "Maven Central itself publishes a 1.x line")
	assert.Contains(t, string(out), "doctor does not query the registry")
}
