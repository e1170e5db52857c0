// Package wire reads and writes JSON-RPC 2.0 messages in LSP framing
// ("Content-Length: N\r\n\r\n" then N bytes of JSON), the transport every Copilot SDK uses.
//
// Hand-written rather than taken from an LSP library because the harness needs what those
// libraries hide: the exact bytes of every frame for the transcript, and recovery from bad
// input (a wrong Content-Length, a body that is not JSON, garbage between frames) that reports
// the offending bytes and keeps the connection alive instead of closing it.
package wire

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"
)

// MaxFrame bounds one body so a corrupt length cannot make the reader allocate without limit.
const MaxFrame = 64 << 20

const headerName = "content-length:"

// FrameError is bad input on a stream. The reader has skipped Bytes and will resynchronize on
// the next "Content-Length:" header, so the caller can record it and keep reading.
type FrameError struct {
	Reason string
	Bytes  []byte
}

func (e *FrameError) Error() string {
	const show = 120
	b := e.Bytes
	suffix := ""
	if len(b) > show {
		b, suffix = b[:show], fmt.Sprintf("… (%d bytes)", len(e.Bytes))
	}
	return fmt.Sprintf("%s: %q%s", e.Reason, b, suffix)
}

// Reader reads LSP frames.
type Reader struct {
	br      *bufio.Reader
	pending string // a header line found inside garbage, to be parsed by the next call
	last    Frame  // timing of the frame Next last returned a body for
}

// Frame is one frame's body with when its parts arrived, so a peer that writes the header and
// the body apart can be told from one that writes them together.
type Frame struct {
	Body     []byte
	HeaderAt time.Time // the header's closing blank line was read
	BodyAt   time.Time // the body was complete
	// Split: none of the body had arrived when the header was complete (the peer sent them in
	// two writes; with Nagle's algorithm on its side the body can wait for an ACK).
	Split bool
}

// NextFrame is Next with the frame's arrival times.
func (r *Reader) NextFrame() (Frame, error) {
	r.last = Frame{}
	body, err := r.Next()
	f := r.last
	f.Body = body
	return f, err
}

// NewReader wraps r.
func NewReader(r io.Reader) *Reader { return &Reader{br: bufio.NewReaderSize(r, 64<<10)} }

func (r *Reader) readLine() (string, error) {
	if r.pending != "" {
		l := r.pending
		r.pending = ""
		return l, nil
	}
	return r.br.ReadString('\n')
}

// Next returns the body of the next frame. On bad input it returns a *FrameError (and, when the
// framing was right but the body is not JSON, the body too); the next call goes on with the
// following frame. It returns io.EOF at a clean end of stream.
func (r *Reader) Next() ([]byte, error) {
	var garbage []byte
	length := -1
	var header string
	for {
		line, err := r.readLine()
		if err != nil {
			garbage = append(garbage, line...)
			if errors.Is(err, io.EOF) && len(garbage) == 0 && length < 0 {
				return nil, io.EOF
			}
			if errors.Is(err, io.EOF) {
				return nil, &FrameError{Reason: "stream ended inside a frame", Bytes: append([]byte(header), garbage...)}
			}
			return nil, err
		}
		t := strings.TrimRight(line, "\r\n")
		if length < 0 && t == "" && len(garbage) == 0 {
			continue // tolerate blank lines between frames
		}
		if i := strings.Index(strings.ToLower(t), headerName); i >= 0 {
			if i > 0 || len(garbage) > 0 || length >= 0 {
				garbage = append(append([]byte(header), garbage...), line[:i]...)
				r.pending = line[i:]
				return nil, &FrameError{Reason: "bytes outside a frame", Bytes: garbage}
			}
			n, perr := strconv.Atoi(strings.TrimSpace(t[len(headerName):]))
			if perr != nil || n < 0 || n > MaxFrame {
				return nil, &FrameError{Reason: "bad Content-Length header", Bytes: []byte(line)}
			}
			length, header = n, line
			continue
		}
		if length >= 0 {
			if t == "" {
				r.last = Frame{HeaderAt: time.Now(), Split: length > 0 && r.br.Buffered() == 0}
				body := make([]byte, length)
				_, err := io.ReadFull(r.br, body)
				r.last.BodyAt = time.Now()
				if err != nil {
					return nil, &FrameError{Reason: fmt.Sprintf("stream ended inside a %d-byte body", length), Bytes: body}
				}
				if !json.Valid(body) {
					return body, &FrameError{Reason: "frame body is not JSON", Bytes: body}
				}
				return body, nil
			}
			if strings.Contains(t, ":") && !strings.ContainsAny(t, "{}\"") {
				continue // another header, such as Content-Type
			}
			garbage, header, length = append([]byte(header), line...), "", -1
			continue
		}
		garbage = append(garbage, line...)
	}
}

// Writer writes LSP frames; it is safe for concurrent use.
type Writer struct {
	mu sync.Mutex
	w  io.Writer
}

// NewWriter wraps w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write writes body as one frame (only the Content-Length header: Python's reader accepts exactly one).
func (w *Writer) Write(body []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "Content-Length: %d\r\n\r\n", len(body))
	buf.Write(body)
	_, err := w.w.Write(buf.Bytes())
	return err
}
