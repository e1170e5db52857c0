package harness

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/copilot-sdk-conformance/conformance/internal/surface"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPlan(t *testing.T) {
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	tests := []struct {
		name    string
		sdks    []string
		want    []string
		wantErr string
	}{
		{"every SDK in report order", nil, []string{"node", "go", "python", "rust", "java", "dotnet"}, ""},
		{"--sdk keeps report order", []string{"java", "node"}, []string{"node", "java"}, ""},
		{"unknown SDK named", []string{"cobol"}, nil, `unknown SDK "cobol"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := Config{RepoRoot: root, SDKs: tt.sdks}
			cfg = cfg.withDefaults()
			p, err := makePlan(cfg)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, p.sdks)
			assert.NotEmpty(t, p.scenarios)
		})
	}
}

// The committed client-side fields are part of the plan, each entry named by its repository
// path; a broken file beside the expected failures fails the run before anything starts.
func TestPlanClientSideFields(t *testing.T) {
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	cfg := Config{RepoRoot: root}
	cfg = cfg.withDefaults()
	p, err := makePlan(cfg)
	require.NoError(t, err)
	require.NotEmpty(t, p.clientSide)
	assert.True(t, strings.HasPrefix(p.clientSide[0].Where, "fixtures/"+surface.ClientSideFile+":"), p.clientSide[0].Where)

	dir := t.TempDir()
	b, err := os.ReadFile(cfg.Manifest)
	require.NoError(t, err)
	cfg.Manifest = filepath.Join(dir, "expected-failures.yaml")
	require.NoError(t, os.WriteFile(cfg.Manifest, b, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, surface.ClientSideFile), []byte("- sdk: go\n  owner: clientOptions\n  field: Mode\n"), 0o644))
	_, err = makePlan(cfg)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the entry has no")
}
