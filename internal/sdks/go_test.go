package sdks

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestGoModuleDir(t *testing.T) {
	for _, tc := range []struct {
		name, dir, downloadErr, want, errPart string
	}{
		{name: "downloaded", dir: "/root/go/pkg/mod/github.com/github/copilot-sdk/go@v1.0.14", want: "/root/go/pkg/mod/github.com/github/copilot-sdk/go@v1.0.14"},
		{name: "empty folder is an error, not the current folder", dir: "", errPart: "no source folder"},
		{name: "relative folder", dir: "go@v1.0.14", errPart: "no source folder"},
		{name: "the go command's own error", dir: "", downloadErr: "not found: 410 Gone", errPart: "410 Gone"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := goModuleDir(tc.dir, tc.downloadErr)
			if tc.errPart != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.errPart)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

// A local SDK source is a replace directive: the go command downloads nothing for it, so its
// folder comes from `go list -m` (the docker source image failed here on `go mod download`'s
// empty answer).
func TestGoSourceDirOfLocalSource(t *testing.T) {
	root := t.TempDir()
	sdk, driver := filepath.Join(root, "sdk"), filepath.Join(root, "driver")
	write := func(path, text string) {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	}
	write(filepath.Join(sdk, "go.mod"), "module "+goSDKModule+"\ngo 1.21\n")
	write(filepath.Join(sdk, "client.go"), "package copilot\n")
	write(filepath.Join(driver, "go.mod"), "module driver\ngo 1.21\nrequire "+goSDKModule+" v1.0.0\nreplace "+goSDKModule+" => ../sdk\n")
	got, err := goSourceDir(context.Background(), driver, []string{"GOFLAGS=-mod=mod", "GOPROXY=off"})
	require.NoError(t, err)
	assert.Equal(t, sdk, got)
}
