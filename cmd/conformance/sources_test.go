package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSourcePairs(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"nodejs", "python", "go"} {
		require.NoError(t, os.Mkdir(filepath.Join(root, d), 0o755))
	}
	tests := []struct {
		name     string
		values   []string
		selected []string
		want     map[string]string
		err      string
	}{
		{"pair", []string{"go=/x/go"}, nil, map[string]string{"go": "/x/go"}, ""},
		{"checkout root, every folder it has", []string{root}, nil,
			map[string]string{"node": filepath.Join(root, "nodejs"), "python": filepath.Join(root, "python"), "go": filepath.Join(root, "go")}, ""},
		{"checkout root, the --sdk ones", []string{root}, []string{"node"}, map[string]string{"node": filepath.Join(root, "nodejs")}, ""},
		{"a pair wins over the root", []string{root, "go=/x/go"}, []string{"go", "python"},
			map[string]string{"go": "/x/go", "python": filepath.Join(root, "python")}, ""},
		{"missing language folder", []string{root}, []string{"rust"}, nil, "no rust/ folder for SDK rust"},
		{"not a folder", []string{filepath.Join(root, "nope")}, nil, nil, "not LANG=PATH"},
		{"empty path", []string{"go="}, nil, nil, "want LANG=PATH"},
		{"no language folder", []string{t.TempDir()}, nil, nil, "no language folder"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := sourcePairs(tt.values, tt.selected)
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}
