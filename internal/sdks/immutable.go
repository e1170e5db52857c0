package sdks

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// A finished preparation is immutable while any process may use it. Each preparation folder holds
// a lock file, inUse: a process that uses the preparation holds a shared lock on it until it
// exits (drivers are started from the folder for the whole run); whatever removes a preparation
// (a rebuild of a damaged one, `cache --prune`) first takes it exclusively without waiting, and
// leaves the folder alone when it cannot. A preparation is built beside its final folder
// (<dir>.new-<pid>-<n>) and renamed into place; a damaged one it replaces is renamed aside
// (<dir>.old-<pid>-<n>) and removed once no process holds it.
const (
	inUse = ".inuse"
	// fileList names every file of a finished preparation, one relative path a line: a
	// preparation with one missing is damaged and is built again.
	fileList = "prepared.files"
	// Suffixes of the folders beside a preparation: being built, and replaced but maybe in use.
	newSuffix = ".new-"
	oldSuffix = ".old-"
)

var (
	holdsMu sync.Mutex
	holds   []func() // shared locks kept until the process exits
	seq     atomic.Int64
)

// hold takes a shared lock on the preparation in dir for the rest of the process; false when a
// process is removing it (holds its lock exclusively).
func hold(dir string) (bool, error) {
	release, err := tryShareKey(filepath.Join(dir, inUse))
	if err != nil || release == nil {
		return false, err
	}
	holdsMu.Lock()
	holds = append(holds, release)
	holdsMu.Unlock()
	return true, nil
}

// releaseHolds drops every shared lock this process holds (tests: another "process" may then
// remove the preparations).
func releaseHolds() {
	holdsMu.Lock()
	defer holdsMu.Unlock()
	for _, r := range holds {
		r()
	}
	holds = nil
}

// besideName is a folder name beside dir for a preparation being built or replaced.
func besideName(dir, suffix string) string {
	return fmt.Sprintf("%s%s%d-%d", dir, suffix, os.Getpid(), seq.Add(1))
}

// removeUnheld removes the preparation folder dir when no process holds it (its inUse lock can be
// taken exclusively); false when one does.
func removeUnheld(dir string) (bool, error) {
	if _, err := os.Stat(filepath.Join(dir, inUse)); os.IsNotExist(err) {
		// No process ever held it (an unfinished folder, or one from before the lock existed).
		return true, os.RemoveAll(dir)
	}
	unlock, err := tryLockKey(filepath.Join(dir, inUse))
	if err != nil || unlock == nil {
		return false, err
	}
	defer unlock()
	// Renamed aside first: the removal of a large tree takes a while, and a half-removed folder
	// must never sit under a name a run would use.
	aside := dir
	if !strings.Contains(filepath.Base(dir), oldSuffix) {
		aside = besideName(dir, oldSuffix)
		if err := os.Rename(dir, aside); err != nil {
			return false, err
		}
	}
	return true, os.RemoveAll(aside)
}

// sweepBeside removes what earlier preparations of dir left beside it: folders being built
// (the caller holds dir's preparation lock, so no process is building one now: each is from a
// process that died) and replaced folders no process holds any more.
func sweepBeside(dir string) {
	for _, suffix := range []string{newSuffix, oldSuffix} {
		matches, _ := filepath.Glob(dir + suffix + "*")
		for _, m := range matches {
			if suffix == newSuffix {
				_ = os.RemoveAll(m)
			} else {
				_, _ = removeUnheld(m)
			}
		}
	}
}

// writeFileList records every file under dir (but the list and the marker) in dir/fileList.
func writeFileList(dir string) error {
	var files []string
	err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(dir, path)
		if rel == fileList || rel == marker || rel == inUse {
			return nil
		}
		files = append(files, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		return err
	}
	sort.Strings(files)
	return os.WriteFile(filepath.Join(dir, fileList), []byte(strings.Join(files, "\n")+"\n"), 0o644)
}

// readMarker reads the finished preparation in dir; an error says why it is not one.
func readMarker(dir string) (*Prepared, error) {
	b, err := os.ReadFile(filepath.Join(dir, marker))
	if err != nil {
		if os.IsNotExist(err) {
			return nil, fmt.Errorf("no %s: the preparation did not finish", marker)
		}
		return nil, err
	}
	var prev Prepared
	if err := json.Unmarshal(b, &prev); err != nil {
		return nil, fmt.Errorf("%s is damaged: %v", marker, err)
	}
	return &prev, nil
}

// Damaged says why the finished preparation prev in dir cannot be launched as it is, or "": it was
// made under another path (a cache restored elsewhere), a program or folder its launch names is
// gone (an interpreter removed or moved), or a file it had is missing.
func Damaged(dir string, prev *Prepared) string {
	if prev.CacheDir != "" && !samePath(prev.CacheDir, dir) {
		return fmt.Sprintf("prepared in %s, not here (a cache restored under another path)", prev.CacheDir)
	}
	if why := launchGone(prev.Launch); why != "" {
		return why
	}
	f, err := os.Open(filepath.Join(dir, fileList))
	if os.IsNotExist(err) {
		return "" // prepared before file lists were kept: the launch check above is all there is
	}
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rel := s.Text(); rel != "" {
			if _, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(rel))); err != nil {
				return fmt.Sprintf("its file %s is missing", rel)
			}
		}
	}
	return ""
}

// launchGone says which program or folder of l no longer exists ("" when all do): the program
// (a path, or a name looked up on PATH), every argument that is an absolute path, the folder.
func launchGone(l Launch) string {
	if len(l.Argv) == 0 {
		return "it records no program to launch"
	}
	prog := l.Argv[0]
	if filepath.IsAbs(prog) {
		if _, err := os.Stat(prog); err != nil {
			return fmt.Sprintf("its program %s is gone", prog)
		}
	} else if _, err := exec.LookPath(prog); err != nil {
		return fmt.Sprintf("its program %s is not on PATH", prog)
	}
	for _, a := range l.Argv[1:] {
		if filepath.IsAbs(a) {
			if _, err := os.Stat(a); err != nil {
				return fmt.Sprintf("its file %s is gone", a)
			}
		}
	}
	if l.Dir != "" {
		if _, err := os.Stat(l.Dir); err != nil {
			return fmt.Sprintf("its folder %s is gone", l.Dir)
		}
	}
	return ""
}

// relocate rewrites the paths under from in l (where the preparation was built) to under to
// (where it is renamed): the argv, the folder and the environment's values.
func relocate(l Launch, from, to string) Launch {
	fix := func(s string) string { return strings.ReplaceAll(s, from, to) }
	out := Launch{Dir: fix(l.Dir)}
	for _, a := range l.Argv {
		out.Argv = append(out.Argv, fix(a))
	}
	for _, e := range l.Env {
		out.Env = append(out.Env, fix(e))
	}
	return out
}

// touch marks the entry's last use (`conformance cache` prunes by it).
func touch(dir string) {
	now := time.Now()
	_ = os.Chtimes(filepath.Join(dir, marker), now, now)
}

// samePath says whether a and b name one folder (a cache root reached through a symbolic link is
// the same cache).
func samePath(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	ra, errA := filepath.EvalSymlinks(a)
	rb, errB := filepath.EvalSymlinks(b)
	return errA == nil && errB == nil && ra == rb
}
