package canon

import (
	"fmt"
	"testing"
)

// BenchmarkDiff measures normalizing and diffing one session.create per SDK across six SDKs:
// go test -bench Diff ./internal/canon
func BenchmarkDiff(b *testing.B) {
	raw := map[string][]byte{}
	for i, sdk := range []string{"node", "go", "python", "rust", "java", "dotnet"} {
		raw[sdk] = []byte(fmt.Sprintf(`{"sessionId":"4f1c2a9e-1b2c-4d3e-8f90-123456789abc","tools":[{"name":"a","isTerminal":%v,"metadata":{"k":%d}},{"name":"b"}]}`, i%2 == 0, i))
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		in := map[string]any{}
		for sdk, r := range raw {
			v, _ := Decode(r)
			in[sdk] = Value(v)
		}
		if len(Diff(in)) == 0 {
			b.Fatal("want differences")
		}
	}
}
