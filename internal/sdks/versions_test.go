package sdks

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestInRange(t *testing.T) {
	published := []string{"0.3.0", "1.0.0-beta.4", "1.0.5-preview.1", "1.0.5", "1.0.8", "1.0.6", "1.0.7", "1.0.9", "1.0.14"}
	tests := []struct {
		name string
		r    Range
		want []string
	}{
		{"bounds in either order", Range{Lo: "1.0.9", Hi: "1.0.5"}, []string{"1.0.5", "1.0.6", "1.0.7", "1.0.8", "1.0.9"}},
		{"no upper bound: the newest", Range{Lo: "1.0.9"}, []string{"1.0.9", "1.0.14"}},
		{"previews", Range{Lo: "1.0.0-beta.1", Hi: "1.0.6", Previews: true}, []string{"1.0.0-beta.4", "1.0.5-preview.1", "1.0.5", "1.0.6"}},
		{"a pre-release bound is kept", Range{Lo: "1.0.5-preview.1", Hi: "1.0.6"}, []string{"1.0.5-preview.1", "1.0.5", "1.0.6"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := InRange(published, tt.r)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
	pypi, err := InRange([]string{"1.0.9", "1.0.9rc3", "1.0.8", "1.0.8rc0", "1.0.25.dev40141230562", "1.0.0b12"}, Range{Lo: "1.0.0", Hi: "1.0.9", Previews: true})
	require.NoError(t, err)
	assert.Equal(t, []string{"1.0.8rc0", "1.0.8", "1.0.9rc3", "1.0.9"}, pypi, "PyPI pre-releases, spelled as PyPI spells them")
	_, err = InRange(published, Range{Lo: "latest", Hi: "1.0.5"})
	assert.ErrorContains(t, err, `"latest"`)
}

func TestProbeVersions(t *testing.T) {
	tags := map[string]bool{"v1.0.8": true, "v1.0.9": true, "v1.0.11": true, "v1.1.0": true, "v1.1.1": true, "v1.2.0": true}
	var asked []string
	exists := func(v string) bool { asked = append(asked, v); return tags[v] }
	got, err := probeVersions("v1.0.8", "v1.2.0", exists)
	require.NoError(t, err)
	// v1.0.10 is missing but v1.0.11 is found (one miss is not the end of a minor).
	assert.Equal(t, []string{"v1.0.8", "v1.0.9", "v1.0.11", "v1.1.0", "v1.1.1", "v1.2.0"}, got)
	assert.NotContains(t, asked, "v1.2.1", "nothing past the upper bound is probed")

	// No upper bound: minors upward until one has neither of its first two patches.
	asked = nil
	got, err = probeVersions("v1.1.0", "", exists)
	require.NoError(t, err)
	assert.Equal(t, []string{"v1.1.0", "v1.1.1", "v1.2.0"}, got)
	assert.Equal(t, []string{"v1.1.0", "v1.1.1", "v1.1.2", "v1.1.3", "v1.2.0", "v1.2.1", "v1.2.2", "v1.3.0", "v1.3.1"}, asked)

	_, err = probeVersions("v1.0.0", "v2.0.0", exists)
	assert.ErrorContains(t, err, "major")
}

func TestSparsePath(t *testing.T) {
	assert.Equal(t, "gi/th/github-copilot-sdk", sparsePath("github-copilot-sdk"))
	assert.Equal(t, "3/s/syn", sparsePath("syn"))
}
