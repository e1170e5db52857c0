package container

import (
	"archive/tar"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ory/dockertest/v3"
	dc "github.com/ory/dockertest/v3/docker"
)

// Build is one image to build: a Dockerfile and a context folder, tagged Tag, rebuilt only when no
// image with the same Tag and Key exists.
type Build struct {
	Tag        string            // e.g. conformance-driver/go:v1.0.14-0123456789ab
	Dockerfile string            // path of the Dockerfile on the host
	Text       string            // the Dockerfile itself, when Dockerfile is ""
	ContextDir string            // the build context (e.g. drivers/go); "" for none
	Extra      map[string]string // more context entries: name in the context -> host path (file or folder)
	Args       map[string]string // build arguments
	Key        string            // content key stored as LabelKey
	Kind       string            // LabelKind value
	Log        io.Writer         // build output; nil discards it
}

// Ensure builds b unless an image tagged b.Tag with b.Key exists. It reports whether it built.
// Stage images a multi-stage build leaves behind untagged are removed afterwards, so a build
// leaves exactly one image.
//
// Builds in one process run one at a time: the untagged images a build leaves are told apart by
// what appeared while it ran, and two builds at once would see (and remove) each other's stages.
func Ensure(ctx context.Context, pool *dockertest.Pool, b Build) (bool, error) {
	buildMu.Lock()
	defer buildMu.Unlock()
	if img, err := pool.Client.InspectImage(b.Tag); err == nil && img.Config != nil && img.Config.Labels[LabelKey] == b.Key {
		return false, nil
	}
	// The context is streamed: a toolchain copy in it can be hundreds of megabytes.
	ctxTar, pw := io.Pipe()
	go func() { pw.CloseWithError(writeContext(pw, b)) }()
	defer ctxTar.Close()
	before, _ := danglingImages(pool)
	var args []dc.BuildArg
	for _, k := range sortedKeys(b.Args) {
		args = append(args, dc.BuildArg{Name: k, Value: b.Args[k]})
	}
	out := b.Log
	if out == nil {
		out = io.Discard
	}
	tail := &tailWriter{max: 8 << 10}
	start := time.Now()
	err := pool.Client.BuildImage(dc.BuildImageOptions{
		Context:      ctx,
		Name:         b.Tag,
		Dockerfile:   contextDockerfile,
		InputStream:  ctxTar,
		OutputStream: io.MultiWriter(out, tail),
		BuildArgs:    args,
		// The driver's build fetches the SDK from its registry; host networking reaches whatever
		// the host reaches (also on engines without a working bridge network).
		NetworkMode:         "host",
		RmTmpContainer:      true,
		ForceRmTmpContainer: true,
		Labels:              map[string]string{LabelProject: "1", LabelKind: b.Kind, LabelKey: b.Key},
	})
	removeNewDangling(pool, before)
	if err != nil {
		return false, fmt.Errorf("build image %s from %s: %w\n%s", b.Tag, b.Dockerfile, err, tail.String())
	}
	fmt.Fprintf(out, "built %s in %s\n", b.Tag, time.Since(start).Round(time.Second))
	return true, nil
}

// buildDirs are the build outputs a driver folder may hold locally; never part of an image's input.
var buildDirs = map[string]bool{"target": true, "node_modules": true, "bin": true, "obj": true}

var buildMu sync.Mutex

// contextDockerfile is where the Dockerfile goes in the context tar (outside any driver's files).
const contextDockerfile = ".conformance.Dockerfile"

