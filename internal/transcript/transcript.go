// Package transcript records every frame of a scenario, in order, in both directions, with a
// monotonic timestamp and the connection it came on. Each entry is written to disk (NDJSON, one
// line per entry, unbuffered) the moment it is recorded, so a crash loses nothing already seen,
// and is kept in memory for the steps that assert on it.
package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/wire"
)

// Directions of an entry.
const (
	SDKToRuntime    = "sdk->runtime"
	RuntimeToSDK    = "runtime->sdk"
	HarnessToDriver = "harness->driver"
	DriverToHarness = "driver->harness"
	Note            = "note" // something the harness or runtime observed that is not a frame
)

// Entry is one line of a transcript.
type Entry struct {
	Seq   int             `json:"seq"`
	TMS   float64         `json:"t_ms"` // milliseconds since the transcript started (monotonic)
	Conn  string          `json:"conn,omitempty"`
	Dir   string          `json:"dir"`
	Frame json.RawMessage `json:"frame,omitempty"` // the JSON exactly as sent
	Raw   string          `json:"raw,omitempty"`   // bytes that were not a valid frame
	Error string          `json:"error,omitempty"` // what was wrong with them
	Text  string          `json:"text,omitempty"`  // a note
	// HeaderTMS is set on a frame the runtime read whose body had not arrived when its header
	// was complete (the peer wrote them apart): when the header was complete, in the same clock
	// as TMS. Absent when header and body arrived together.
	HeaderTMS *float64 `json:"header_t_ms,omitempty"`
}

// Recorder is one transcript. It is safe for concurrent use.
type Recorder struct {
	mu      sync.Mutex
	start   time.Time
	entries []Entry
	f       *os.File
	err     error
}

// New starts a transcript written to path (created with its folders); an empty path keeps it in
// memory only.
func New(path string) (*Recorder, error) {
	r := &Recorder{start: time.Now()}
	if path == "" {
		return r, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, err
	}
	r.f = f
	return r, nil
}

// Memory starts a transcript kept in memory only.
func Memory() *Recorder { return &Recorder{start: time.Now()} }

// Add records one entry, filling in Seq and TMS.
func (r *Recorder) Add(e Entry) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e.Seq = len(r.entries) + 1
	e.TMS = float64(time.Since(r.start).Microseconds()) / 1000
	if len(e.Frame) > 0 && !json.Valid(e.Frame) {
		e.Raw, e.Frame = string(e.Frame), nil
	}
	r.entries = append(r.entries, e)
	if r.f != nil && r.err == nil {
		var line bytes.Buffer
		enc := json.NewEncoder(&line) // Encode adds the newline
		enc.SetEscapeHTML(false)      // keep "->" and "<uuid>" readable
		_ = enc.Encode(e)
		if _, err := r.f.Write(line.Bytes()); err != nil {
			r.err = err
		}
	}
}

// Frame records a well-formed frame.
func (r *Recorder) Frame(conn, dir string, body []byte) {
	r.Add(Entry{Conn: conn, Dir: dir, Frame: append(json.RawMessage(nil), body...)})
}

// FrameRead records a frame read from a peer with wire.Reader.NextFrame, keeping when its
// header arrived if the body came apart from it.
func (r *Recorder) FrameRead(conn, dir string, f wire.Frame) {
	e := Entry{Conn: conn, Dir: dir, Frame: append(json.RawMessage(nil), f.Body...)}
	if f.Split {
		ms := float64(f.HeaderAt.Sub(r.start).Microseconds()) / 1000
		e.HeaderTMS = &ms
	}
	r.Add(e)
}

// Bad records bytes that could not be read as a frame.
func (r *Recorder) Bad(conn, dir string, raw []byte, err error) {
	r.Add(Entry{Conn: conn, Dir: dir, Raw: string(raw), Error: err.Error()})
}

// Notef records a note.
func (r *Recorder) Notef(conn, format string, args ...any) {
	r.Add(Entry{Conn: conn, Dir: Note, Text: fmt.Sprintf(format, args...)})
}

// Entries returns a copy of the entries so far.
func (r *Recorder) Entries() []Entry {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Entry(nil), r.entries...)
}

// Close closes the file and reports the first write error, if any.
func (r *Recorder) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.f == nil {
		return r.err
	}
	err := errors.Join(r.err, r.f.Close())
	r.f = nil
	return err
}

// Read loads a transcript file written by a Recorder, naming the line of any bad entry.
func Read(path string) ([]Entry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Decode(f, path)
}

// Decode reads NDJSON entries from r; name is used in errors.
func Decode(r io.Reader, name string) ([]Entry, error) {
	var out []Entry
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 256<<20)
	for n := 1; sc.Scan(); n++ {
		if len(sc.Bytes()) == 0 {
			continue
		}
		var e Entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return out, fmt.Errorf("%s:%d: not a transcript entry: %w", name, n, err)
		}
		out = append(out, e)
	}
	return out, sc.Err()
}
