package sdks

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLocalSources(t *testing.T) {
	root := t.TempDir()
	write := func(rel, body string) {
		p := filepath.Join(root, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	write("checkout/nodejs/package.json", `{"name":"@github/copilot-sdk"}`)
	write("checkout/nodejs/dist/index.js", "")
	write("checkout/python/pyproject.toml", "")
	write("unbuilt/package.json", `{"name":"@github/copilot-sdk"}`)
	write("other/package.json", `{"name":"left-pad"}`)
	write("sdk.tgz", "")
	tests := []struct {
		name    string
		find    func(string) (string, error)
		src     string
		want    string
		wantErr string
	}{
		{"node checkout", nodeSourceDir, "checkout", "checkout/nodejs", ""},
		{"node package folder", nodeSourceDir, "checkout/nodejs", "checkout/nodejs", ""},
		{"node tarball as is", nodeSourceDir, "sdk.tgz", "sdk.tgz", ""},
		{"node not built: Prepare builds it", nodeSourceDir, "unbuilt", "unbuilt", ""},
		{"node wrong package", nodeSourceDir, "other", "", "neither"},
		{"python checkout", pythonSourceDir, "checkout", "checkout/python", ""},
		{"missing", pythonSourceDir, "nope", "", "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.find(filepath.Join(root, tt.src))
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, filepath.Join(root, tt.want), got)
		})
	}
}

func TestLoadPinsRejectsUnknownSDKs(t *testing.T) {
	p := filepath.Join(t.TempDir(), "sdks.yaml")
	require.NoError(t, os.WriteFile(p, []byte("cobol:\n  version: '1'\n"), 0o644))
	_, err := LoadPins(p)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `unknown SDK "cobol"`)
	pins, err := LoadPins("../../fixtures/sdks.yaml")
	require.NoError(t, err)
	for _, name := range Names() {
		assert.NotEmpty(t, pins[name].Version, "%s is pinned", name)
	}
}

// TestFailedPreparationLeavesNothing: a preparation that fails (a bad version the registry does
// not have, a build error) removes its cache folder; a later one that succeeds is kept.
func TestFailedPreparationLeavesNothing(t *testing.T) {
	root, cache := t.TempDir(), t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "drivers", "fake"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "drivers", "fake", "main"), []byte("x"), 0o644))
	fail := true
	register(Recipe{Name: "fake", Prepare: func(ctx context.Context, pc PrepareContext) (Launch, error) {
		require.NoError(t, os.WriteFile(filepath.Join(pc.CacheDir, "half-installed"), []byte("x"), 0o644))
		if fail {
			return Launch{}, errors.New("npm ERR! 404 no such version")
		}
		return Launch{Argv: []string{"true"}}, nil
	}})
	t.Cleanup(func() { delete(recipes, "fake") })
	p := &Preparer{RepoRoot: root, CacheRoot: cache, Log: io.Discard}

	_, err := p.Prepare(context.Background(), "fake", "9.9.9", "")
	require.ErrorContains(t, err, "404 no such version")
	left, err := os.ReadDir(cache)
	require.NoError(t, err)
	assert.Empty(t, left, "the failed preparation's folder and lock are gone")

	fail = false
	prep, err := p.Prepare(context.Background(), "fake", "9.9.9", "")
	require.NoError(t, err)
	assert.FileExists(t, filepath.Join(prep.CacheDir, "prepared.json"))
}

// TestEveryRecipeSaysHowLongItPrepares: a run orders its preparations by ColdPrepare (the longest
// leads), so a recipe without one would always yield, however long its build.
func TestEveryRecipeSaysHowLongItPrepares(t *testing.T) {
	for _, name := range Names() {
		r, _ := Lookup(name)
		assert.Positive(t, r.ColdPrepare, name)
	}
}
