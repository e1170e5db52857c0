//go:build unix

package sdks

import (
	"context"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Each concurrent preparation gets its own target folder; a freed one is taken again, and a
// preparation waits (until its context ends) when every folder is building.
func TestRustTargetSlotsAreExclusive(t *testing.T) {
	base := t.TempDir()
	ctx := context.Background()
	seen := map[string]bool{}
	var releases []func()
	for i := 0; i < rustTargetSlots; i++ {
		dir, release, err := rustTargetSlot(ctx, base, io.Discard)
		require.NoError(t, err)
		assert.False(t, seen[dir], "slot %s handed out twice", dir)
		seen[dir] = true
		releases = append(releases, release)
	}
	assert.Contains(t, seen, filepath.Join(base, "cargo-target"), "the first slot keeps the old folder's name")

	short, cancel := context.WithTimeout(ctx, 1500*time.Millisecond)
	defer cancel()
	_, _, err := rustTargetSlot(short, base, io.Discard)
	require.ErrorIs(t, err, context.DeadlineExceeded, "all slots are held")

	releases[1]()
	dir, release, err := rustTargetSlot(ctx, base, io.Discard)
	require.NoError(t, err)
	assert.True(t, seen[dir])
	release()
	releases[0]()
	releases[2]()
}

func TestRustFrontEndThreads(t *testing.T) {
	for _, tc := range []struct {
		name, threads, rustflags string
		want                     []string
	}{
		{name: "off", threads: "0"},
		{name: "one thread is the plain build", threads: "1"},
		{name: "two", threads: "2", want: []string{"RUSTC_BOOTSTRAP=1", "RUSTFLAGS=-Zthreads=2"}},
		{name: "capped", threads: "64", want: []string{"RUSTC_BOOTSTRAP=1", "RUSTFLAGS=-Zthreads=8"}},
		{name: "the user's flags kept", threads: "2", rustflags: "-Ctarget-cpu=native",
			want: []string{"RUSTC_BOOTSTRAP=1", "RUSTFLAGS=-Ctarget-cpu=native -Zthreads=2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("CONFORMANCE_RUST_THREADS", tc.threads)
			t.Setenv("RUSTFLAGS", tc.rustflags)
			assert.Equal(t, tc.want, rustFrontEndThreads())
		})
	}
}
