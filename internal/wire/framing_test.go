package wire

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func frame(body string) string { return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body) }

// readAll drains a reader, returning the good bodies and the reasons of the frame errors, in order.
func readAll(t *testing.T, r *Reader) (bodies []string, errs []string) {
	t.Helper()
	for i := 0; i < 100; i++ {
		body, err := r.Next()
		if errors.Is(err, io.EOF) {
			return
		}
		var fe *FrameError
		if err != nil {
			require.ErrorAs(t, err, &fe, "only frame errors and EOF are expected")
			errs = append(errs, fe.Reason)
			continue
		}
		bodies = append(bodies, string(body))
	}
	t.Fatal("reader did not reach EOF")
	return
}

func TestReader(t *testing.T) {
	a, b := `{"jsonrpc":"2.0","id":1,"method":"connect","params":{}}`, `{"jsonrpc":"2.0","method":"x","params":{"é":"ü"}}`
	tests := []struct {
		name       string
		input      string
		oneByte    bool  // deliver the stream one byte per read: every frame is split
		max        int64 // WithMaxFrame, when set
		wantBodies []string
		wantErrs   []string
	}{
		{name: "one frame", input: frame(a), wantBodies: []string{a}},
		{name: "frame split across reads", input: frame(a) + frame(b), oneByte: true, wantBodies: []string{a, b}},
		{name: "several frames in one read", input: frame(a) + frame(b) + frame(a), wantBodies: []string{a, b, a}},
		{name: "extra header tolerated", input: "Content-Length: " + fmt.Sprint(len(a)) + "\r\nContent-Type: application/json\r\n\r\n" + a, wantBodies: []string{a}},
		{name: "lower-case header", input: strings.ToLower(frame(a)[:16]) + frame(a)[16:], wantBodies: []string{a}},
		{name: "Content-Length too short", input: fmt.Sprintf("Content-Length: %d\r\n\r\n%s", 10, a) + frame(b),
			wantBodies: []string{b}, wantErrs: []string{"frame body is not JSON", "bytes outside a frame"}},
		{name: "Content-Length not a number", input: "Content-Length: ten\r\n\r\n" + a + frame(b),
			wantBodies: []string{b}, wantErrs: []string{"bad Content-Length header", "bytes outside a frame"}},
		{name: "body is not JSON", input: frame("not json{") + frame(b),
			wantBodies: []string{b}, wantErrs: []string{"frame body is not JSON"}},
		{name: "garbage between frames", input: frame(a) + "hello there\n" + frame(b),
			wantBodies: []string{a, b}, wantErrs: []string{"bytes outside a frame"}},
		{name: "stream ends inside a body", input: frame(a) + "Content-Length: 100\r\n\r\n{\"x\"",
			wantBodies: []string{a}, wantErrs: []string{"stream ended inside a 100-byte body"}},
		{name: "stream ends inside a header", input: frame(a) + "Content-Len",
			wantBodies: []string{a}, wantErrs: []string{"stream ended inside a frame"}},
		{name: "frame over the limit is skipped by its declared size", max: 10, input: frame(a) + frame(`{"x":1}`),
			wantErrs: []string{fmt.Sprintf("frame of %d bytes is over the 10-byte limit; its body was skipped", len(a))}, wantBodies: []string{`{"x":1}`}},
		{name: "stream ends inside a frame over the limit", max: 10, input: "Content-Length: 1000\r\n\r\n{}",
			wantErrs: []string{"stream ended inside a 1000-byte body over the 10-byte limit (2 bytes skipped)"}},
		{name: "Content-Length overflows int64", input: "Content-Length: 99999999999999999999\r\n\r\n" + frame(b),
			wantBodies: []string{b}, wantErrs: []string{"bad Content-Length header"}},
		{name: "header line longer than the limit, header after it", input: strings.Repeat("x", 3*MaxHeaderLine) + frame(b),
			wantBodies: []string{b}, wantErrs: []string{"bytes outside a frame"}},
		{name: "header flood", input: "Content-Length: 2\r\n" + strings.Repeat("X-A: b\r\n", maxHeaderBlock/8+1) + "\r\n{}" + frame(b),
			wantBodies: []string{b}, wantErrs: []string{fmt.Sprintf("header block over %d bytes", maxHeaderBlock), "bytes outside a frame"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var in io.Reader = strings.NewReader(tt.input)
			if tt.oneByte {
				in = iotest.OneByteReader(in)
			}
			bodies, errs := readAll(t, NewReader(in, WithMaxFrame(tt.max)))
			assert.Equal(t, tt.wantBodies, bodies)
			assert.Equal(t, tt.wantErrs, errs)
		})
	}
}

func TestNotJSONErrorCarriesBody(t *testing.T) {
	body, err := NewReader(strings.NewReader(frame("nope"))).Next()
	var fe *FrameError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, "nope", string(body))
	assert.Contains(t, fe.Error(), `"nope"`)
}

// TestNotUTF8IsAFrameError: JSON text is UTF-8; a body json.Valid accepts with a byte that is not
// is named, with its offset.
func TestNotUTF8IsAFrameError(t *testing.T) {
	_, err := NewReader(strings.NewReader(frame("{\"a\":\"x\xff\"}"))).Next()
	var fe *FrameError
	require.ErrorAs(t, err, &fe)
	assert.Contains(t, fe.Reason, "frame body is not UTF-8 (byte 7)")
}

func TestWriterRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	require.NoError(t, w.Write([]byte(`{"a":"ü"}`)))
	assert.Equal(t, "Content-Length: 10\r\n\r\n{\"a\":\"ü\"}", buf.String())
	body, err := NewReader(&buf).Next()
	require.NoError(t, err)
	assert.JSONEq(t, `{"a":"ü"}`, string(body))
}

