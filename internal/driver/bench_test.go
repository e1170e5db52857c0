package driver

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// BenchmarkOversizedLine measures what a 50 MB stdout line costs the harness (issue 40: under
// 200 MB of extra memory): B/op is every byte allocated while the line is read, recorded and
// the command fails, an upper bound on the memory it holds.
//
//	go test -run '^$' -bench OversizedLine -benchtime 3x ./internal/driver
func BenchmarkOversizedLine(b *testing.B) {
	const size = 50 << 20
	script := fmt.Sprintf(`read -r line; head -c %d /dev/zero | tr '\0' x; echo; sleep 300`, size)
	b.ReportAllocs()
	for b.Loop() {
		c, err := Start(context.Background(), Local{Argv: []string{"sh", "-c", script}, Dir: b.TempDir()})
		if err != nil {
			b.Fatal(err)
		}
		var kept int
		c.SetSink(func(l Line) {
			if !l.ToDriver {
				kept += len(l.Body)
			}
		})
		if _, err := c.Call(context.Background(), "hello", nil, time.Minute); err == nil {
			b.Fatal("a 50 MB line was accepted")
		}
		c.Kill()
		if kept > KeptPrefix {
			b.Fatalf("%d bytes of the line were handed on", kept)
		}
	}
}
