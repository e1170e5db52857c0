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
	"sync"
	"time"
	"unicode/utf8"
)

// DefaultMaxFrame is the largest body a Reader accepts unless told otherwise. The largest
// frames an SDK legitimately sends are session.create/resume with many tool schemas and
// system messages (tens of KiB); 16 MiB leaves room for large attachments while keeping what a
// misbehaving SDK can make the harness hold per connection small. A larger frame is reported
// by its declared size and its bytes are skipped without being held.
const DefaultMaxFrame = 16 << 20

// Bounds on everything else a peer can make the reader hold.
const (
	// MaxHeaderLine: a longer line cannot be a header; it is kept as its first and last
	// MaxHeaderLine/2 bytes (the tail may hold a header sent after garbage with no newline).
	MaxHeaderLine = 8 << 10
	// maxHeaderBlock bounds the header lines of one frame (a header flood).
	maxHeaderBlock = 64 << 10
	// maxKept bounds the bad bytes a FrameError carries; the rest are only counted.
	maxKept = 64 << 10
)

const headerName = "content-length:"

// FrameError is bad input on a stream. The reader has skipped the bad bytes and will
// resynchronize on the next "Content-Length:" header, so the caller can record it and keep
// reading. Bytes holds at most the first 64 KiB of what was skipped; Dropped counts the rest.
type FrameError struct {
	Reason   string
	Bytes    []byte
	Dropped  int64
	Declared int64 // the Content-Length of a frame over the limit, else 0
}

func (e *FrameError) Error() string {
	const show = 120
	b := e.Bytes
	suffix := ""
	if total := int64(len(e.Bytes)) + e.Dropped; len(b) > show || e.Dropped > 0 {
		if len(b) > show {
			b = b[:show]
		}
		suffix = fmt.Sprintf("… (%d bytes)", total)
	}
	return fmt.Sprintf("%s: %q%s", e.Reason, b, suffix)
}

// Reader reads LSP frames. Whatever a peer sends, it holds at most about
// max(MaxFrame, 64 KiB) plus its 64 KiB buffer.
type Reader struct {
	br       *bufio.Reader
	maxFrame int64
	pending  []byte // a header line found inside garbage, to be parsed by the next call
	line     []byte // reused buffer for lines longer than the bufio buffer
	last     Frame  // timing of the frame Next last returned a body for
}

// Option configures a Reader.
type Option func(*Reader)

