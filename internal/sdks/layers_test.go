package sdks

import (
	"archive/zip"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func writeJar(t *testing.T, entries ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), javaJar)
	f, err := os.Create(p)
	require.NoError(t, err)
	w := zip.NewWriter(f)
	for _, e := range entries {
		_, err := w.Create(e)
		require.NoError(t, err)
	}
	require.NoError(t, w.Close())
	require.NoError(t, f.Close())
	return p
}

// The generated layer is found where each Java SDK version keeps it, read from the jar.
func TestJarGenerated(t *testing.T) {
	tests := []struct {
		name    string
		entries []string
		want    string
	}{
		{"0.x", []string{"com/github/copilot/sdk/CopilotClient.class", "com/github/copilot/sdk/generated/rpc/ServerRpc.class",
			"com/github/copilot/sdk/generated/rpc/SessionRpc.class"}, javaJar + "!/com/github/copilot/sdk/generated/rpc/"},
		{"1.x", []string{"com/github/copilot/CopilotClient.class", "com/github/copilot/generated/rpc/ServerRpc.class",
			"com/github/copilot/generated/rpc/SessionRpc.class"}, javaJar + "!/com/github/copilot/generated/rpc/"},
		{"half a layer is none", []string{"com/github/copilot/generated/rpc/ServerRpc.class"}, ""},
		{"none", []string{"com/github/copilot/sdk/CopilotClient.class"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := jarGenerated(writeJar(t, tt.entries...))
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
	_, err := jarGenerated(filepath.Join(t.TempDir(), "absent.jar"))
	assert.Error(t, err)
}
