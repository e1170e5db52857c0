package runtime

import "testing"

// BenchmarkRoundTrip measures one request through the recording runtime over loopback TCP,
// recorded in both directions: go test -bench RoundTrip ./internal/runtime
func BenchmarkRoundTrip(b *testing.B) {
	_, _, addr := start(b)
	c := dial(b, addr)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c.call("connect", map[string]any{})
	}
}
