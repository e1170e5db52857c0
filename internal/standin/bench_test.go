package standin

import (
	"fmt"
	"net"
	"testing"

	"github.com/stretchr/testify/require"
)

// BenchmarkRoundTrip measures one request through the recording runtime over loopback TCP,
// recorded in both directions: go test -bench RoundTrip ./internal/standin
func BenchmarkRoundTrip(b *testing.B) {
	_, _, addr := start(b)
	c := dial(b, addr)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c.call("connect", map[string]any{})
	}
}

// BenchmarkSplitFrameRoundTrip is BenchmarkRoundTrip for a peer that writes each frame's header
// and body as two sends with Nagle's algorithm on, as the Python SDK does over TCP. Without the
// runtime's quick ACK each op takes the kernel's delayed-ACK minimum (~40 ms on Linux) instead of
// a fraction of a millisecond: go test -bench SplitFrame ./internal/standin
func BenchmarkSplitFrameRoundTrip(b *testing.B) {
	_, _, addr := start(b)
	c := dial(b, addr)
	require.NoError(b, c.c.(*net.TCPConn).SetNoDelay(false))
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{}}`)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_, err := fmt.Fprintf(c.c, "Content-Length: %d\r\n\r\n", len(body))
		require.NoError(b, err)
		_, err = c.c.Write(body)
		require.NoError(b, err)
		c.read()
	}
}
