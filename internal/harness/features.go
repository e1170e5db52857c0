package harness

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing/fstest"
)

// featureFS is the run's feature files, read once into memory before any SDK runs, that every
// SDK's godog suite reads instead of the disk. godog opens the files anew for each SDK when that
// SDK's suite starts; on a machine out of open files by then (the other SDKs' drivers and runtime
// connections), an open that failed made godog print one line to stderr and run none of the
// SDK's scenarios (measured under `ulimit -n 256`: Python lost all 105 results of
// features/session and features/tools at "open features/session: too many open files").
//
// fstest.MapFS holds the files (a library in-memory fs.FS); it takes only unrooted slash paths,
// so Open maps each name godog asks for (relative or absolute, as the user wrote it) to its
// absolute path first, the key the files were read under: godog still sees the paths as given
// and names the features as it would on disk.
type featureFS struct{ files fstest.MapFS }

func (f featureFS) Open(name string) (fs.File, error) {
	file, err := f.files.Open(featureKey(name))
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return file, nil
}

func featureKey(name string) string {
	if abs, err := filepath.Abs(name); err == nil {
		name = abs
	}
	return strings.TrimPrefix(filepath.ToSlash(name), "/")
}

// lineSuffix is godog's "file.feature:LINE" (a scenario by its line).
var lineSuffix = regexp.MustCompile(`:\d+$`)

// readFeatures reads every .feature file under paths (files or folders, a file possibly with a
// :LINE suffix) into a featureFS. A file or folder that cannot be read is a setup error naming it.
func readFeatures(paths []string) (fs.FS, error) {
	files := fstest.MapFS{}
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil && lineSuffix.MatchString(p) {
			p = lineSuffix.ReplaceAllString(p, "")
		}
		err := filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				files[featureKey(path)] = &fstest.MapFile{Mode: fs.ModeDir | 0o755}
				return nil
			}
			if !strings.HasSuffix(path, ".feature") && path != p {
				return nil
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			files[featureKey(path)] = &fstest.MapFile{Data: data, Mode: 0o644}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("reading the features: %w", err)
		}
	}
	return featureFS{files}, nil
}
