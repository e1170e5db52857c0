//go:build unix

package sdks

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeRecipe registers a stand-in language whose preparation writes a script and a payload file
// and launches the script with an interpreter that lives in interpDir (so a test can remove
// it); it counts its preparations.
type fakeRecipe struct {
	name      string
	interpDir string
	builds    atomic.Int32
	delay     time.Duration
}

func newFakeRecipe(t *testing.T, name string) *fakeRecipe {
	t.Helper()
	f := &fakeRecipe{name: name, interpDir: t.TempDir()}
	driverDir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(driverDir, "driver.txt"), []byte("driver"), 0o644))
	t.Cleanup(Register(Recipe{Name: name, DriverDir: driverDir, Prepare: f.prepare}))
	t.Cleanup(releaseHolds)
	return f
}

func (f *fakeRecipe) prepare(ctx context.Context, pc PrepareContext) (Launch, error) {
	f.builds.Add(1)
	interp := filepath.Join(f.interpDir, "interp")
	if err := os.WriteFile(interp, []byte("#!/bin/sh\n"), 0o755); err != nil {
		return Launch{}, err
	}
	time.Sleep(f.delay)
	for _, name := range []string{"script", "payload/data"} {
		p := filepath.Join(pc.CacheDir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return Launch{}, err
		}
		if err := os.WriteFile(p, []byte(pc.Source+pc.Version), 0o644); err != nil {
			return Launch{}, err
		}
	}
	return Launch{Argv: []string{interp, filepath.Join(pc.CacheDir, "script")}, Dir: pc.CacheDir,
		Env: []string{"CONFORMANCE_SDK_SOURCE=path:" + pc.Source}}, nil
}

func inode(t *testing.T, path string) uint64 {
	t.Helper()
	st, err := os.Stat(path)
	require.NoError(t, err)
	return st.Sys().(*syscall.Stat_t).Ino
}

// Two preparations of the same --sdk-source at once (two shards on one runner): the second
// reuses the first's preparation and never deletes or rebuilds the folder the first launches
// from; an unchanged source is not built again.
func TestConcurrentSourcePreparationsShareOne(t *testing.T) {
	f := newFakeRecipe(t, "fake-concurrent")
	f.delay = 300 * time.Millisecond
	source := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(source, "sdk.txt"), []byte("v1"), 0o644))
	p := &Preparer{CacheRoot: t.TempDir(), Log: &bytes.Buffer{}}

	var wg sync.WaitGroup
	preps := make([]*Prepared, 2)
	errs := make([]error, 2)
	for i := range preps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			preps[i], errs[i] = p.Prepare(context.Background(), f.name, "", source)
		}()
		time.Sleep(50 * time.Millisecond)
	}
	wg.Wait()
	require.NoError(t, errs[0])
	require.NoError(t, errs[1])
	assert.Equal(t, int32(1), f.builds.Load(), "one build: the second run waits and reuses it")
	assert.Equal(t, preps[0].CacheDir, preps[1].CacheDir)
	script := preps[0].Launch.Argv[1]
	before := inode(t, script)

	// A third run of the unchanged source rebuilds nothing and leaves the files in place.
	again, err := p.Prepare(context.Background(), f.name, "", source)
	require.NoError(t, err)
	assert.Equal(t, int32(1), f.builds.Load())
	assert.Equal(t, before, inode(t, again.Launch.Argv[1]), "the first run's script was not replaced")
}

