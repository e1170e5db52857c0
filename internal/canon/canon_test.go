package canon

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func decode(t *testing.T, s string) any {
	t.Helper()
	v, err := Decode([]byte(s))
	require.NoError(t, err)
	return v
}

func TestValue(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"uuid anywhere", `{"a":["4f1c2a9e-1b2c-4d3e-8f90-123456789abc"]}`, `{"a":["<uuid>"]}`},
		{"sessionId key", `{"sessionId":"s-123"}`, `{"sessionId":"<sessionId>"}`},
		{"timestamp", `{"t":"2026-11-29T21:00:00.123Z","timestamp":"x"}`, `{"t":"<timestamp>","timestamp":"<timestamp>"}`},
		{"path", `{"cwd":"/home/me/project"}`, `{"cwd":"<path>"}`},
		{"absent, null and false stay apart", `{"a":null,"b":false}`, `{"a":null,"b":false}`},
		{"plain strings kept", `{"name":"finish","d":"a/b"}`, `{"name":"finish","d":"a/b"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, decode(t, tt.want), Value(decode(t, tt.in)))
		})
	}
}

func TestGet(t *testing.T) {
	v := decode(t, `{"tools":[{"name":"a","isTerminal":true},{"name":"b","metadata":{"k":[1,2]}}]}`)
	tests := []struct {
		path   string
		want   string
		wantOK bool
	}{
		{"tools[0].isTerminal", "true", true},
		{"tools[name=b].metadata.k[1]", "2", true},
		{"tools[name=b].isTerminal", "", false},
		{"tools[name=zz]", "", false},
		{"tools[7]", "", false},
		{"tools.x", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			got, ok := Get(v, tt.path)
			assert.Equal(t, tt.wantOK, ok)
			if ok {
				assert.Equal(t, tt.want, Show(got, ok))
			}
		})
	}
}

func TestKeys(t *testing.T) {
	v := decode(t, `{"tools":[{"is_terminal":true},{"metadata":{"is_terminal":1}}]}`)
	assert.Equal(t, []string{"tools[0].is_terminal", "tools[1].metadata.is_terminal"}, Keys(v, "is_terminal"))
}

func TestDiff(t *testing.T) {
	tests := []struct {
		name string
		in   map[string]string
		want []Difference
	}{
		{"equal", map[string]string{"go": `{"a":1}`, "node": `{"a":1}`}, nil},
		{"absent versus false", map[string]string{"go": `{"tools":[{"name":"x"}]}`, "node": `{"tools":[{"name":"x","isTerminal":false}]}`},
			[]Difference{{Path: "tools[0].isTerminal", Values: map[string]string{"go": Absent, "node": "false"}}}},
		{"missing subtree reported once", map[string]string{"go": `{"m":{"a":1,"b":2}}`, "node": `{}`},
			[]Difference{{Path: "m", Values: map[string]string{"go": `{"a":1,"b":2}`, "node": Absent}}}},
		{"array length", map[string]string{"go": `{"t":[1]}`, "py": `{"t":[1,2]}`},
			[]Difference{{Path: "t[1]", Values: map[string]string{"go": Absent, "py": "2"}}}},
		{"null versus empty list", map[string]string{"go": `{"tools":null}`, "rust": `{"tools":[]}`},
			[]Difference{{Path: "tools", Values: map[string]string{"go": "null", "rust": "[]"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := map[string]any{}
			for k, s := range tt.in {
				in[k] = decode(t, s)
			}
			assert.Equal(t, tt.want, Diff(in))
		})
	}
}

func TestSplitPath(t *testing.T) {
	for _, tc := range []struct {
		path string
		want []string
	}{
		{"", nil},
		{"a", []string{"a"}},
		{"a.b[0].c", []string{"a", "b", "[0]", "c"}},
		{"tools[name=finish].isTerminal", []string{"tools", "[name=finish]", "isTerminal"}},
		{"[1][2]", []string{"[1]", "[2]"}},
		{"a[open", []string{"a", "[open"}},
	} {
		assert.Equal(t, tc.want, SplitPath(tc.path), tc.path)
	}
}