// WithMaxFrame sets the largest body accepted (DefaultMaxFrame when unset or n <= 0).
func WithMaxFrame(n int64) Option {
	return func(r *Reader) {
		if n > 0 {
			r.maxFrame = n
		}
	}
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
func NewReader(r io.Reader, opts ...Option) *Reader {
	rd := &Reader{br: bufio.NewReaderSize(r, 64<<10), maxFrame: DefaultMaxFrame}
	for _, o := range opts {
		o(rd)
	}
	return rd
}

// readLine returns the next line, newline included, valid until the next call, and how many
// bytes of it were dropped: a line over MaxHeaderLine is returned as its head and tail.
func (r *Reader) readLine() ([]byte, int64, error) {
	if r.pending != nil {
		l := r.pending
		r.pending = nil
		return l, 0, nil
	}
	frag, err := r.br.ReadSlice('\n')
	if err != bufio.ErrBufferFull && len(frag) <= MaxHeaderLine {
		return frag, 0, err // the common case: no copy
	}
	const half = MaxHeaderLine / 2
	var dropped int64
	head := append(r.line[:0], frag[:min(len(frag), half)]...)
	tail := append([]byte(nil), frag[min(len(frag), half):]...)
	for err == bufio.ErrBufferFull {
		frag, err = r.br.ReadSlice('\n')
		tail = append(tail, frag...)
		if n := len(tail) - half; n > 0 {
			dropped += int64(n)
			tail = tail[:copy(tail, tail[n:])]
		}
	}
	if n := len(tail) - half; n > 0 { // the first fragment alone was over the limit
		dropped += int64(n)
		tail = tail[:copy(tail, tail[n:])]
	}
	r.line = append(head, tail...)
	return r.line, dropped, err
}

// indexHeader is the case-insensitive index of "content-length:" in b, or -1 (no allocation,
// since it runs on every line of a flood).
func indexHeader(b []byte) int {
	for i := 0; i+len(headerName) <= len(b); i++ {
		if (b[i] == 'c' || b[i] == 'C') && bytes.EqualFold(b[i:i+len(headerName)], []byte(headerName)) {
			return i
		}
	}
	return -1
}

// bad collects skipped bytes, keeping the first maxKept and counting the rest.
type bad struct {
	kept    []byte
	dropped int64
}

func (b *bad) add(p []byte, dropped int64) {
	b.dropped += dropped
	if room := maxKept - len(b.kept); room > 0 {
		n := min(room, len(p))
		b.kept = append(b.kept, p[:n]...)
		p = p[n:]
	}
	b.dropped += int64(len(p))
}

func (b *bad) empty() bool { return len(b.kept) == 0 && b.dropped == 0 }

func (b *bad) err(reason string) *FrameError {
	return &FrameError{Reason: reason, Bytes: b.kept, Dropped: b.dropped}
}

// Next returns the body of the next frame. On bad input it returns a *FrameError (and, when the
// framing was right but the body is not JSON, the body too); the next call goes on with the
// following frame. It returns io.EOF at a clean end of stream.
func (r *Reader) Next() ([]byte, error) {
	var garbage bad
	length := int64(-1)
	var header []byte // the Content-Length line and the header lines after it
	for {
		line, dropped, err := r.readLine()
		if err != nil {
			garbage.add(line, dropped)
			if errors.Is(err, io.EOF) && garbage.empty() && length < 0 {
				return nil, io.EOF
			}
			if errors.Is(err, io.EOF) {
				g := bad{kept: header}
				g.add(garbage.kept, garbage.dropped)
				return nil, g.err("stream ended inside a frame")
			}
			return nil, err
		}
		t := bytes.TrimRight(line, "\r\n")
		if length < 0 && len(t) == 0 && garbage.empty() {
			continue // tolerate blank lines between frames
		}
		if i := indexHeader(t); i >= 0 {
			if i > 0 || !garbage.empty() || length >= 0 {
				g := bad{kept: header}
				g.add(garbage.kept, garbage.dropped)
				g.add(line[:i], dropped)
				r.pending = append([]byte(nil), line[i:]...)
				return nil, g.err("bytes outside a frame")
			}
			n, perr := strconv.ParseInt(string(bytes.TrimSpace(t[len(headerName):])), 10, 64)
			if perr != nil || n < 0 {
				return nil, &FrameError{Reason: "bad Content-Length header", Bytes: append([]byte(nil), line...)}
			}
			length, header = n, append([]byte(nil), line...)
			continue
		}
		if length >= 0 {
			if len(t) == 0 {
				return r.body(length, header)
			}
			if len(header)+len(line) <= maxHeaderBlock && bytes.IndexByte(t, ':') >= 0 && !bytes.ContainsAny(t, "{}\"") {
				header = append(header, line...)
				continue // another header, such as Content-Type
			}
			if len(header)+len(line) > maxHeaderBlock {
				g := bad{kept: header}
				g.add(line, dropped)
				return nil, g.err(fmt.Sprintf("header block over %d bytes", maxHeaderBlock))
			}
			garbage.add(header, 0)
			garbage.add(line, dropped)
			header, length = nil, -1
			continue
		}
		garbage.add(line, dropped)
	}
}

// body reads (or, over the limit, skips) a body of length bytes whose headers were header.
func (r *Reader) body(length int64, header []byte) ([]byte, error) {
	if length > r.maxFrame {
		skipped, err := io.CopyN(io.Discard, r.br, length)
		fe := &FrameError{Bytes: header, Declared: length, Dropped: skipped}
		fe.Reason = fmt.Sprintf("frame of %d bytes is over the %d-byte limit; its body was skipped", length, r.maxFrame)
		if err != nil {
			fe.Reason = fmt.Sprintf("stream ended inside a %d-byte body over the %d-byte limit (%d bytes skipped)", length, r.maxFrame, skipped)
		}
		return nil, fe
	}
	r.last = Frame{HeaderAt: time.Now(), Split: length > 0 && r.br.Buffered() == 0}
	body := make([]byte, length)
	n, err := io.ReadFull(r.br, body)
	r.last.BodyAt = time.Now()
	if err != nil {
		return nil, &FrameError{Reason: fmt.Sprintf("stream ended inside a %d-byte body", length), Bytes: body[:n]}
	}
	if !json.Valid(body) {
		return body, &FrameError{Reason: "frame body is not JSON", Bytes: body}
	}
	// JSON text is UTF-8 (RFC 8259 §8.1); json.Valid does not check the bytes inside strings.
	if i := InvalidUTF8(body); i >= 0 {
		return body, &FrameError{Reason: fmt.Sprintf("frame body is not UTF-8 (byte %d)", i), Bytes: body}
	}
	return body, nil
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

// WriteRaw writes b as it is (bytes that are not a frame, passed on for the peer to judge),
// never in the middle of a frame another goroutine writes.
func (w *Writer) WriteRaw(b []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, err := w.w.Write(b)
	return err
}

// InvalidUTF8 is the offset of the first byte of b that is not UTF-8, -1 when it all is.
func InvalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return -1
}