// A preparation whose recorded interpreter no longer exists, one with a file removed, and one
// restored under another path are each prepared again, with a line that says why; reused ones
// are not.
func TestDamagedPreparationsAreRebuilt(t *testing.T) {
	tests := []struct {
		name   string
		damage func(t *testing.T, f *fakeRecipe, prep *Prepared) (cacheRoot string)
		want   string
	}{
		{"the recorded interpreter is gone", func(t *testing.T, f *fakeRecipe, prep *Prepared) string {
			require.NoError(t, os.Remove(prep.Launch.Argv[0]))
			return filepath.Dir(filepath.Dir(prep.CacheDir))
		}, "its program "},
		{"a file of the preparation is removed", func(t *testing.T, f *fakeRecipe, prep *Prepared) string {
			require.NoError(t, os.Remove(filepath.Join(prep.CacheDir, "payload", "data")))
			return filepath.Dir(filepath.Dir(prep.CacheDir))
		}, "its file payload/data is missing"},
		{"the cache is restored under another path", func(t *testing.T, f *fakeRecipe, prep *Prepared) string {
			moved := t.TempDir()
			require.NoError(t, os.Rename(filepath.Dir(filepath.Dir(prep.CacheDir)), filepath.Join(moved, "c")))
			return filepath.Join(moved, "c")
		}, "a cache restored under another path"},
		{"the cache reached through a symbolic link", func(t *testing.T, f *fakeRecipe, prep *Prepared) string {
			link := filepath.Join(t.TempDir(), "link")
			require.NoError(t, os.Symlink(filepath.Dir(filepath.Dir(prep.CacheDir)), link))
			return link
		}, ""},
		{"nothing changed", func(t *testing.T, f *fakeRecipe, prep *Prepared) string {
			return filepath.Dir(filepath.Dir(prep.CacheDir))
		}, ""},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeRecipe(t, fmt.Sprintf("fake-damaged-%d", i))
			var log bytes.Buffer
			p := &Preparer{CacheRoot: filepath.Join(t.TempDir(), "cache"), Log: &log}
			prep, err := p.Prepare(context.Background(), f.name, "1.0.0", "")
			require.NoError(t, err)
			releaseHolds()

			p.CacheRoot = tt.damage(t, f, prep)
			entries, err := p.cacheEntries([]string{f.name}, false)
			require.NoError(t, err)
			require.Len(t, entries, 1)
			log.Reset()
			again, err := p.Prepare(context.Background(), f.name, "1.0.0", "")
			require.NoError(t, err)
			if tt.want == "" {
				assert.Empty(t, entries[0].Stale())
				assert.Equal(t, int32(1), f.builds.Load(), "reused")
				return
			}
			assert.Contains(t, entries[0].Stale(), "damaged: ", "cache shows it stale")
			assert.Contains(t, entries[0].Stale(), tt.want)
			assert.Equal(t, int32(2), f.builds.Load(), "prepared again")
			assert.Contains(t, log.String(), "preparing "+again.CacheDir+" again: ")
			assert.Contains(t, log.String(), tt.want)
			assert.Empty(t, Damaged(again.CacheDir, again), "the new preparation is whole")
			assert.FileExists(t, again.Launch.Argv[1])
		})
	}
}

// A damaged preparation that another run still holds is replaced beside it: the holder's folder
// is renamed aside, not deleted, and removed once nothing holds it.
func TestReplacedPreparationIsKeptWhileHeld(t *testing.T) {
	f := newFakeRecipe(t, "fake-held")
	p := &Preparer{CacheRoot: t.TempDir(), Log: &bytes.Buffer{}}
	prep, err := p.Prepare(context.Background(), f.name, "1.0.0", "")
	require.NoError(t, err)
	held := inode(t, prep.Launch.Argv[1])
	require.NoError(t, os.Remove(filepath.Join(prep.CacheDir, "payload", "data")))

	// The first "run" still holds its preparation (this process's shared lock); a second one
	// finds it damaged and prepares it again.
	again, err := p.Prepare(context.Background(), f.name, "1.0.0", "")
	require.NoError(t, err)
	assert.Equal(t, int32(2), f.builds.Load())
	aside, _ := filepath.Glob(prep.CacheDir + oldSuffix + "*")
	require.Len(t, aside, 1, "the replaced preparation is kept beside while held")
	assert.Equal(t, held, inode(t, filepath.Join(aside[0], "script")), "its files are untouched")
	assert.FileExists(t, again.Launch.Argv[1])

	entries, err := p.cacheEntries([]string{f.name}, false)
	require.NoError(t, err)
	require.Len(t, entries, 2)
	removed, _, err := p.PruneCache(entries, func(e CacheEntry) bool { return e.Leftover }, &bytes.Buffer{})
	require.NoError(t, err)
	assert.Empty(t, removed, "a held leftover is not pruned")

	releaseHolds()
	removed, _, err = p.PruneCache(entries, func(e CacheEntry) bool { return e.Stale() != "" }, &bytes.Buffer{})
	require.NoError(t, err)
	assert.Len(t, removed, 1)
	assert.NoDirExists(t, aside[0])
	assert.DirExists(t, again.CacheDir)
}

