package container

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
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
	// Trees are more context folders (name in the context -> host folder) whose build outputs
	// and .git are left out, as they are of ContextDir.
	Trees map[string]string
	Args  map[string]string // build arguments
	Key   string            // content key stored as LabelKey
	Kind  string            // LabelKind value
	// RunID, when set, makes the image temporary: labelled LabelRun, removed by Cleanup(RunID)
	// (an image of a local SDK source, which is rebuilt every run anyway).
	RunID string
	Log   io.Writer // build output; nil discards it
}

// Ensure builds b unless an image tagged b.Tag with b.Key exists. It reports whether it built.
// Stage images a multi-stage build leaves behind untagged are removed afterwards, so a build
// leaves exactly one image.
func Ensure(ctx context.Context, pool *dockertest.Pool, b Build) (bool, error) {
	if img, err := pool.Client.InspectImage(b.Tag); err == nil && img.Config != nil && img.Config.Labels[LabelKey] == b.Key {
		return false, nil
	}
	// The context is streamed: a toolchain copy in it can be hundreds of megabytes.
	ctxTar, pw := io.Pipe()
	go func() { pw.CloseWithError(writeContext(pw, b)) }()
	defer ctxTar.Close()
	steps := &stepImages{}
	var args []dc.BuildArg
	for _, k := range slices.Sorted(maps.Keys(b.Args)) {
		args = append(args, dc.BuildArg{Name: k, Value: b.Args[k]})
	}
	out := b.Log
	if out == nil {
		out = io.Discard
	}
	tail := &tailWriter{max: 8 << 10}
	step := &lastStep{}
	start := time.Now()
	err := pool.Client.BuildImage(dc.BuildImageOptions{
		Context:      ctx,
		Name:         b.Tag,
		Dockerfile:   contextDockerfile,
		InputStream:  ctxTar,
		OutputStream: io.MultiWriter(out, tail, steps, step),
		BuildArgs:    args,
		// The driver's build fetches the SDK from its registry; host networking reaches whatever
		// the host reaches (also on engines without a working bridge network).
		NetworkMode:         "host",
		RmTmpContainer:      true,
		ForceRmTmpContainer: true,
		Labels:              b.labels(),
	})
	steps.removeUntagged(pool)
	if err != nil {
		df := b.Dockerfile
		if df == "" {
			df = "a generated Dockerfile"
		}
		at := ""
		if s := step.String(); s != "" {
			at = " at " + s
		}
		return false, fmt.Errorf("build image %s from %s failed%s: %w\nlast lines of the build log:\n%s", b.Tag, df, at, err, tail.String())
	}
	fmt.Fprintf(out, "built %s in %s\n", b.Tag, time.Since(start).Round(time.Second))
	return true, nil
}

// buildDirs are the build outputs a driver folder may hold locally; never part of an image's input.
var buildDirs = map[string]bool{"target": true, "node_modules": true, "bin": true, "obj": true, ".git": true}

func (b Build) labels() map[string]string {
	l := map[string]string{LabelProject: "1", LabelKind: b.Kind, LabelKey: b.Key}
	if b.RunID != "" {
		l[LabelRun] = b.RunID
	}
	return l
}

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
	for _, name := range slices.Sorted(maps.Keys(b.Trees)) {
		if err := add(name, b.Trees[name], true); err != nil {
			return err
		}
	}
	for _, name := range slices.Sorted(maps.Keys(b.Extra)) {
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
			if d.Name() == "README.md" {
				return nil // documentation: editing it rebuilds no image
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

// stepImages collects the image of every step from the (classic builder's) build output,
// " ---> 0123456789ab", so that exactly this build's leftovers are removed, even while other builds
// run on the same engine.
type stepImages struct {
	line []byte
	ids  []string
}

var stepLine = regexp.MustCompile(`^ ---> ([0-9a-f]{12,64})\s*$`)

func (s *stepImages) Write(b []byte) (int, error) {
	for _, c := range b {
		if c != '\n' {
			s.line = append(s.line, c)
			continue
		}
		if m := stepLine.FindSubmatch(s.line); m != nil {
			s.ids = append(s.ids, string(m[1]))
		}
		s.line = s.line[:0]
	}
	return len(b), nil
}

// removeUntagged removes the step images nothing tags: the stages of a multi-stage build. A step
// image under the final image is refused by the engine (it has a child) and stays, as it must.
func (s *stepImages) removeUntagged(pool *dockertest.Pool) {
	for i := len(s.ids) - 1; i >= 0; i-- {
		img, err := pool.Client.InspectImage(s.ids[i])
		if err != nil || len(img.RepoTags) > 0 {
			continue
		}
		_ = pool.Client.RemoveImageExtended(s.ids[i], dc.RemoveImageOptions{})
	}
}

// lastStep keeps the classic builder's last "Step N/M : INSTRUCTION" line: the failing step when a
// build fails.
type lastStep struct {
	line []byte
	step string
}

func (s *lastStep) Write(b []byte) (int, error) {
	for _, c := range b {
		if c != '\n' {
			s.line = append(s.line, c)
			continue
		}
		if bytes.HasPrefix(s.line, []byte("Step ")) {
			s.step = strings.TrimSpace(string(s.line))
		}
		s.line = s.line[:0]
	}
	return len(b), nil
}

func (s *lastStep) String() string { return s.step }

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

// String is the tail without the terminal colours the builder puts around a step's stderr.
func (t *tailWriter) String() string {
	return strings.TrimSpace(ansiColour.ReplaceAllString(string(t.buf), ""))
}

var ansiColour = regexp.MustCompile("\x1b\\[[0-9;]*m")
