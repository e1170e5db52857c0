package harness

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// Longest features first. godog starts an SDK's scenarios in the order of its feature paths,
// --jobs at once, and an SDK is done when its last scenario is: a 30 s scenario that starts when
// the others are nearly through (schema/ and surface/ sort after behaviour/) makes that SDK's run
// last 30 s longer than its work needs. The order is the longest-processing-time rule: each
// feature by its longest scenario (over the SDKs) in the last run that used this cache, kept in
// featureTimesFile; a feature with no time yet goes first (its cost is unknown, and on a fresh
// cache every feature keeps its place). The order changes only when scenarios start, never what
// they do or report (the reports are sorted).
const featureTimesFile = "feature-times.json"

// featureTimes are milliseconds per feature (its path relative to the features folder).
type featureTimes map[string]float64

// loadFeatureTimes reads the cache's feature times; a missing or unreadable file is none.
func loadFeatureTimes(cacheRoot string) featureTimes {
	var t featureTimes
	if cacheRoot == "" {
		return nil
	}
	b, err := os.ReadFile(filepath.Join(cacheRoot, featureTimesFile))
	if err != nil || json.Unmarshal(b, &t) != nil {
		return nil
	}
	return t
}

// save writes the times measured by this run over the cache's (a feature this run did not run
// keeps its time), through a file renamed into place: runs that end at once each leave a whole
// file.
func (t featureTimes) save(cacheRoot string) error {
	if cacheRoot == "" || len(t) == 0 {
		return nil
	}
	all := loadFeatureTimes(cacheRoot)
	if all == nil {
		all = featureTimes{}
	}
	for f, ms := range t {
		all[f] = ms
	}
	b, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(cacheRoot, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(cacheRoot, featureTimesFile+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), filepath.Join(cacheRoot, featureTimesFile))
}

// featureClock collects each feature's longest scenario over the SDKs of a run.
type featureClock struct {
	mu    sync.Mutex
	times featureTimes
}

func (c *featureClock) scenario(feature string, took time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.times == nil {
		c.times = featureTimes{}
	}
	c.times[feature] = max(c.times[feature], float64(took.Microseconds())/1000)
}

// orderPaths is the feature files under paths (as godog would walk them: the same names, so
// the features are named as they would be) in the order of times, longest first; root is the
// features folder the times' names are relative to. Paths naming a scenario by line (a rerun)
// are kept as given.
func orderPaths(fsys fs.FS, root string, paths []string, times featureTimes) []string {
	if len(times) == 0 || fsys == nil {
		return paths
	}
	var files []string
	seen := map[string]bool{}
	for _, p := range paths {
		if lineSuffix.MatchString(p) {
			return paths
		}
		err := fs.WalkDir(fsys, p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && (strings.HasSuffix(path, ".feature") || path == p) && !seen[path] {
				seen[path] = true
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			return paths // godog says what it cannot read
		}
	}
	cost := func(path string) (float64, bool) {
		abs, err := filepath.Abs(path)
		if err != nil {
			return 0, false
		}
		rel, err := filepath.Rel(root, abs)
		if err != nil {
			return 0, false
		}
		ms, ok := times[filepath.ToSlash(rel)]
		return ms, ok
	}
	sort.SliceStable(files, func(i, j int) bool {
		ci, knownI := cost(files[i])
		cj, knownJ := cost(files[j])
		if knownI != knownJ {
			return !knownI
		}
		return ci > cj
	})
	return slices.Clip(files)
}
