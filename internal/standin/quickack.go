package standin

import (
	"net"
	"syscall"
)

// quickAckConn acknowledges every read at once instead of letting the kernel delay the ACK.
//
// Why: an SDK that writes a frame's Content-Length header and its body as two small sends
// (measured: the Python SDK 1.0.27 over TCP, an unbuffered socket file) has Nagle's algorithm on
// its side hold the body until the header is acknowledged, and Linux delays that ACK by its
// 40 ms minimum because the runtime has nothing to send back yet. Each such request then reaches
// the runtime ~43 ms late. Setting TCP_QUICKACK after each read makes the kernel send the pending
// ACK now (it is not sticky, hence once per read); the bytes on the wire are unchanged. The
// split itself stays visible in the transcript (see wire.Timing).
type quickAckConn struct {
	net.Conn
	raw syscall.RawConn // nil when the connection has no file descriptor to tune
}

// NewQuickAckConn wraps c in a quickAckConn: the stand-in and the real runtime's recording proxy
// read every SDK connection through one.
func NewQuickAckConn(c net.Conn) net.Conn {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return c
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return c
	}
	return &quickAckConn{Conn: c, raw: raw}
}

func (c *quickAckConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		_ = c.raw.Control(quickAck) // best effort: a failure only costs the delay it avoids
	}
	return n, err
}