// A source's preparation is keyed by its content: the same files at another path share it (with
// the launch naming the path asked for), a changed file makes another.
func TestSourcePreparationsKeyedByContent(t *testing.T) {
	f := newFakeRecipe(t, "fake-content")
	base, head := t.TempDir(), t.TempDir()
	for _, dir := range []string{base, head} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "sdk.txt"), []byte("v1"), 0o644))
	}
	p := &Preparer{CacheRoot: t.TempDir(), Log: &bytes.Buffer{}}
	first, err := p.Prepare(context.Background(), f.name, "", base)
	require.NoError(t, err)
	second, err := p.Prepare(context.Background(), f.name, "", head)
	require.NoError(t, err)
	assert.Equal(t, int32(1), f.builds.Load(), "the same content at another path is built once")
	assert.Equal(t, first.CacheDir, second.CacheDir)
	assert.Equal(t, head, second.Source)
	assert.Contains(t, second.Launch.Env, "CONFORMANCE_SDK_SOURCE=path:"+head)

	require.NoError(t, os.WriteFile(filepath.Join(head, "sdk.txt"), []byte("v2"), 0o644))
	third, err := p.Prepare(context.Background(), f.name, "", head)
	require.NoError(t, err)
	assert.Equal(t, int32(2), f.builds.Load(), "changed content is built")
	assert.NotEqual(t, first.CacheDir, third.CacheDir)
	assert.DirExists(t, first.CacheDir, "the other content's preparation stays")
}

// In a git checkout the key is the SDK folder's tree plus what is not committed: a change
// elsewhere in the checkout leaves it, a change to a tracked file, an untracked file or a commit
// to the folder changes it; ignored files (build output) do not.
func TestSourceKeyOfACheckout(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not on PATH")
	}
	root := t.TempDir()
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-C", root, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, string(out))
	}
	write := func(rel, body string) {
		p := filepath.Join(root, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	git("init", "-q")
	write("go/sdk.go", "package sdk")
	write("go/.gitignore", "build/\n")
	write("python/x.py", "")
	git("add", ".")
	git("commit", "-qm", "one")
	d := Recipe{SourceDir: func(src string) (string, error) { return filepath.Join(src, "go"), nil }}
	key := func() string {
		k, how, err := SourceKey(context.Background(), d, root)
		require.NoError(t, err)
		assert.Contains(t, how, "git tree ")
		return k
	}
	clean := key()
	steps := []struct {
		name string
		do   func()
		same bool
	}{
		{"another SDK's folder changed", func() { write("python/x.py", "changed") }, true},
		{"an ignored build output appears", func() { write("go/build/out", "bin") }, true},
		{"a tracked file changed", func() { write("go/sdk.go", "package sdk // 2") }, false},
		{"the change committed", func() { git("commit", "-qam", "two") }, false},
		{"an untracked file added", func() { write("go/new.go", "package sdk") }, false},
	}
	prev := clean
	for _, s := range steps {
		s.do()
		k := key()
		assert.Equal(t, s.same, k == prev, s.name)
		prev = k
	}
}
