package wire

import (
	"bytes"
	"errors"
	"fmt"
	"io"
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
		oneByte    bool // deliver the stream one byte per read: every frame is split
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
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var in io.Reader = strings.NewReader(tt.input)
			if tt.oneByte {
				in = iotest.OneByteReader(in)
			}
			bodies, errs := readAll(t, NewReader(in))
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

func TestWriterRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	require.NoError(t, w.Write([]byte(`{"a":"ü"}`)))
	assert.Equal(t, "Content-Length: 10\r\n\r\n{\"a\":\"ü\"}", buf.String())
	body, err := NewReader(&buf).Next()
	require.NoError(t, err)
	assert.JSONEq(t, `{"a":"ü"}`, string(body))
}

func FuzzReader(f *testing.F) {
	f.Add([]byte(frame(`{"a":1}`)))
	f.Add([]byte("Content-Length: 3\r\n\r\n{}}garbage\nContent-Length: 2\r\n\r\n{}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewReader(bytes.NewReader(data))
		for i := 0; i < len(data)+2; i++ {
			if _, err := r.Next(); errors.Is(err, io.EOF) {
				return
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
