package transcript

import (
	"path/filepath"
	"sync"
)

// Store reads the transcripts of one report folder, each at most once: the timing of a run, the
// cross-SDK comparison, the coverage and report.html all read the same files, and a full run
// has hundreds of them. Paths are relative to the folder (as results name them) or absolute
// inside it. It is safe for concurrent use.
type Store struct {
	dir string
	mu  sync.Mutex
	m   map[string]stored
}

type stored struct {
	entries []Entry
	err     error
}

// NewStore reads transcripts under dir.
func NewStore(dir string) *Store { return &Store{dir: dir, m: map[string]stored{}} }

// Dir is the report folder the store reads.
func (s *Store) Dir() string { return s.dir }

// Read returns the transcript at path, reading it on first use.
func (s *Store) Read(path string) ([]Entry, error) {
	key := path
	if filepath.IsAbs(path) {
		if rel, err := filepath.Rel(s.dir, path); err == nil {
			key = rel
		}
	}
	key = filepath.ToSlash(filepath.Clean(key))
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.m[key]; ok {
		return e.entries, e.err
	}
	entries, err := Read(filepath.Join(s.dir, filepath.FromSlash(key)))
	s.m[key] = stored{entries, err}
	return entries, err
}

// Forget drops what the store read (a report folder rewritten after a scrub).
func (s *Store) Forget() {
	s.mu.Lock()
	s.m = map[string]stored{}
	s.mu.Unlock()
}
