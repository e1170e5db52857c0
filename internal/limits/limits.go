//go:build unix

// Package limits meets the machine's limits before a run bites on them: the open-file limit
// (raised to its hard limit, and the scenarios run at once sized to what it allows) and the free
// space of the folders a run writes (a full disk is a setup error naming the folder, never a
// pile of SDK failures).
package limits

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// FilesPerScenario is how many files (transcript, the runtime's connections, pipes) one running
// scenario keeps open in the harness on average. Measured (December 2026, 2 cores): a run of node,
// python and go over features/session and features/tools at 32 scenarios per SDK peaked at 529
// open files, about 5.5 per running scenario; this is that with a margin. A sweep that starts a
// client per case holds one runtime connection per client until it ends (130 of 159 open files
// were such connections at 4 scenarios per SDK), which no sizing of the scenarios at once avoids.
const FilesPerScenario = 8

// Reserve is what the harness keeps open besides its scenarios (reports, the cache, the
// runtime's listeners, Go's own descriptors).
const Reserve = 64

// OpenFiles raises the process's soft open-file limit to its hard limit (Go does so itself since
// 1.19; done here too so that no build setting or runtime change can undo it) and returns the
// soft limit in force.
func OpenFiles() (uint64, error) {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return 0, err
	}
	if l.Cur < l.Max {
		raised := syscall.Rlimit{Cur: l.Max, Max: l.Max}
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &raised); err == nil {
			l = raised
		}
	}
	return l.Cur, nil
}

// Jobs is how many scenarios of each of units SDKs may run at once under an open-file limit:
// jobs, or fewer when units×jobs scenarios would not fit in limit beside Reserve; at least 1.
func Jobs(jobs, units int, limit uint64) int {
	if units < 1 || jobs < 1 {
		return max(jobs, 1)
	}
	if limit <= Reserve {
		return 1
	}
	fit := int((limit - Reserve) / uint64(units*FilesPerScenario))
	return max(1, min(jobs, fit))
}

// MinFree is the free space below which a folder a run writes counts as full: transcripts and
// reports of a whole run take tens of megabytes, a preparation hundreds.
const MinFree = 100 << 20

// ErrFull is a folder too full (or not writable) for a run to write its files.
var ErrFull = errors.New("no room to write")

// free reports the bytes an unprivileged user may still write on the file system of path (a
// variable: the seam a test fills the disk through).
var free = func(path string) (uint64, error) {
	var s syscall.Statfs_t
	if err := syscall.Statfs(path, &s); err != nil {
		return 0, err
	}
	return s.Bavail * uint64(s.Bsize), nil
}

// Space checks that each folder (or, for one not made yet, its nearest existing parent) has
// MinFree bytes free and takes a file: an error wrapping ErrFull names the first that does not,
// with what it has, so a full disk or temporary folder stops the run before any scenario.
func Space(dirs ...string) error {
	for _, dir := range dirs {
		at := existing(dir)
		n, err := free(at)
		if err != nil {
			return fmt.Errorf("%w: %s: %v", ErrFull, dir, err)
		}
		if n < MinFree {
			return fmt.Errorf("%w: %s has %s free (its file system at %s), at least %s is needed", ErrFull, dir, size(n), at, size(MinFree))
		}
		f, err := os.CreateTemp(at, ".conformance-space-*")
		if err != nil {
			return fmt.Errorf("%w: %s: %v", ErrFull, dir, err)
		}
		_, werr := f.Write(make([]byte, 4096))
		if serr := f.Sync(); werr == nil {
			werr = serr
		}
		f.Close()
		os.Remove(f.Name())
		if werr != nil {
			return fmt.Errorf("%w: %s: %v", ErrFull, dir, werr)
		}
	}
	return nil
}

// existing is dir or its nearest parent that exists.
func existing(dir string) string {
	dir = filepath.Clean(dir)
	for {
		if _, err := os.Stat(dir); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return dir
		}
		dir = parent
	}
}

func size(n uint64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d KiB", n>>10)
}
