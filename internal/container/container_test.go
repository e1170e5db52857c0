package container

import (
	"archive/tar"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func write(t *testing.T, path, body string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(body), 0o644))
}

func TestWriteContextSkipsBuildOutputsAndAddsTheDockerfile(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "drv", "main.go"), "package main")
	write(t, filepath.Join(dir, "drv", "target", "big"), "x")
	write(t, filepath.Join(dir, "drv", "node_modules", "m", "i.js"), "x")
	write(t, filepath.Join(dir, "tc", "bin", "cargo"), "elf")
	write(t, filepath.Join(dir, "Dockerfile"), "FROM x\n")

	var buf bytes.Buffer
	require.NoError(t, writeContext(&buf, Build{
		Dockerfile: filepath.Join(dir, "Dockerfile"), ContextDir: filepath.Join(dir, "drv"),
		Extra: map[string]string{"toolchain": filepath.Join(dir, "tc")},
	}))
	var names []string
	tr := tar.NewReader(&buf)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		names = append(names, h.Name)
	}
	sort.Strings(names)
	// bin/ is a build output in a driver folder, not in an extra entry such as a toolchain.
	assert.Equal(t, []string{contextDockerfile, "main.go", "toolchain", "toolchain/bin", "toolchain/bin/cargo"}, names)
}

func TestDriverImageKey(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "docker", "go.Dockerfile"), "ARG BASE\nFROM ${BASE}\n")
	write(t, filepath.Join(root, "drivers", "go", "main.go"), "package main")
	base := DriverImage{SDK: "go", Version: "v1.0.14", RepoRoot: root}
	b, err := base.Build()
	require.NoError(t, err)
	assert.Regexp(t, `^conformance-driver/go:v1\.0\.14-[0-9a-f]{12}$`, b.Tag)
	assert.Equal(t, "v1.0.14", b.Args["SDK_VERSION"])

	again, err := base.Build()
	require.NoError(t, err)
	assert.Equal(t, b.Tag, again.Tag, "same inputs, same image")
	write(t, filepath.Join(root, "drivers", "go", "README.md"), "how it is built")
	documented, err := base.Build()
	require.NoError(t, err)
	assert.Equal(t, b.Tag, documented.Tag, "a README is not the driver: the same image")

	tests := []struct {
		name   string
		change func(d *DriverImage)
	}{
		{"another SDK version", func(d *DriverImage) { d.Version = "v1.0.15" }},
		{"another base image", func(d *DriverImage) { d.BuildArgs = map[string]string{"BASE": LocalBaseImage("go")} }},
		{"changed driver code", func(d *DriverImage) {
			write(t, filepath.Join(root, "drivers", "go", "main.go"), "package main // changed")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := base
			tt.change(&d)
			got, err := d.Build()
			require.NoError(t, err)
			assert.NotEqual(t, b.Key, got.Key)
			assert.NotEqual(t, b.Tag, got.Tag)
		})
	}

	// A rebuilt base (same name, new id) makes a new driver image.
	onBase := DriverImage{SDK: "go", Version: "v1.0.14", RepoRoot: root, BuildArgs: map[string]string{"BASE": "b"}}
	first, err := onBase.Build()
	require.NoError(t, err)
	onBase.BaseIDs = map[string]string{"b": "sha256:0123"}
	rebuilt, err := onBase.Build()
	require.NoError(t, err)
	assert.NotEqual(t, first.Tag, rebuilt.Tag)

	_, err = DriverImage{SDK: "go", RepoRoot: root}.Build()
	assert.ErrorContains(t, err, "no SDK version")
	_, err = DriverImage{SDK: "cobol", Version: "1", RepoRoot: root}.Build()
	assert.ErrorContains(t, err, "cobol.Dockerfile")
}

func TestLocalBuildArgs(t *testing.T) {
	assert.Equal(t, []string{"node", "go", "python", "rust", "java"}, LocalLanguages(), "from the recipes, in report order")
	runtimeBase := map[string]string{"go": DebianImage, "rust": DebianImage, "java": LocalBaseImage("java")}
	for _, lang := range LocalLanguages() {
		args, ok := LocalBuildArgs(lang)
		assert.Equal(t, runtimeBase[lang], args["RUNTIME_BASE"], lang)
		require.True(t, ok, lang)
		assert.Equal(t, LocalBaseImage(lang), args["BASE"], lang)
		_, err := os.Stat(filepath.Join("..", "..", "docker", "local", lang+".Dockerfile"))
		assert.NoError(t, err, "every local base has its Dockerfile")
		_, err = os.Stat(filepath.Join("..", "..", "docker", lang+".Dockerfile"))
		assert.NoError(t, err, "every language has its driver Dockerfile")
	}
	_, ok := LocalBuildArgs("dotnet")
	assert.False(t, ok, ".NET has no local base: it needs Microsoft's registries")
}

func TestLauncherDescribeAndBinds(t *testing.T) {
	l := &Launcher{Image: "conformance-driver/go:v1-abc", RunID: "r1",
		Binds: StdioBinds("/usr/bin/conformance", "/cache/conformance-static", "/tmp/run1"), Env: []string{"A=b"}}
	assert.Equal(t, "docker run -i --rm --network host -v /tmp/run1:/tmp/run1 -v /cache/conformance-static:/usr/bin/conformance:ro -e α-one=inherited -e two=inherited -e A=b conformance-driver/go:v1-abc", l.Describe())
	assert.Equal(t, "r1", l.Labels()[LabelRun])
}

func TestIsStatic(t *testing.T) {
	_, err := IsStatic("container.go")
	assert.Error(t, err, "not an executable")
	exe, err := os.Executable()
	require.NoError(t, err)
	_, err = IsStatic(exe)
	assert.NoError(t, err, "the test binary is an ELF executable")
}
