package sdks

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// CacheEntry is one preparation folder of the cache: <root>/<sdk>/<version>-<driver hash>-r<rev>.
type CacheEntry struct {
	SDK     string    `json:"sdk"`
	Dir     string    `json:"dir"`
	Version string    `json:"version,omitempty"`
	Source  string    `json:"source,omitempty"`
	Bytes   int64     `json:"bytes"`
	LastUse time.Time `json:"lastUse"`
	// Finished is false for a folder without the marker Prepare writes last (an interrupted one).
	Finished bool `json:"finished"`
	// Current: built from this checkout's driver code (hash and revision), so a run here reuses it.
	Current bool `json:"current"`
	// SourceGone: prepared from a local source folder that no longer exists (selftest's mutated
	// copies are such folders), so no run can reuse it.
	SourceGone bool `json:"sourceGone,omitempty"`
	// Damaged says why a finished preparation cannot be launched as it is (Damaged()): the next
	// run that asks for it prepares it again.
	Damaged string `json:"damaged,omitempty"`
	// Leftover: a folder beside a preparation, left by one that was interrupted while building
	// or replaced while a run used it.
	Leftover bool `json:"leftover,omitempty"`
}

// Stale says why nothing will reuse the entry ("" when something may).
func (e CacheEntry) Stale() string {
	switch {
	case e.Leftover:
		return "left beside a preparation (interrupted, or replaced)"
	case !e.Finished:
		return "unfinished preparation"
	case e.SourceGone:
		return "its source folder " + e.Source + " is gone"
	case e.Damaged != "":
		return "damaged: " + e.Damaged
	case !e.Current:
		return "built from other driver code than this checkout's"
	}
	return ""
}

// CacheEntries lists the preparation folders under the cache root for every SDK with a recipe.
// Folders beside them that are not preparations (the runtime's, docker's, cargo's shared build
// folders) are not listed.
func (p *Preparer) CacheEntries() ([]CacheEntry, error) {
	return p.cacheEntries(Names(), true)
}

// cacheEntries lists the entries of the named SDKs, with their sizes when sizes is set (a walk of
// every file: seconds on a cache of tens of gigabytes).
func (p *Preparer) cacheEntries(names []string, sizes bool) ([]CacheEntry, error) {
	var out []CacheEntry
	for _, name := range names {
		d, _ := Lookup(name)
		driverDir := filepath.Join(p.RepoRoot, "drivers", name)
		if d.DriverDir != "" {
			driverDir = d.DriverDir
		}
		suffix := ""
		if h, err := hashTree(driverDir, d.BuildOutputs); err == nil {
			suffix = fmt.Sprintf("-%s-r%d", h[:12], d.Revision)
		}
		items, err := os.ReadDir(filepath.Join(p.CacheRoot, name))
		if err != nil {
			continue
		}
		for _, it := range items {
			base, leftover := preparationName(it.Name())
			if !it.IsDir() || base == "" {
				continue
			}
			dir := filepath.Join(p.CacheRoot, name, it.Name())
			e := CacheEntry{SDK: name, Dir: dir, Leftover: leftover, Current: suffix != "" && strings.HasSuffix(base, suffix)}
			if prev, err := readMarker(dir); err == nil {
				e.Finished, e.Version, e.Source = true, prev.Version, prev.Source
				if st, err := os.Stat(filepath.Join(dir, marker)); err == nil {
					e.LastUse = st.ModTime()
				}
				if prev.Source != "" {
					if _, err := os.Stat(prev.Source); err != nil {
						e.SourceGone = true
					}
				}
				if !leftover {
					e.Damaged = Damaged(dir, prev)
				}
			} else if st, err := os.Stat(dir); err == nil {
				e.LastUse = st.ModTime()
			}
			if sizes {
				e.Bytes = treeBytes(dir)
			}
			out = append(out, e)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Dir < out[j].Dir })
	return out, nil
}

// isPreparation matches the folder names Prepare makes: <key>-<12 hex>-r<N>.
func isPreparation(name string) bool {
	i := strings.LastIndex(name, "-r")
	if i < 13 || name[i-13] != '-' || i+2 == len(name) {
		return false
	}
	for _, c := range name[i-12 : i] {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return false
		}
	}
	for _, c := range name[i+2:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// preparationName is the preparation a cache folder name belongs to: the name itself, or for a
// folder beside one (being built, or replaced) the preparation's name and leftover set; "" for
// any other folder.
func preparationName(name string) (base string, leftover bool) {
	if isPreparation(name) {
		return name, false
	}
	for _, suffix := range []string{newSuffix, oldSuffix} {
		if i := strings.LastIndex(name, suffix); i > 0 && isPreparation(name[:i]) {
			return name[:i], true
		}
	}
	return "", false
}

// PruneCache removes the entries remove selects that no process holds: each under its
// preparation lock taken without waiting (a folder another process is preparing right now is
// skipped) and only when no run uses it (removeUnheld).
func (p *Preparer) PruneCache(entries []CacheEntry, remove func(CacheEntry) bool, log io.Writer) (removed []CacheEntry, freed int64, err error) {
	for _, e := range entries {
		if !remove(e) {
			continue
		}
		base, _ := preparationName(filepath.Base(e.Dir))
		keyLock := filepath.Join(filepath.Dir(e.Dir), base) + ".lock"
		unlock, err := tryLockKey(keyLock)
		if err != nil {
			return removed, freed, err
		}
		if unlock == nil {
			fmt.Fprintf(log, "[cache] skipping %s: being prepared\n", e.Dir)
			continue
		}
		gone, err := removeUnheld(e.Dir)
		if gone && e.Dir == filepath.Join(filepath.Dir(e.Dir), base) {
			_ = os.Remove(keyLock)
		}
		unlock()
		if err != nil {
			return removed, freed, err
		}
		if !gone {
			fmt.Fprintf(log, "[cache] skipping %s: a run is using it\n", e.Dir)
			continue
		}
		removed = append(removed, e)
		freed += e.Bytes
	}
	return removed, freed, nil
}

// pruneGoneSources removes an SDK's preparations from local source folders that no longer exist:
// each mutant of `selftest` is a temporary source folder, and without this every selftest run
// left one full preparation (about 150 MB for Node) behind for good.
func (p *Preparer) pruneGoneSources(name string) {
	entries, err := p.cacheEntries([]string{name}, false)
	if err != nil {
		return
	}
	_, _, _ = p.PruneCache(entries, func(e CacheEntry) bool { return e.SDK == name && e.SourceGone }, io.Discard)
}

func treeBytes(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}
