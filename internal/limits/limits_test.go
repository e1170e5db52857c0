//go:build unix

package limits

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestJobsFitTheOpenFileLimit(t *testing.T) {
	tests := []struct {
		name        string
		jobs, units int
		limit       uint64
		want        int
	}{
		{"a high limit keeps the jobs", 32, 3, 1 << 20, 32},
		{"ulimit -n 256 with three SDKs", 32, 3, 256, (256 - Reserve) / (3 * FilesPerScenario)},
		{"ulimit -n 256 with one SDK", 32, 1, 256, (256 - Reserve) / FilesPerScenario},
		{"asked for fewer than fit", 4, 3, 256, 4},
		{"a limit below the reserve still runs one", 32, 6, 32, 1},
		{"six SDKs at 1024", 32, 6, 1024, (1024 - Reserve) / (6 * FilesPerScenario)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Jobs(tt.jobs, tt.units, tt.limit))
		})
	}
}

// The limits are the process's own, so the test lowers them in a child process (this test
// binary run again): a low soft limit is raised to the hard one; a low hard limit sizes the jobs.
func TestOpenFilesInAChildWithLowLimits(t *testing.T) {
	if soft := os.Getenv("LIMITS_CHILD_SOFT"); soft != "" {
		cur, _ := strconv.ParseUint(soft, 10, 64)
		hard, _ := strconv.ParseUint(os.Getenv("LIMITS_CHILD_HARD"), 10, 64)
		require.NoError(t, syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: cur, Max: hard}))
		got, err := OpenFiles()
		require.NoError(t, err)
		var now syscall.Rlimit
		require.NoError(t, syscall.Getrlimit(syscall.RLIMIT_NOFILE, &now))
		assert.Equal(t, hard, got, "raised to the hard limit")
		assert.Equal(t, hard, now.Cur, "in force")
		if want := os.Getenv("LIMITS_CHILD_JOBS"); want != "" {
			assert.Equal(t, want, strconv.Itoa(Jobs(32, 3, got)))
		}
		return
	}
	var l syscall.Rlimit
	require.NoError(t, syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l))
	tests := []struct {
		name       string
		soft, hard uint64
		jobs       string
	}{
		{"a low soft limit", 64, l.Max, ""},
		{"ulimit -n 256", 256, 256, strconv.Itoa((256 - Reserve) / (3 * FilesPerScenario))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestOpenFilesInAChildWithLowLimits$", "-test.v")
			cmd.Env = append(os.Environ(), "LIMITS_CHILD_SOFT="+strconv.FormatUint(tt.soft, 10),
				"LIMITS_CHILD_HARD="+strconv.FormatUint(tt.hard, 10), "LIMITS_CHILD_JOBS="+tt.jobs)
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "%s", out)
			assert.Contains(t, string(out), "--- PASS")
		})
	}
}

func TestSpaceNamesAFullFolder(t *testing.T) {
	roomy, full := t.TempDir(), t.TempDir()
	defer func(f func(string) (uint64, error)) { free = f }(free)
	free = func(path string) (uint64, error) {
		if path == full {
			return 12 << 10, nil
		}
		return 1 << 40, nil
	}
	require.NoError(t, Space(roomy, filepath.Join(roomy, "reports", "not-made-yet")))
	for _, dir := range []string{full, filepath.Join(full, "reports")} {
		err := Space(roomy, dir)
		require.Error(t, err)
		assert.True(t, errors.Is(err, ErrFull))
		assert.Contains(t, err.Error(), dir+" has 12 KiB free")
	}
	_, err := os.Stat(filepath.Join(roomy, "reports"))
	assert.True(t, os.IsNotExist(err), "the check makes no folder")
}

// A real full file system: a small tmpfs, where this process may mount one (root); skipped
// where it may not.
func TestSpaceOnAFullTmpfs(t *testing.T) {
	dir := mountTmpfs(t, "64k")
	err := Space(filepath.Join(dir, "reports"))
	require.Error(t, err)
	assert.True(t, errors.Is(err, ErrFull))
	assert.Contains(t, err.Error(), filepath.Join(dir, "reports"))
}

func mountTmpfs(t *testing.T, size string) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", dir).Run() })
	return dir
}
