package standin

import (
	"io"
	"sync"
	"time"
)

// Framing is how the runtime puts its frames on the connection, so a scenario can check that an
// SDK's reader copes with what a real stream delivers: one frame split over many reads, several
// frames arriving in one read. The frames themselves are unchanged and recorded as usual.
type Framing struct {
	// SplitEvery > 0 writes each frame in pieces of this many bytes, the first spacedPieces of
	// them with a short pause between them so that they arrive in separate reads (the header and
	// the body's start cut across reads); the rest back to back, since a pause per piece of every
	// frame outlasted a turn on a loaded machine (sendAndWait's 20 s at load ~20).
	SplitEvery int
	// PieceLimit > 1 writes a frame in at most that many pieces: the first SplitEvery bytes (the
	// header cut short), then the rest in PieceLimit-1 equal parts (the body split too). The real
	// runtime sends many long event frames per turn, and a pause per 7 bytes of every one of them
	// would outlast the scenario on a loaded machine (the proxy sets it).
	PieceLimit int
	// Coalesce holds frames for a moment and writes them together in one write.
	Coalesce bool
}

// pieceGap is long enough for the peer to read a piece on its own, short enough to keep a
// scenario fast.
const pieceGap = 2 * time.Millisecond

// spacedPieces is how many pieces of a split frame are written apart.
const spacedPieces = 16

// coalesceWindow is how long frames are held to be written together.
const coalesceWindow = 30 * time.Millisecond

// SetFraming applies to connections opened from now on.
func (s *Server) SetFraming(f Framing) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script.Framing = f
}

// framedWriter wraps a connection's writer according to the scenario's Framing; s.mu is held.
func (s *Server) framedWriter(w io.Writer) io.Writer { return s.script.Framing.Writer(w) }

// Writer wraps w so that what is written to it reaches the peer as f says (the recording proxy
// in front of the real runtime writes the runtime's frames through it too).
func (f Framing) Writer(w io.Writer) io.Writer {
	switch {
	case f.SplitEvery > 0:
		return &splitWriter{w: w, size: f.SplitEvery, limit: f.PieceLimit}
	case f.Coalesce:
		return &coalescingWriter{w: w}
	}
	return w
}

type splitWriter struct {
	w           io.Writer
	size, limit int
}

func (s *splitWriter) Write(p []byte) (int, error) {
	size := s.size
	for off, n := 0, 1; off < len(p); off, n = off+size, n+1 {
		if n == 2 && s.limit > 1 {
			size = max(1, (len(p)-off+s.limit-2)/(s.limit-1))
		}
		end := min(off+size, len(p))
		if _, err := s.w.Write(p[off:end]); err != nil {
			return off, err
		}
		if end == len(p) {
			break
		}
		if n < spacedPieces {
			time.Sleep(pieceGap)
		}
	}
	return len(p), nil
}

// coalescingWriter buffers writes and flushes them together after coalesceWindow. A write error
// surfaces on the next Write.
type coalescingWriter struct {
	mu    sync.Mutex
	w     io.Writer
	buf   []byte
	timer *time.Timer
	err   error
}

func (c *coalescingWriter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return 0, c.err
	}
	c.buf = append(c.buf, p...)
	if c.timer == nil {
		c.timer = time.AfterFunc(coalesceWindow, c.flush)
	}
	return len(p), nil
}

func (c *coalescingWriter) flush() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.buf) > 0 {
		_, c.err = c.w.Write(c.buf)
	}
	c.buf, c.timer = nil, nil
}

// rawReply is a model reply given as a JSON string literal, written into the frame as is, so
// that escapes such as an unpaired surrogate ("\ud800") reach the SDK exactly as a real runtime
// (JavaScript) may write them; Go's encoder would replace them.
func rawReply(st ModelStep) any {
	if len(st.ReplyJSON) > 0 {
		return st.ReplyJSON
	}
	return st.Reply
}

// SetLegacyHandshake makes the runtime answer connect the way a runtime that predates the
// connect handshake does (method not found, "Unhandled method connect"), so an SDK must fall
// back to ping.
func (s *Server) SetLegacyHandshake() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script.LegacyHandshake = true
}

func (s *Server) legacyHandshake() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.script.LegacyHandshake
}
