package report

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// Sink is where a run's results go as they become known: each is appended to results.ndjson at
// once (what an interrupted run had learned) and kept for the renderers, which write the
// complete formats at the end. The stream starts with a header line (the harness that ran) and,
// when the run finished, ends with a footer line (how many results, the totals, the SDKs): a
// stream without its footer is an interrupted run's. It is safe for concurrent use.
type Sink struct {
	mu     sync.Mutex
	stream *os.File
	res    *Results
}

// StreamHeader is the first line of results.ndjson, {"header": {...}}.
type StreamHeader struct {
	Schema  int     `json:"schemaVersion"`
	Harness Harness `json:"harness"`
}

// StreamFooter is the last line of a complete results.ndjson, {"footer": {...}}.
type StreamFooter struct {
	Results int            `json:"results"`
	Totals  map[string]int `json:"totals"`
	SDKs    []SDK          `json:"sdks"`
}

// NewSink streams into dir/results.ndjson and collects into res; the header is res's harness.
func NewSink(dir string, res *Results) (*Sink, error) {
	f, err := os.Create(filepath.Join(dir, StreamFile))
	if err != nil {
		return nil, err
	}
	s := &Sink{stream: f, res: res}
	if err := s.line(map[string]any{"header": StreamHeader{Schema: res.Schema, Harness: res.Harness}}); err != nil {
		f.Close()
		return nil, err
	}
	return s, nil
}

// StreamFile is the name of the stream in the report folder.
const StreamFile = "results.ndjson"

func (s *Sink) line(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = s.stream.Write(append(b, '\n'))
	return err
}

// Add records one result: streamed, then kept for the renderers. A result the stream could not
// take is not kept either (the run names it as missing, "could not record"), so results.json
// and results.ndjson hold the same results.
func (s *Sink) Add(r Result) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.line(r); err != nil {
		return err
	}
	s.res.Results = append(s.res.Results, r)
	return nil
}

// End writes the footer from the finished records (tallied) and closes the stream.
func (s *Sink) End() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	err := s.line(map[string]any{"footer": StreamFooter{Results: len(s.res.Results), Totals: s.res.Totals, SDKs: s.res.SDKs}})
	if cerr := s.stream.Close(); err == nil {
		err = cerr
	}
	return err
}

// Close ends the stream without a footer (an interrupted or failed run); after End it does
// nothing.
func (s *Sink) Close() error { return s.stream.Close() }

// ReadStream reads a results.ndjson: the records it holds (harness from the header, SDKs and
// totals from the footer) and whether it is complete (has its footer).
func ReadStream(path string) (*Results, bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	res := &Results{}
	complete := false
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for n := 1; sc.Scan(); n++ {
		var l struct {
			Header *StreamHeader `json:"header"`
			Footer *StreamFooter `json:"footer"`
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return nil, false, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		switch {
		case l.Header != nil:
			res.Schema, res.Harness = l.Header.Schema, l.Header.Harness
		case l.Footer != nil:
			res.Totals, res.SDKs, complete = l.Footer.Totals, l.Footer.SDKs, true
			if l.Footer.Results != len(res.Results) {
				return nil, false, fmt.Errorf("%s:%d: the footer counts %d results, the stream holds %d", path, n, l.Footer.Results, len(res.Results))
			}
		default:
			var r Result
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				return nil, false, fmt.Errorf("%s:%d: %w", path, n, err)
			}
			res.Results = append(res.Results, r)
		}
	}
	return res, complete, sc.Err()
}
