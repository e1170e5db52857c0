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

// A source image's context: the driver and the SDK's own folder (found in a checkout root by the
// recipe), without .git or build outputs, the harness, and docker/source.Dockerfile; BASE is the
// official one of the language's Dockerfile unless a local base is given.
func TestSourceImageBuild(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "docker", "go.Dockerfile"), "ARG BASE=golang:1.26-bookworm\nARG RUNTIME_BASE=debian\nFROM ${BASE}\n")
	write(t, filepath.Join(root, SourceDockerfile), "ARG BASE\nFROM ${BASE}\n")
	write(t, filepath.Join(root, "drivers", "go", "main.go"), "package main")
	checkout := filepath.Join(t.TempDir(), "copilot-sdk")
	write(t, filepath.Join(checkout, "go", "go.mod"), "module github.com/github/copilot-sdk/go\n")
	write(t, filepath.Join(checkout, "go", "client.go"), "package copilot")
	write(t, filepath.Join(checkout, "go", ".git", "HEAD"), "x")
	write(t, filepath.Join(checkout, "nodejs", "package.json"), "{}")
	harness := filepath.Join(t.TempDir(), "conformance")
	write(t, harness, "elf")

	img := SourceImage{SDK: "go", Version: "v1.0.14", Source: checkout, RepoRoot: root, Harness: harness, RunID: "20261201T000000-1"}
	b, err := img.Build()
	require.NoError(t, err)
	assert.Equal(t, "conformance-driver/go:source-20261201T000000-1", b.Tag)
	assert.Equal(t, "20261201T000000-1", b.RunID, "a source image is the run's, removed with it")
	assert.Equal(t, filepath.Join(root, SourceDockerfile), b.Dockerfile)
	assert.Equal(t, map[string]string{"BASE": "golang:1.26-bookworm", "SDK": "go", "SDK_VERSION": "v1.0.14", "SOURCE": "/conformance/sdk-source/go"}, b.Args)

	var buf bytes.Buffer
	require.NoError(t, writeContext(&buf, b))
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
	assert.Equal(t, []string{contextDockerfile, "conformance", "driver", "driver/main.go", "sdk-source/go", "sdk-source/go/client.go", "sdk-source/go/go.mod"}, names)

	img.Base = LocalBaseImage("go")
	b, err = img.Build()
	require.NoError(t, err)
	assert.Equal(t, LocalBaseImage("go"), b.Args["BASE"])

	// A folder that does not hold the SDK is named before anything is built.
	img.Source = filepath.Join(checkout, "nodejs")
	_, err = img.Build()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "--sdk-source go="+img.Source)
	assert.Contains(t, err.Error(), "holds no module github.com/github/copilot-sdk/go")
}

func TestUntarFilesAndLastStep(t *testing.T) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, f := range []struct{ name, body string }{{"./", ""}, {"./api.schema.json", "{}"}, {"./sub/x.json", "[]"}} {
		typ := byte(tar.TypeReg)
		if f.body == "" {
			typ = tar.TypeDir
		}
		require.NoError(t, tw.WriteHeader(&tar.Header{Name: f.name, Typeflag: typ, Mode: 0o644, Size: int64(len(f.body))}))
		_, err := tw.Write([]byte(f.body))
		require.NoError(t, err)
	}
	require.NoError(t, tw.Close())
	dir := t.TempDir()
	n, err := untarFiles(&buf, dir)
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	b, err := os.ReadFile(filepath.Join(dir, "sub", "x.json"))
	require.NoError(t, err)
	assert.Equal(t, "[]", string(b))

	buf.Reset()
	tw = tar.NewWriter(&buf)
	require.NoError(t, tw.WriteHeader(&tar.Header{Name: "../evil", Typeflag: tar.TypeReg, Size: 0}))
	require.NoError(t, tw.Close())
	_, err = untarFiles(&buf, dir)
	assert.ErrorContains(t, err, "leaves the folder")

	s := &lastStep{}
	_, _ = s.Write([]byte("Step 8/14 : COPY a b\n ---> 12\nStep 9/14 : RUN conformance prepare --sdk go\n ---> Running in"))
	_, _ = s.Write([]byte(" 7a\nbuild failed\n"))
	assert.Equal(t, "Step 9/14 : RUN conformance prepare --sdk go", s.String())

	tail := &tailWriter{max: 1 << 10}
	_, _ = tail.Write([]byte("\x1b[91mbroken.go:1:1: expected 'package'\n\x1b[0mRemoving intermediate container\n"))
	assert.Equal(t, "broken.go:1:1: expected 'package'\nRemoving intermediate container", tail.String())
}
