package wire

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// BenchmarkReader measures frame decoding: go test -bench Reader ./internal/wire
func BenchmarkReader(b *testing.B) {
	body := `{"jsonrpc":"2.0","id":7,"method":"session.create","params":{"sessionId":"x","tools":[` +
		strings.Repeat(`{"name":"t","description":"d","isTerminal":true},`, 20) + `{"name":"last"}]}}`
	stream := bytes.Repeat([]byte(frame(body)), 100)
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		r := NewReader(bytes.NewReader(stream))
		for {
			if _, err := r.Next(); err == io.EOF {
				break
			} else if err != nil {
				b.Fatal(err)
			}
		}
	}
}
