//go:build unix

package sdks

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCacheEntriesAndPrune(t *testing.T) {
	name := Names()[0]
	d, _ := Lookup(name)
	repo, cache := t.TempDir(), t.TempDir()
	driverDir := filepath.Join(repo, "drivers", name)
	if d.DriverDir != "" {
		t.Skip("first recipe has its own driver folder")
	}
	require.NoError(t, os.MkdirAll(driverDir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(driverDir, "driver.txt"), []byte("v2"), 0o644))
	hash, err := hashTree(driverDir, d.BuildOutputs)
	require.NoError(t, err)
	current := fmt.Sprintf("%s-r%d", hash[:12], d.Revision)
	liveSource := t.TempDir()

	entry := func(folder string, prep *Prepared) string {
		dir := filepath.Join(cache, name, folder)
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "payload"), make([]byte, 2048), 0o644))
		if prep != nil {
			prep.Launch.Argv = []string{"true"}
			b, _ := json.Marshal(prep)
			require.NoError(t, os.WriteFile(filepath.Join(dir, marker), b, 0o644))
		}
		return dir
	}
	dirs := map[string]string{
		"current":  entry("1.0.0-"+current, &Prepared{Version: "1.0.0"}),
		"old code": entry("1.0.0-0123456789ab-r0", &Prepared{Version: "1.0.0"}),
		"gone":     entry("source-aaaaaaaaaaaa-"+current, &Prepared{Source: filepath.Join(cache, "no-such-folder")}),
		"live src": entry("source-bbbbbbbbbbbb-"+current, &Prepared{Source: liveSource}),
		"broken":   entry("1.0.1-"+current, nil),
	}
	require.NoError(t, os.MkdirAll(filepath.Join(cache, name, "cargo-target"), 0o755), "a shared build folder is not an entry")

	p := &Preparer{RepoRoot: repo, CacheRoot: cache}
	entries, err := p.CacheEntries()
	require.NoError(t, err)
	require.Len(t, entries, len(dirs))
	stale := map[string]string{}
	for _, e := range entries {
		stale[e.Dir] = e.Stale()
		assert.GreaterOrEqual(t, e.Bytes, int64(2048), e.Dir)
	}
	for _, tc := range []struct{ entry, want string }{
		{"current", ""},
		{"live src", ""},
		{"old code", "built from other driver code than this checkout's"},
		{"gone", "its source folder " + filepath.Join(cache, "no-such-folder") + " is gone"},
		{"broken", "unfinished preparation"},
	} {
		assert.Equal(t, tc.want, stale[dirs[tc.entry]], tc.entry)
	}

	// An entry being prepared (its lock held) is skipped; the other stale ones go.
	unlock, err := tryLockKey(dirs["broken"] + ".lock")
	require.NoError(t, err)
	require.NotNil(t, unlock)
	removed, freed, err := p.PruneCache(entries, func(e CacheEntry) bool { return e.Stale() != "" }, io.Discard)
	unlock()
	require.NoError(t, err)
	assert.Len(t, removed, 2)
	assert.Positive(t, freed)
	for entry, dir := range dirs {
		_, err := os.Stat(dir)
		gone := entry == "old code" || entry == "gone"
		assert.Equal(t, gone, os.IsNotExist(err), entry)
	}

	// Preparing from any source drops the SDK's preparations whose source folder is gone.
	entry("source-cccccccccccc-"+current, &Prepared{Source: filepath.Join(cache, "gone-too")})
	p.pruneGoneSources(name)
	_, err = os.Stat(filepath.Join(cache, name, "source-cccccccccccc-"+current))
	assert.True(t, os.IsNotExist(err))
	_, err = os.Stat(dirs["live src"])
	assert.NoError(t, err)
}

// A driver's preparation is keyed by its code, not by its README.
func TestHashTreeLeavesOutTheReadme(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
	}
	write("driver.txt", "v1")
	write("README.md", "one")
	before, err := hashTree(dir, nil)
	require.NoError(t, err)
	tests := []struct {
		name, file, body string
		same             bool
	}{
		{"the README edited", "README.md", "two", true},
		{"the code edited", "driver.txt", "v2", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			write(tt.file, tt.body)
			after, err := hashTree(dir, nil)
			require.NoError(t, err)
			assert.Equal(t, tt.same, before == after)
			before = after
		})
	}
}
