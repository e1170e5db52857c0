package sdks

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/procgroup"
)

// pinnedIn reads a driver's pinned SDK version from file with the first group of pattern. A
// pattern is enough here: each project file holds the pin on one well-known line, and the test
// that uses it fails loudly when the line moves.
func pinnedIn(file, pattern string) func(driverDir string) (string, error) {
	re := regexp.MustCompile(pattern)
	return func(driverDir string) (string, error) {
		path := filepath.Join(driverDir, file)
		b, err := os.ReadFile(path)
		if err != nil {
			return "", err
		}
		m := re.FindSubmatch(b)
		if m == nil {
			return "", fmt.Errorf("%s: no SDK pin matching %s", path, pattern)
		}
		return string(m[1]), nil
	}
}

// pristineGo is the Go module from the module proxy, as `go mod download` leaves it.
func pristineGo(ctx context.Context, version, _ string) (string, error) {
	out, err := procgroup.Output(procgroup.Command(ctx, "go", "mod", "download", "-json", "github.com/github/copilot-sdk/go@"+version))
	if err != nil {
		return "", fmt.Errorf("go mod download github.com/github/copilot-sdk/go@%s: %w", version, err)
	}
	var mod struct{ Dir, Error string }
	if err := json.Unmarshal(out, &mod); err != nil || mod.Dir == "" {
		return "", fmt.Errorf("go mod download: %s %s", mod.Error, out)
	}
	return mod.Dir, nil
}

// pristineNode is the npm package, packed from the registry and unpacked.
func pristineNode(ctx context.Context, version, dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	cmd := procgroup.Command(ctx, "npm", "pack", "--silent", "--pack-destination", dir, nodePackage+"@"+version)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := procgroup.Output(cmd)
	if err != nil {
		return "", fmt.Errorf("npm pack %s@%s: %w: %s", nodePackage, version, err, stderr.String())
	}
	lines := strings.Fields(strings.TrimSpace(string(out)))
	if len(lines) == 0 {
		return "", fmt.Errorf("npm pack printed no file name")
	}
	tgz := filepath.Join(dir, lines[len(lines)-1])
	if err := untar(tgz, filepath.Join(dir, "unpacked")); err != nil {
		return "", err
	}
	return filepath.Join(dir, "unpacked", "package"), nil
}

// pristinePython is the wheel, unpacked: the python recipe installs the same release and puts
// this copy of the import package in its place.
func pristinePython(ctx context.Context, version, dir string) (string, error) {
	cmd := procgroup.Command(ctx, "python3", "-m", "pip", "download", "--no-deps", "--only-binary", ":all:",
		"-d", dir, "github-copilot-sdk=="+version)
	if out, err := procgroup.CombinedOutput(cmd); err != nil {
		return "", fmt.Errorf("pip download github-copilot-sdk==%s: %w: %s", version, err, out)
	}
	wheels, _ := filepath.Glob(filepath.Join(dir, "*.whl"))
	if len(wheels) != 1 {
		return "", fmt.Errorf("pip download left %d wheels in %s", len(wheels), dir)
	}
	if err := unzip(wheels[0], filepath.Join(dir, "unpacked")); err != nil {
		return "", err
	}
	return filepath.Join(dir, "unpacked"), nil
}

func unzip(path, dst string) error {
	r, err := zip.OpenReader(path)
	if err != nil {
		return err
	}
	defer r.Close()
	for _, f := range r.File {
		if f.FileInfo().IsDir() {
			continue
		}
		target := filepath.Join(dst, filepath.Clean("/"+f.Name))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		in, err := f.Open()
		if err != nil {
			return err
		}
		b, err := io.ReadAll(in)
		in.Close()
		if err != nil {
			return err
		}
		if err := os.WriteFile(target, b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func untar(tgz, dst string) error {
	f, err := os.Open(tgz)
	if err != nil {
		return err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return err
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		target := filepath.Join(dst, filepath.Clean("/"+h.Name))
		if h.Typeflag != tar.TypeReg {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		out, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
		if err != nil {
			return err
		}
		_, err = io.Copy(out, tr)
		out.Close()
		if err != nil {
			return err
		}
	}
}
