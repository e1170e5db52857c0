package harness

import (
	"path/filepath"
	"testing"

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
			cfg.defaults()
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
