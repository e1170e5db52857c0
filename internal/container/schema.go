package container

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	dc "github.com/ory/dockertest/v3/docker"
)

// Schemas copies the folder at imagePath out of the driver image of sdk at version (built unless
// it exists) into the cache, once per image id, and returns the copy and the image's tag. The
// image is never started: a container is created from it, its files read, and removed.
func (r *Run) Schemas(ctx context.Context, sdk, version, imagePath string) (dir, tag string, err error) {
	if tag, err = r.image(ctx, sdk, version, ""); err != nil {
		return "", "", err
	}
	img, err := r.Pool.Client.InspectImage(tag)
	if err != nil {
		return "", tag, err
	}
	dir = filepath.Join(r.cfg.CacheDir, "docker", "schemas", short(strings.TrimPrefix(img.ID, "sha256:")))
	if _, err := os.Stat(dir); err == nil {
		return dir, tag, nil
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", tag, err
	}
	c, err := r.Pool.Client.CreateContainer(dc.CreateContainerOptions{Context: ctx,
		Config: &dc.Config{Image: tag, Labels: map[string]string{LabelProject: "1", LabelRun: r.ID, LabelKind: "schema-copy"}}})
	if err != nil {
		return "", tag, fmt.Errorf("create a container of %s to copy %s: %w", tag, imagePath, err)
	}
	defer func() {
		_ = r.Pool.Client.RemoveContainer(dc.RemoveContainerOptions{ID: c.ID, Force: true, RemoveVolumes: true})
	}()
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".copy-")
	if err != nil {
		return "", tag, err
	}
	defer os.RemoveAll(tmp)
	pr, pw := io.Pipe()
	go func() {
		// "/." copies the folder's contents, following imagePath when it is a link.
		pw.CloseWithError(r.Pool.Client.DownloadFromContainer(c.ID, dc.DownloadFromContainerOptions{
			Context: ctx, Path: strings.TrimSuffix(imagePath, "/") + "/.", OutputStream: pw}))
	}()
	n, err := untarFiles(pr, tmp)
	_ = pr.CloseWithError(err)
	if err != nil {
		return "", tag, fmt.Errorf("copy %s out of %s: %w", imagePath, tag, err)
	}
	if n == 0 {
		return "", tag, fmt.Errorf("%s in %s holds no file", imagePath, tag)
	}
	if err := os.Rename(tmp, dir); err != nil && !errors.Is(err, os.ErrExist) {
		if _, serr := os.Stat(dir); serr != nil { // not another run's copy of the same image
			return "", tag, err
		}
	}
	return dir, tag, nil
}

// untarFiles writes the regular files and folders of an archive of one folder's contents (the
// engine's archive of "PATH/." names them "./NAME") into dir and counts the files. Written here rather
// than with a library: a flat folder of a few files, with names checked to stay inside dir.
func untarFiles(r io.Reader, dir string) (int, error) {
	tr := tar.NewReader(r)
	n := 0
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		name := path.Clean(h.Name)
		if name == "." {
			continue // the folder itself
		}
		if !filepath.IsLocal(name) {
			return n, fmt.Errorf("archive entry %q leaves the folder", h.Name)
		}
		target := filepath.Join(dir, filepath.FromSlash(name))
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return n, err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return n, err
			}
			f, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
			if err != nil {
				return n, err
			}
			_, err = io.Copy(f, tr)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return n, err
			}
			n++
		}
	}
}
