package canon

import (
	"reflect"
	"testing"
)

// FuzzCanonDiff: normalizing is idempotent, a payload never differs from itself, two payloads
// differ exactly when their normalized forms are unequal, and Get never panics on any path.
func FuzzCanonDiff(f *testing.F) {
	f.Add([]byte(`{"sessionId":"s1","tools":[{"name":"x","isTerminal":false}],"t":"2024-01-01T00:00:00Z"}`),
		[]byte(`{"sessionId":"s2","tools":[{"name":"x"}],"p":"/tmp/a/b"}`), "tools[name=x].isTerminal")
	f.Add([]byte(`{"tools":null}`), []byte(`{"tools":[]}`), "tools[0]")
	f.Add([]byte(`[1,{"a":[2]}]`), []byte(`"0b0e5c3e-1111-2222-3333-444455556666"`), "[1].a[0]")
	f.Add([]byte(`{"a.b":{"c":1}}`), []byte(`{"a":{"b":1e999}}`), "a.b.c")
	f.Fuzz(func(t *testing.T, a, b []byte, path string) {
		va, errA := Decode(a)
		vb, errB := Decode(b)
		if errA != nil || errB != nil {
			return
		}
		na, nb := Value(va), Value(vb)
		if !reflect.DeepEqual(Value(na), na) {
			t.Fatalf("Value is not idempotent on %s", a)
		}
		if d := Diff(map[string]any{"x": na, "y": na}); len(d) != 0 {
			t.Fatalf("a payload differs from itself: %v", d)
		}
		d := Diff(map[string]any{"x": na, "y": nb})
		if (len(d) == 0) != reflect.DeepEqual(na, nb) {
			t.Fatalf("Diff says %v for %s vs %s", d, a, b)
		}
		v, ok := Get(na, path)
		_ = Show(v, ok)
		_ = Keys(na, path)
	})
}
