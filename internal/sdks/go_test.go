package sdks

import (
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