// writeContext writes the build context as a tar: b.ContextDir's files, b.Extra, and the Dockerfile.
// Written here instead of with a library because the context is a few small folders and the
// Dockerfile must be added under a name of ours; build outputs (target/, node_modules/) are skipped.
func writeContext(w io.Writer, b Build) error {
	tw := tar.NewWriter(w)
	// skipBuildDirs leaves out build outputs of a driver folder (not of an Extra such as a toolchain).
	add := func(name, path string, skipBuildDirs bool) error {
		return filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(path, p)
			if skipBuildDirs && d.IsDir() && p != path && buildDirs[d.Name()] {
				return filepath.SkipDir
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			link := ""
			if info.Mode()&fs.ModeSymlink != 0 {
				if link, err = os.Readlink(p); err != nil {
					return err
				}
			}
			hdr, err := tar.FileInfoHeader(info, link)
			if err != nil {
				return err
			}
			hdr.Name = filepath.ToSlash(filepath.Join(name, rel))
			if hdr.Name == "." {
				return nil
			}
			hdr.ModTime, hdr.AccessTime, hdr.ChangeTime = time.Unix(0, 0), time.Time{}, time.Time{}
			hdr.Uid, hdr.Gid, hdr.Uname, hdr.Gname = 0, 0, "", ""
			if err := tw.WriteHeader(hdr); err != nil {
				return err
			}
			if info.Mode().IsRegular() {
				f, err := os.Open(p)
				if err != nil {
					return err
				}
				defer f.Close()
				if _, err := io.Copy(tw, f); err != nil {
					return err
				}
			}
			return nil
		})
	}
	if b.ContextDir != "" {
		if err := add("", b.ContextDir, true); err != nil {
			return err
		}
	}
	for _, name := range sortedKeys(b.Extra) {
		if err := add(name, b.Extra[name], false); err != nil {
			return err
		}
	}
	df := []byte(b.Text)
	if b.Dockerfile != "" {
		var err error
		if df, err = os.ReadFile(b.Dockerfile); err != nil {
			return err
		}
	}
	if err := tw.WriteHeader(&tar.Header{Name: contextDockerfile, Mode: 0o644, Size: int64(len(df)), Typeflag: tar.TypeReg}); err != nil {
		return err
	}
	if _, err := tw.Write(df); err != nil {
		return err
	}
	return tw.Close()
}

// HashFiles is a content key over files and folders (relative names and contents), plus extra
// strings (versions, base image names).
func HashFiles(paths []string, extra ...string) (string, error) {
	h := sha256.New()
	for _, e := range extra {
		fmt.Fprintf(h, "extra %s\n", e)
	}
	for _, root := range paths {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if p != root && buildDirs[d.Name()] {
					return filepath.SkipDir
				}
				return nil
			}
			body, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			fmt.Fprintf(h, "file %s %d\n", filepath.ToSlash(filepath.Join(filepath.Base(root), rel)), len(body))
			h.Write(body)
			return nil
		})
		if err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func danglingImages(pool *dockertest.Pool) (map[string]bool, error) {
	imgs, err := pool.Client.ListImages(dc.ListImagesOptions{Filters: map[string][]string{"dangling": {"true"}}})
	if err != nil {
		return nil, err
	}
	ids := map[string]bool{}
	for _, img := range imgs {
		ids[img.ID] = true
	}
	return ids, nil
}

// removeNewDangling removes the untagged images that appeared since before: the build stages of a
// multi-stage build (the legacy builder keeps them) and the layers a rebuild replaced.
func removeNewDangling(pool *dockertest.Pool, before map[string]bool) {
	if before == nil {
		return
	}
	now, err := danglingImages(pool)
	if err != nil {
		return
	}
	for id := range now {
		if !before[id] {
			_ = pool.Client.RemoveImageExtended(id, dc.RemoveImageOptions{Force: true})
		}
	}
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// tailWriter keeps the last max bytes written, for error messages.
type tailWriter struct {
	max int
	buf []byte
}

func (t *tailWriter) Write(b []byte) (int, error) {
	t.buf = append(t.buf, b...)
	if len(t.buf) > t.max {
		t.buf = t.buf[len(t.buf)-t.max:]
	}
	return len(b), nil
}

func (t *tailWriter) String() string { return strings.TrimSpace(string(t.buf)) }
