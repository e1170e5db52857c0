package sdks

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPairedRuntime(t *testing.T) {
	write := func(t *testing.T, root, rel, body string) {
		t.Helper()
		p := filepath.Join(root, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	for _, tc := range []struct {
		name    string
		read    func(*Prepared) (PairedRuntime, error)
		file    string
		body    string
		want    PairedRuntime
		wantErr string
	}{
		{name: "node package.json", read: nodePaired, file: "node_modules/@github/copilot-sdk/package.json",
			body: `{"name":"@github/copilot-sdk","version":"1.0.14","copilotCliVersion":"1.0.85"}`,
			want: PairedRuntime{Version: "1.0.85", Evidence: "package.json copilotCliVersion"}},
		{name: "node before the declaration", read: nodePaired, file: "node_modules/@github/copilot-sdk/package.json",
			body: `{"name":"@github/copilot-sdk","version":"1.0.0"}`, wantErr: "declares no copilotCliVersion"},
		{name: "python CLI_VERSION", read: pythonPaired, file: "venv/lib/python3.11/site-packages/copilot/_cli_version.py",
			body: "# DO NOT reformat this line\nCLI_VERSION: str | None = \"1.0.104\"\n",
			want: PairedRuntime{Version: "1.0.104", Evidence: "copilot/_cli_version.py CLI_VERSION"}},
		{name: "python from a source checkout (None)", read: pythonPaired, file: "venv/lib/python3.11/site-packages/copilot/_cli_version.py",
			body: "CLI_VERSION: str | None = None\n", wantErr: "declares no runtime version"},
		{name: "rust cli-version.txt", read: rustPaired, file: "src/Cargo.toml",
			body: "[dependencies]\ngithub-copilot-sdk = { path = \"../crate\" }\n",
			want: PairedRuntime{Version: "1.0.105", Evidence: "cli-version.txt"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			dir := filepath.Join(root, "prep")
			write(t, dir, tc.file, tc.body)
			write(t, dir, "crate/cli-version.txt", "# Auto-generated\nversion=1.0.105\ncopilot-linux-x64.tar.gz=abc\n")
			got, err := tc.read(&Prepared{CacheDir: dir})
			if tc.wantErr != "" {
				assert.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestNodeSchemaRuntime(t *testing.T) {
	root := t.TempDir()
	schemas := filepath.Join(root, "node_modules", "@github", "copilot-sdk-linux-x64", "schemas")
	require.NoError(t, os.MkdirAll(schemas, 0o755))
	pkg := filepath.Join(root, "node_modules", "@github", "copilot-sdk")
	require.NoError(t, os.MkdirAll(pkg, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(pkg, "package.json"), []byte(`{"copilotCliVersion":"1.0.89-7"}`), 0o644))
	got, err := NodeSchemaRuntime(schemas)
	require.NoError(t, err)
	assert.Equal(t, "1.0.89-7", got.Version)
	_, err = NodeSchemaRuntime(t.TempDir()) // a folder copied out of a driver image
	assert.Error(t, err)
}
