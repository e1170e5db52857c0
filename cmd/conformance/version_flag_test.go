package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMalformedSDKVersion: a malformed --sdk-version exits 2 naming the argument before any SDK
// is prepared: nothing lands in the cache, nothing is executed.
func TestMalformedSDKVersion(t *testing.T) {
	bin := buildCLI(t)
	for _, arg := range []string{"node=1.0.14; touch x", "python=../../etc", "go=master", "java=../1.0", "cobol=1.0.0"} {
		t.Run(arg, func(t *testing.T) {
			cache, reports, wd := t.TempDir(), t.TempDir(), t.TempDir()
			cmd := exec.Command(bin, "run", "--root", repoDir(t), "--sdk-version", arg, "--cache-dir", cache, "--report-dir", reports)
			cmd.Dir = wd
			out, err := cmd.CombinedOutput()
			var ee *exec.ExitError
			require.True(t, errors.As(err, &ee), "%s", out)
			assert.Equal(t, 2, ee.ExitCode(), "%s", out)
			assert.Contains(t, string(out), "--sdk-version "+arg)
			left, _ := os.ReadDir(cache)
			assert.Empty(t, left, "nothing prepared")
			assert.NoFileExists(t, filepath.Join(wd, "x"))
		})
	}
}
