package exchanges

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Header names compare case-insensitively and a multi-valued header also as its joined values;
// a lost or changed value is named.
func TestHeaderDiffs(t *testing.T) {
	sent := map[string]any{"content-type": []any{"application/json"}, "x-multi": []any{"a", "b"}}
	tests := []struct {
		name string
		got  any
		want int
	}{
		{"the same", map[string]any{"Content-Type": []any{"application/json"}, "X-Multi": []any{"a", "b"}}, 0},
		{"joined by the SDK's header type", map[string]any{"content-type": []any{"application/json"}, "x-multi": []any{"a, b"}}, 0},
		{"a value lost", map[string]any{"content-type": []any{"application/json"}, "x-multi": []any{"a"}}, 1},
		{"a header lost", map[string]any{"x-multi": []any{"a", "b"}}, 1},
		{"nothing", nil, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Len(t, headerDiffs(sent, tt.got), tt.want)
		})
	}
	assert.Equal(t, []string{"x-added"}, extraHeaders(sent, map[string]any{"X-Added": "1", "content-type": "application/json"}))
}

func TestChunkBytes(t *testing.T) {
	b, err := chunkBytes(map[string]any{"data": "AP8=", "binary": true})
	assert.NoError(t, err)
	assert.Equal(t, []byte{0, 0xff}, b)
	b, _ = chunkBytes(map[string]any{"data": "héllo"})
	assert.Equal(t, []byte("héllo"), b)
	_, err = chunkBytes(map[string]any{"data": "not base64!", "binary": true})
	assert.Error(t, err)
}
