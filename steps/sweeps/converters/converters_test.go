package converters

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestRestored(t *testing.T) {
	built := map[string]any{"a": 1.0, "b": nil, "c": map[string]any{"d": "x"}}
	tests := []struct {
		name    string
		written any
		unrep   []string
		want    any
	}{
		{"nothing unrepresentable", map[string]any{"a": 2.0}, nil, map[string]any{"a": 2.0}},
		{"a member put back as built", map[string]any{"c": map[string]any{}}, []string{"/c/d"}, map[string]any{"c": map[string]any{"d": "x"}}},
		{"a null stays as written", map[string]any{"a": 1.0}, []string{"/b"}, map[string]any{"a": 1.0}},
		{"a member not built is removed", map[string]any{"a": 1.0, "z": true}, []string{"/z"}, map[string]any{"a": 1.0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := tried{value: built, out: outcome{Unrepresentable: tt.unrep}}
			assert.Equal(t, tt.want, tr.restored(tt.written))
		})
	}
}

func TestUnderAndPointer(t *testing.T) {
	assert.True(t, under("/a/b", []string{"/a"}))
	assert.True(t, under("/a", []string{"/a"}))
	assert.False(t, under("/ab", []string{"/a"}))
	v, ok := pointer(map[string]any{"x": []any{"p", map[string]any{"a/b": 3.0}}}, "/x/1/a~1b")
	assert.True(t, ok)
	assert.Equal(t, 3.0, v)
	_, ok = pointer(map[string]any{}, "/missing")
	assert.False(t, ok)
}

func TestNotBuilt(t *testing.T) {
	assert.True(t, outcome{Outcome: "error", Error: &sdkError{Type: "DriverError"}}.notBuilt())
	assert.False(t, outcome{Outcome: "error", Error: &sdkError{Type: "TypeError"}}.notBuilt())
	assert.False(t, outcome{Outcome: "ok"}.notBuilt())
}

func TestBatches(t *testing.T) {
	tests := []struct {
		name  string
		sizes []int
		want  [][2]int
	}{
		{"none", nil, nil},
		{"by count", []int{1, 1, 1, 1, 1}, [][2]int{{0, 2}, {2, 4}, {4, 5}}},
		{"by bytes", []int{6, 5, 1, 9}, [][2]int{{0, 1}, {1, 3}, {3, 4}}},
		{"a value larger than the bound goes alone", []int{1, 30, 1}, [][2]int{{0, 1}, {1, 2}, {2, 3}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, batches(tt.sizes, 2, 10))
		})
	}
}
