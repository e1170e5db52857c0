package registry

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSample1x(t *testing.T) {
	tests := []struct {
		name      string
		published []string
		want      Sample
	}{
		{"npm", []string{"0.3.0", "1.0.0-beta.4", "1.0.0", "1.0.14", "1.0.15-preview.4", "1.0.5-preview.0"},
			Sample{All: []string{"1.0.0-beta.4", "1.0.0", "1.0.5-preview.0", "1.0.14", "1.0.15-preview.4"},
				Oldest: "1.0.0-beta.4", Newest: "1.0.14", Preview: "1.0.15-preview.4"}},
		{"pypi", []string{"1.0.27", "1.0.27rc1", "1.0.27.dev4003", "1.0.0", "1.0.0b12", "1.0.0b4", "0.3.0"},
			Sample{All: []string{"1.0.0b4", "1.0.0b12", "1.0.0", "1.0.27.dev4003", "1.0.27rc1", "1.0.27"},
				Oldest: "1.0.0b4", Newest: "1.0.27", Preview: "1.0.27rc1"}},
		{"releases first", []string{"v1.0.2", "v1.0.0", "v1.1.0-rc.1"},
			Sample{All: []string{"v1.0.0", "v1.0.2", "v1.1.0-rc.1"}, Oldest: "v1.0.0", Newest: "v1.0.2", Preview: "v1.1.0-rc.1"}},
		{"no 1.x", []string{"0.3.0-java.2"}, Sample{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Sample1x(tt.published)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
	_, err := Sample1x([]string{"1.0.0", "latest"})
	require.ErrorContains(t, err, `"latest"`, "an answer this code does not understand is an error, not a smaller sample")
}
