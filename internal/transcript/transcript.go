// Package transcript records every frame of a scenario, in order, in both directions, with a
// monotonic timestamp and the connection it came on, with secrets redacted (redact.go). Each entry is written to disk (NDJSON, one
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
	"strings"
	"sync"
	"time"
	"unicode/utf8"

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

// Kinds of a note whose facts a reader needs; each carries them in typed fields, and Text says
// the same for a person reading the file.
const (
	KindScenario = "scenario" // the first entry: Header names the scenario, feature and SDK
	KindSchema   = "schema"   // Violation: a request the runtime's published schema rejects
	KindArgv     = "argv"     // Argv: the arguments a runtime spawned by the SDK was started with
	// KindSpawn: Spawn holds what a runtime the SDK started itself for a probe was started
	// with and received (surface.Process), the facts a replay of the scenario reads again.
	KindSpawn = "spawn"
	// KindNotRun: the scenario did not reach the SDK. Capability names the capability it lacks
	// and Reason is the driver's note about it; with no Capability, the whole SDK is
	// unavailable and Reason says why.
	KindNotRun = "not-run"
	// KindCase: the requests on Conn from Since on (up to the next case note) belong to the
	// generated or swept case Case names (the field, option, handler or method and the edge it
	// tries), so that two runs, or two SDKs, pair a sweep's requests by case rather than by
	// position: the cases of a sweep run at once go out in no fixed order. Since 0 is the whole
	// connection (a case with a client of its own); a note without Conn covers every
	// connection from Since on (a sequential sweep), and one with an empty Case ends the cases.
	KindCase = "case"
)

// SpawnedConn names the connections of a runtime the SDK spawned itself (over stdio): that
// runtime writes a transcript of its own, which the scenario's takes in when it ends, each
// entry's connection prefixed "stdio-" (or "stdio" alone).
const SpawnedConn = "stdio"

// Spawned says whether an entry came from a runtime the SDK spawned itself.
func (e Entry) Spawned() bool {
	return e.Conn == SpawnedConn || strings.HasPrefix(e.Conn, SpawnedConn+"-")
}

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

	Kind       string     `json:"kind,omitempty"` // a note's kind (Kind* above), when readers use it
	Header     *Header    `json:"scenario,omitempty"`
	Violation  *Violation `json:"violation,omitempty"`
	Argv       []string   `json:"argv,omitempty"`
	Spawn      *Spawn     `json:"spawn,omitempty"`
	Capability string     `json:"capability,omitempty"`
	Reason     string     `json:"reason,omitempty"`
	Case       string     `json:"case,omitempty"`  // KindCase: the case's key
	Since      int        `json:"since,omitempty"` // KindCase: the first seq it covers (0: the whole connection)
	// ByStep marks a frame the runtime sent because the scenario's steps had it send it (a
	// session event, a call of a handler, a tool call outside a turn), not in answer to the
	// SDK: a replay plays it, and what followed it, when the steps ask for it again.
	ByStep bool `json:"byStep,omitempty"`
	// Redacted lists the secrets removed from Frame (see redact.go): where each was and which.
	Redacted []Redaction `json:"redacted,omitempty"`
	// HeaderTMS is set on a frame the runtime read whose body had not arrived when its header
	// was complete (the peer wrote them apart): when the header was complete, in the same clock
	// as TMS. Absent when header and body arrived together.
	HeaderTMS *float64 `json:"header_t_ms,omitempty"`
}

// Spawn is what a runtime the SDK started itself was started with (arguments, environment,
// working directory) and the requests it received. An environment value the SDK passed on
// unchanged from the harness's own environment is recorded as its fingerprint (Inherited), so
// the machine's variables never reach a transcript while comparisons of two spawns still hold.
type Spawn struct {
	Args     []string          `json:"args"`
	Env      map[string]string `json:"env"`
	Dir      string            `json:"dir"`
	Requests []SpawnRequest    `json:"requests,omitempty"`
	// Error is why the facts could not be read (the SDK did not start the program): a replay
	// gives the same error for the same spawn.
	Error string `json:"error,omitempty"`
}

// SpawnRequest is one request the spawned runtime received.
type SpawnRequest struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params,omitempty"`
}

// Header names the scenario a transcript records.
type Header struct {
	Name    string `json:"name"`
	Feature string `json:"feature"` // relative to the features folder
	SDK     string `json:"sdk"`
	// SchemaChecked says the runtime checked every request against its published schema, so
	// the absence of schema violations means something.
	SchemaChecked bool `json:"schemaChecked,omitempty"`
}

// Violation is one schema violation in a request's params, or in the result the SDK answered a
// runtime-to-SDK call with (its pointer then starts "/result").
type Violation struct {
	Method  string `json:"method"`
	Pointer string `json:"pointer"` // JSON pointer into the params (or into the answer's result)
	Message string `json:"message"`
	Keyword string `json:"keyword,omitempty"` // the schema keyword that failed
	// Answer marks a violation in the result the SDK answered a runtime-to-SDK call with.
	Answer bool `json:"answer,omitempty"`
}

// AnswerSuffix follows the method of a violation in an SDK's answer ("gitHubToken.getToken
// answer: /result: …").
const AnswerSuffix = " answer"

