package registry

import (
	"errors"
	"sync"
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

func TestProbePreReleases(t *testing.T) {
	// The Go SDK's tags (github/copilot-sdk go/v1.0.*): betas with gaps, previews that skip
	// numbers, patches published only as previews, and the next patch's previews past the newest.
	tags := map[string]bool{}
	for _, v := range []string{"v1.0.0-beta.1", "v1.0.0-beta.2", "v1.0.0-beta.4", "v1.0.0-beta.6", "v1.0.0-beta.12", "v1.0.0",
		"v1.0.1", "v1.0.5-preview.0", "v1.0.5-preview.1", "v1.0.5-preview.9", "v1.0.5", "v1.0.9-preview.2", "v1.0.9-preview.3", "v1.0.9", "v1.0.10-preview.0",
		"v1.0.11-preview.2", "v1.0.11", "v1.0.12-preview.0", "v1.0.12-preview.1"} {
		tags[v] = true
	}
	var mu sync.Mutex
	var asked []string
	exists := func(v string) bool {
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, v)
		return tags[v]
	}
	releases := []string{"v1.0.0", "v1.0.1", "v1.0.5", "v1.0.9", "v1.0.11"}
	tests := []struct {
		name, lo, hi string
		want         []string
		notAsked     []string
	}{
		{"from the first beta to the newest", "v1.0.0-0", "", []string{"v1.0.0-beta.1", "v1.0.0-beta.2", "v1.0.0-beta.4", "v1.0.0-beta.6", "v1.0.0-beta.12",
			"v1.0.5-preview.0", "v1.0.5-preview.1", "v1.0.9-preview.2", "v1.0.9-preview.3", "v1.0.10-preview.0", "v1.0.11-preview.2",
			"v1.0.12-preview.0", "v1.0.12-preview.1"}, []string{"v1.0.13-preview.0"}},
		{"inside a range", "v1.0.8", "v1.0.11", []string{"v1.0.9-preview.2", "v1.0.9-preview.3", "v1.0.10-preview.0", "v1.0.11-preview.2"},
			[]string{"v1.0.8-preview.0", "v1.0.12-preview.0", "v1.0.0-beta.1"}},
		{"a pre-release lower bound", "v1.0.9-preview.2", "v1.0.10", []string{"v1.0.9-preview.2", "v1.0.9-preview.3", "v1.0.10-preview.0"},
			[]string{"v1.0.9-preview.1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			asked = nil
			got, err := probePreReleases(tt.lo, tt.hi, releases, exists)
			require.NoError(t, err)
			sorted, err := InRange(got, Range{Lo: tt.lo, Hi: tt.hi, Previews: true})
			require.NoError(t, err)
			assert.Equal(t, tt.want, sorted)
			for _, v := range tt.notAsked {
				assert.NotContains(t, asked, v)
			}
		})
	}
	// Past the first five, a series ends at three missing numbers in a row: v1.0.5-preview.9
	// (after 2-8 missing) is not found, as the recipe's note says.
	assert.NotContains(t, asked, "v1.0.5-preview.9")
}

func TestListOrProbe(t *testing.T) {
	tags := map[string]bool{"v1.0.8": true, "v1.0.9-preview.0": true, "v1.0.9": true, "v1.0.10-preview.0": true}
	exists := func(v string) bool { return tags[v] }
	refused := func() ([]string, error) { return nil, errors.New("403 Forbidden") }
	served := func() ([]string, error) { return []string{"v1.0.9", "v1.0.8", "v1.0.9-preview.0", "v1.0.7"}, nil }
	tests := []struct {
		name string
		r    Range
		list func() ([]string, error)
		want []string
	}{
		{"the proxy's list", Range{Lo: "v1.0.8", Previews: true}, served, []string{"v1.0.8", "v1.0.9-preview.0", "v1.0.9"}},
		{"probed releases", Range{Lo: "v1.0.8"}, refused, []string{"v1.0.8", "v1.0.9"}},
		{"probed with pre-releases", Range{Lo: "v1.0.8", Previews: true}, refused,
			[]string{"v1.0.8", "v1.0.9-preview.0", "v1.0.9", "v1.0.10-preview.0"}},
		{"a pre-release bound is kept", Range{Lo: "v1.0.9-preview.0", Hi: "v1.0.9"}, refused, []string{"v1.0.9-preview.0", "v1.0.9"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := listOrProbe(tt.r, tt.list, exists)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestSparsePath(t *testing.T) {
	assert.Equal(t, "gi/th/github-copilot-sdk", sparsePath("github-copilot-sdk"))
	assert.Equal(t, "3/s/syn", sparsePath("syn"))
}
