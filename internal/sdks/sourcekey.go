package sdks

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// A preparation from --sdk-source is keyed by the content of the SDK's folder, not by its path:
// an unchanged source is never built again (a Rust build takes minutes), and two checkouts whose
// SDK folder is the same (base and head of a pull request that changes another SDK) share one
// preparation.

// sourceKeyExclude are folder names a source key never reads: build output and installed
// dependencies, which the build makes from the rest.
var sourceKeyExclude = []string{".git", "node_modules", "target", "__pycache__", ".venv", "venv", ".mypy_cache", ".pytest_cache"}

// SourceKey names the content of the SDK that source holds for recipe d: in a git checkout, the
// tree git records for the SDK's folder at HEAD plus the changes to it that are not committed
// (tracked files' differences, untracked files that are not ignored); otherwise a hash of the
// folder's files (or of the file, for a package archive). how says which, for the log.
func SourceKey(ctx context.Context, d Recipe, source string) (key, how string, err error) {
	dir := source
	if d.SourceDir != nil {
		if dir, err = d.SourceDir(source); err != nil {
			return "", "", err
		}
	}
	info, err := os.Stat(dir)
	if err != nil {
		return "", "", err
	}
	h := sha256.New()
	switch {
	case !info.IsDir():
		f, err := os.Open(dir)
		if err != nil {
			return "", "", err
		}
		defer f.Close()
		fmt.Fprintf(h, "file\x00")
		if _, err := io.Copy(h, f); err != nil {
			return "", "", err
		}
		how = "content of " + dir
	default:
		if tree, dirty, ok := gitContent(ctx, dir); ok {
			fmt.Fprintf(h, "git\x00%s\x00", tree)
			h.Write(dirty)
			how = "git tree " + tree[:12]
			if len(dirty) > 0 {
				how += " with uncommitted changes"
			}
			break
		}
		sum, err := hashTree(dir, sourceKeyExclude)
		if err != nil {
			return "", "", err
		}
		fmt.Fprintf(h, "tree\x00%s", sum)
		how = "content of " + dir
	}
	return "source-" + hex.EncodeToString(h.Sum(nil))[:16], how, nil
}

// gitContent is the git tree of dir at HEAD and the bytes of its uncommitted state (the binary
// diff of tracked files against HEAD, then each untracked file that is not ignored, by name and
// content). ok is false when dir is not in a git work tree, git tracks nothing in it, or git is
// missing: the caller hashes the files instead.
func gitContent(ctx context.Context, dir string) (tree string, dirty []byte, ok bool) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	git := func(args ...string) ([]byte, bool) { return runGit(ctx, dir, args...) }
	t, ok := git("rev-parse", "HEAD:./")
	if !ok {
		return "", nil, false
	}
	tree = strings.TrimSpace(string(t))
	if len(tree) < 12 {
		return "", nil, false
	}
	diff, ok := git("diff", "--no-ext-diff", "--no-color", "--binary", "HEAD", "--", ".")
	if !ok {
		return "", nil, false
	}
	dirty = append(dirty, diff...)
	others, ok := git("ls-files", "-z", "--others", "--exclude-standard", "--", ".")
	if !ok {
		return "", nil, false
	}
	for _, rel := range strings.Split(strings.TrimRight(string(others), "\x00"), "\x00") {
		if rel == "" {
			continue
		}
		body, err := os.ReadFile(filepath.Join(dir, rel))
		if err != nil {
			return "", nil, false
		}
		dirty = fmt.Appendf(dirty, "\x00untracked\x00%s\x00%d\x00", rel, len(body))
		dirty = append(dirty, body...)
	}
	return tree, dirty, true
}