// String is "method: pointer: message" ("method answer: …" for an answer), as reports list
// violations.
func (v Violation) String() string {
	m := v.Method
	if v.Answer {
		m += AnswerSuffix
	}
	return m + ": " + v.Pointer + ": " + v.Message
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

// MaxRaw is how many bytes of something that was not a valid frame an entry keeps.
const MaxRaw = 64 << 10

// Add records one entry, filling in Seq and TMS.
func (r *Recorder) Add(e Entry) {
	// Redaction runs outside the lock: it may decode the frame.
	if len(e.Frame) > 0 && !json.Valid(e.Frame) {
		e.Raw, e.Frame = string(e.Frame), nil
	} else if len(e.Frame) > 0 && !utf8.Valid(e.Frame) {
		// Written as it is, it would make the transcript unreadable as JSON.
		e.Raw, e.Frame = string(e.Frame), nil
		if e.Error == "" {
			e.Error = "not UTF-8"
		}
	}
	if len(e.Raw) > MaxRaw {
		// A bad frame is evidence, not data: a prefix and its size say what it was, and a
		// driver or SDK cannot grow a report by the size of what it sent.
		e.Error = strings.TrimSpace(fmt.Sprintf("%s (%d bytes; the first %d kept)", e.Error, len(e.Raw), MaxRaw))
		e.Raw = e.Raw[:MaxRaw]
	}
	if len(e.Frame) > 0 {
		var reds []Redaction
		e.Frame, reds = redactFrame(e.Frame)
		e.Redacted = append(e.Redacted, reds...)
	}
	e.Raw, e.Text, e.Error, e.Reason = scrubRaw(e.Raw), Scrub(e.Text), Scrub(e.Error), Scrub(e.Reason)
	for i, a := range e.Argv {
		e.Argv[i] = Scrub(a)
	}
	if s := e.Spawn; s != nil { // a copy: the caller's facts stay as they were
		c := *s
		c.Args, c.Env, c.Dir, c.Error = make([]string, len(s.Args)), make(map[string]string, len(s.Env)), Scrub(s.Dir), Scrub(s.Error)
		for i, a := range s.Args {
			c.Args[i] = Scrub(a)
		}
		for k, v := range s.Env {
			c.Env[k] = Scrub(v)
		}
		e.Spawn = &c
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	e.Seq = len(r.entries) + 1
	e.TMS = float64(time.Since(r.start).Microseconds()) / 1000
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

// Scenario records the header that names the scenario; it is the transcript's first entry.
func (r *Recorder) Scenario(h Header) {
	r.Add(Entry{Dir: Note, Kind: KindScenario, Header: &h, Text: fmt.Sprintf("scenario %q (%s) on %s", h.Name, h.Feature, h.SDK)})
}

// Schema records a schema violation of a request that came on conn.
func (r *Recorder) Schema(conn string, v Violation) {
	r.Add(Entry{Conn: conn, Dir: Note, Kind: KindSchema, Violation: &v, Text: "schema: " + v.String()})
}

// Case records that conn's requests from seq since on (0: all of them; conn "": every
// connection's) belong to the case key ("": to no case).
func (r *Recorder) Case(conn string, since int, key string) {
	r.Add(Entry{Conn: conn, Dir: Note, Kind: KindCase, Case: key, Since: since, Text: "case " + key})
}

// Len is the number of entries so far: the seq of the next entry is Len()+1.
func (r *Recorder) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.entries)
}

// Started records the arguments a spawned runtime was started with.
func (r *Recorder) Started(argv []string) {
	r.Add(Entry{Dir: Note, Kind: KindArgv, Argv: append([]string(nil), argv...), Text: "argv: " + strings.Join(argv, " ")})
}

// Spawned records what a runtime the SDK started for a probe was started with and received.
func (r *Recorder) Spawned(s Spawn) {
	r.Add(Entry{Dir: Note, Kind: KindSpawn, Spawn: &s, Text: fmt.Sprintf("spawned runtime: %d arguments, %d environment variables, %d requests", len(s.Args), len(s.Env), len(s.Requests))})
}

// Unavailable records that the scenario did not run because the SDK is unavailable.
func (r *Recorder) Unavailable(reason string) {
	r.Add(Entry{Dir: Note, Kind: KindNotRun, Reason: reason, Text: "not run: the SDK is unavailable: " + reason})
}

// Lacks records that the scenario did not run because the SDK lacks capability; note is the
// driver's note about it and text the whole sentence.
func (r *Recorder) Lacks(capability, note, text string) {
	r.Add(Entry{Dir: Note, Kind: KindNotRun, Capability: capability, Reason: note, Text: "not run: " + text})
}

// HeaderOf returns the header of a recorded scenario, or false.
func HeaderOf(entries []Entry) (Header, bool) {
	for _, e := range entries {
		if e.Kind == KindScenario && e.Header != nil {
			return *e.Header, true
		}
	}
	return Header{}, false
}

// Violations returns every schema violation recorded.
func Violations(entries []Entry) []Violation {
	var out []Violation
	for _, e := range entries {
		if e.Kind == KindSchema && e.Violation != nil {
			out = append(out, *e.Violation)
		}
	}
	return out
}

// Entries returns a copy of the entries so far.
func (r *Recorder) Entries() []Entry {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Entry(nil), r.entries...)
}

// EntriesSince is Entries from the i-th on (a reader that polls decodes only what is new).
func (r *Recorder) EntriesSince(i int) []Entry {
	r.mu.Lock()
	defer r.mu.Unlock()
	if i >= len(r.entries) {
		return nil
	}
	return append([]Entry(nil), r.entries[i:]...)
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
