package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
)

// Sink is where a run's results go as they become known: each is appended to results.ndjson at
// once (what an interrupted run had learned) and kept for the renderers, which write the
// complete formats at the end. It is safe for concurrent use.
type Sink struct {
	mu     sync.Mutex
	stream *os.File
	res    *Results
}

// NewSink streams into dir/results.ndjson and collects into res.
func NewSink(dir string, res *Results) (*Sink, error) {
	f, err := os.Create(filepath.Join(dir, "results.ndjson"))
	if err != nil {
		return nil, err
	}
	return &Sink{stream: f, res: res}, nil
}

// Add records one result.
func (s *Sink) Add(r Result) error {
	line, err := json.Marshal(r)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.res.Results = append(s.res.Results, r)
	_, err = s.stream.Write(append(line, '\n'))
	return err
}

// Close ends the stream.
func (s *Sink) Close() error { return s.stream.Close() }