// repeat is a stream of n bytes of pattern p produced lazily, so a test can send 100 MB
// without holding it.
type repeat struct {
	p []byte
	n int64
	i int
}

func (r *repeat) Read(b []byte) (int, error) {
	if r.n <= 0 {
		return 0, io.EOF
	}
	if int64(len(b)) > r.n {
		b = b[:r.n]
	}
	k := 0
	for k < len(b) {
		c := copy(b[k:], r.p[r.i:])
		k += c
		r.i = (r.i + c) % len(r.p)
	}
	r.n -= int64(k)
	return k, nil
}

func stream(parts ...any) io.Reader {
	var rs []io.Reader
	for _, p := range parts {
		switch p := p.(type) {
		case string:
			rs = append(rs, strings.NewReader(p))
		case *repeat:
			rs = append(rs, p)
		}
	}
	return io.MultiReader(rs...)
}

// TestBoundedMemory feeds floods of 100 MB and checks what reading them allocates in total:
// a misbehaving SDK costs a bounded amount of memory, whatever it sends.
func TestBoundedMemory(t *testing.T) {
	const flood = 100 << 20
	good := `{"jsonrpc":"2.0","method":"ok"}`
	tests := []struct {
		name     string
		in       func() io.Reader
		wantErrs []string
	}{
		{name: "100 MB frame", in: func() io.Reader {
			return stream(fmt.Sprintf("Content-Length: %d\r\n\r\n", flood), &repeat{p: []byte("x"), n: flood}, frame(good))
		}, wantErrs: []string{fmt.Sprintf("frame of %d bytes is over the %d-byte limit; its body was skipped", flood, DefaultMaxFrame)}},
		{name: "100 MB with no newline", in: func() io.Reader {
			return stream(&repeat{p: []byte("garbage "), n: flood}, frame(good))
		}, wantErrs: []string{"bytes outside a frame"}},
		{name: "100 MB of garbage lines", in: func() io.Reader {
			return stream(&repeat{p: []byte("garbage\n"), n: flood}, frame(good))
		}, wantErrs: []string{"bytes outside a frame"}},
		{name: "header flood", in: func() io.Reader {
			return stream("Content-Length: 2\r\n", &repeat{p: []byte("X-Flood: yes\r\n"), n: flood}, "\r\n{}", frame(good))
		}, wantErrs: []string{fmt.Sprintf("header block over %d bytes", maxHeaderBlock), "bytes outside a frame"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := tt.in()
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			bodies, errs := readAll(t, NewReader(in))
			runtime.ReadMemStats(&after)
			assert.Equal(t, []string{good}, bodies)
			assert.Equal(t, tt.wantErrs, errs)
			allocated := after.TotalAlloc - before.TotalAlloc
			assert.Less(t, allocated, uint64(2<<20), "reading %d bytes allocated %d bytes", flood, allocated)
		})
	}
}

func TestOverLimitErrorNamesDeclaredSize(t *testing.T) {
	_, err := NewReader(strings.NewReader(frame(`{"a":"bcdefgh"}`)), WithMaxFrame(4)).Next()
	var fe *FrameError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, int64(15), fe.Declared)
	assert.Equal(t, "Content-Length: 15\r\n", string(fe.Bytes), "the header is kept, the body is not")
	assert.Contains(t, fe.Error(), "frame of 15 bytes is over the 4-byte limit")
}

func FuzzReader(f *testing.F) {
	f.Add([]byte(frame(`{"a":1}`)))
	f.Add([]byte("Content-Length: 3\r\n\r\n{}}garbage\nContent-Length: 2\r\n\r\n{}"))
	f.Add([]byte("Content-Length: 40\r\nContent-Type: x\r\n\r\n{\"too\":\"long for the limit of the fuzz reader\"}"))
	f.Add([]byte("content-length: 2\n\n{}Content-Length: -1\r\n\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		// a small limit so the fuzzer reaches the over-the-limit path
		r := NewReader(bytes.NewReader(data), WithMaxFrame(32))
		for i := 0; i < len(data)+2; i++ {
			body, err := r.Next()
			if errors.Is(err, io.EOF) {
				return
			}
			var fe *FrameError
			if err != nil && !errors.As(err, &fe) {
				t.Fatalf("unexpected error %v", err)
			}
			if len(body) > 32 || (fe != nil && len(fe.Bytes) > maxKept+maxHeaderBlock) {
				t.Fatalf("reader held more than its limits: body %d, error bytes %d", len(body), len(fe.Bytes))
			}
		}
		t.Fatalf("reader made no progress on %q", data)
	})
}

func TestNextFrameTellsASplitFrame(t *testing.T) {
	body := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	header := fmt.Sprintf("Content-Length: %d\r\n\r\n", len(body))
	tests := []struct {
		name      string
		writes    []string
		wantSplit bool
	}{
		{name: "header and body in one write", writes: []string{header + body}},
		{name: "header and body in two writes", writes: []string{header, body}, wantSplit: true},
		{name: "body split after its first byte", writes: []string{header + body[:1], body[1:]}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pr, pw := io.Pipe()
			go func() {
				for _, w := range tt.writes {
					_, _ = pw.Write([]byte(w)) // an io.Pipe read returns at most one write
				}
				pw.Close()
			}()
			f, err := NewReader(pr).NextFrame()
			require.NoError(t, err)
			assert.Equal(t, body, string(f.Body))
			assert.Equal(t, tt.wantSplit, f.Split)
			assert.False(t, f.HeaderAt.IsZero())
			assert.False(t, f.BodyAt.Before(f.HeaderAt))
		})
	}
}
