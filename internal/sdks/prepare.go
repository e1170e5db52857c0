package sdks

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/copilot-sdk-conformance/conformance/internal/procgroup"
)

// Pin is one SDK's default package and version (fixtures/sdks.yaml).
type Pin struct {
	Package  string `yaml:"package" json:"package"`
	Registry string `yaml:"registry" json:"registry"`
	Version  string `yaml:"version" json:"version"`
}

// LoadPins reads fixtures/sdks.yaml.
func LoadPins(path string) (map[string]Pin, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParsePins(b, path)
}

// ParsePins reads the pins in b; path is used in errors.
func ParsePins(b []byte, path string) (map[string]Pin, error) {
	pins := map[string]Pin{}
	if err := yaml.Unmarshal(b, &pins); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for name, p := range pins {
		if !slices.Contains(Names(), name) {
			return nil, fmt.Errorf("%s: unknown SDK %q (known: %s)", path, name, strings.Join(Names(), ", "))
		}
		if p.Version == "" {
			return nil, fmt.Errorf("%s: SDK %q has no version", path, name)
		}
	}
	return pins, nil
}

// Unavailable means an SDK cannot run here: its toolchain or package is missing.
type Unavailable struct{ Reason string }

func (u *Unavailable) Error() string { return u.Reason }

// toolchains remembers each CheckToolchain answer per SDK and PATH: one process asks several
// times per target (the runner, the preparer, the schema's preparation), and a history asks per
// version, while a tool's `--version` can take seconds on a loaded machine (npm: 1.6 s at load
// 25 on 2 cores).
var toolchains sync.Map // name + "\x00" + PATH -> toolchainAnswer

type toolchainAnswer struct {
	versions []string
	err      error
}

// CheckToolchain looks for every tool of d on PATH and returns their versions; a missing tool is
// an *Unavailable naming it and how to get it.
func CheckToolchain(d Recipe) ([]string, error) {
	key := d.Name + "\x00" + os.Getenv("PATH")
	if a, ok := toolchains.Load(key); ok {
		return slices.Clone(a.(toolchainAnswer).versions), a.(toolchainAnswer).err
	}
	versions, err := checkToolchain(d)
	toolchains.Store(key, toolchainAnswer{versions, err})
	return slices.Clone(versions), err
}

// checkToolchain asks every tool at once (mvn -v and npm --version each take most of a second
// to start) and answers as if asked in order: the versions up to the first tool that fails.
func checkToolchain(d Recipe) ([]string, error) {
	versions := make([]string, len(d.Toolchain))
	errs := make([]error, len(d.Toolchain))
	var wg sync.WaitGroup
	for i, t := range d.Toolchain {
		wg.Add(1)
		go func() {
			defer wg.Done()
			path, err := exec.LookPath(t.Bin)
			if err != nil {
				errs[i] = &Unavailable{Reason: fmt.Sprintf("%s not found on PATH; %s", t.Bin, t.Hint)}
				return
			}
			out, err := procgroup.CombinedOutput(procgroup.Command(context.Background(), path, t.VersionArgs...))
			if err != nil {
				errs[i] = &Unavailable{Reason: fmt.Sprintf("%s %s failed (%v); %s", t.Bin, strings.Join(t.VersionArgs, " "), err, t.Hint)}
				return
			}
			first := strings.TrimSpace(strings.SplitN(strings.TrimSpace(string(out)), "\n", 2)[0])
			versions[i] = fmt.Sprintf("%s (%s)", first, path)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return versions[:i], err
		}
	}
	return versions, nil
}

// Preparer prepares drivers into a cache shared between runs.
type Preparer struct {
	RepoRoot  string    // holds drivers/
	CacheRoot string    // e.g. ~/.cache/copilot-sdk-conformance
	Log       io.Writer // progress
	// Nice, when not 0, is the CPU niceness the preparation's commands run at (procgroup.Nice):
	// one that yields the cores to a longer preparation of the same run.
	Nice int
}

// Prepared is a driver ready to start.
type Prepared struct {
	SDK      string `json:"sdk"`
	Version  string `json:"version"`
	Source   string `json:"source,omitempty"`
	CacheDir string `json:"cacheDir"`
	Launch   Launch `json:"launch"`
}

// DefaultCacheRoot is $CONFORMANCE_CACHE, or the user's cache folder.
func DefaultCacheRoot() string {
	if d := os.Getenv("CONFORMANCE_CACHE"); d != "" {
		return d
	}
	d, err := os.UserCacheDir()
	if err != nil {
		d = os.TempDir()
	}
	return filepath.Join(d, "copilot-sdk-conformance")
}

const marker = "prepared.json"

// Prepare returns a driver for SDK name at version (or from a local source folder), preparing it
// when the cache has no finished preparation with the same SDK, version, source and driver code.
func (p *Preparer) Prepare(ctx context.Context, name, version, source string) (*Prepared, error) {
	d, ok := Lookup(name)
	if !ok {
		return nil, fmt.Errorf("unknown SDK %q", name)
	}
	driverDir := filepath.Join(p.RepoRoot, "drivers", name)
	if d.DriverDir != "" {
		driverDir = d.DriverDir
	}
	driverHash, err := hashTree(driverDir, d.BuildOutputs)
	if err != nil {
		return nil, fmt.Errorf("driver %s: %w", name, err)
	}
	key := version
	if source != "" {
		if source, err = filepath.Abs(source); err != nil {
			return nil, err
		}
		if _, err := os.Stat(source); err != nil {
			return nil, fmt.Errorf("--sdk-source %s=%s: %w", name, source, err)
		}
		var how string
		if key, how, err = SourceKey(ctx, d, source); err != nil {
			return nil, fmt.Errorf("--sdk-source %s=%s: %w", name, source, err)
		}
		fmt.Fprintf(p.Log, "[%s] source %s: %s\n", name, source, how)
		p.pruneGoneSources(name)
	}
	dir := filepath.Join(p.CacheRoot, name, fmt.Sprintf("%s-%s-r%d", sanitize(key), driverHash[:12], d.Revision))
	// One process prepares a key at a time: another waits, then finds the finished preparation.
	unlock, err := lockKey(ctx, dir+".lock")
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	defer unlock()
	sweepBeside(dir)
	// A finished preparation is reused while it is whole: a registry version is immutable, and
	// a source's key is its content. A source with the same content at another path (the other
	// side of a pull request) reuses it under its own path.
	rebuild := ""
	if prev, err := readMarker(dir); err == nil {
		if rebuild = Damaged(dir, prev); rebuild == "" && prev.Source != "" && prev.Source != source {
			if _, err := os.Stat(prev.Source); err != nil {
				rebuild = "its source folder " + prev.Source + " is gone"
			}
		}
		if rebuild == "" {
			held, err := hold(dir)
			if err != nil {
				return nil, fmt.Errorf("hold %s: %w", dir, err)
			}
			if held {
				touch(dir)
				fmt.Fprintf(p.Log, "[%s] using cached driver (%s)\n", name, dir)
				if source != "" && prev.Source != source {
					prev.Launch = relocate(prev.Launch, prev.Source, source)
					prev.Source = source
				}
				return prev, nil
			}
			rebuild = "another process is removing it"
		}
	} else if _, statErr := os.Stat(dir); statErr == nil {
		rebuild = err.Error()
	}
	// The toolchain is checked only to prepare: a cached preparation needs none of the build tools
	// (npm --version alone takes 1.6 s here, and reading the runtime's schema from the cache
	// waited for it at the start of every run). A run still checks it (runner.Local), for the
	// report's toolchain line.
	if _, err := CheckToolchain(d); err != nil {
		return nil, err
	}
	what := version
	if source != "" {
		what = "source " + source
	}
	if rebuild != "" {
		fmt.Fprintf(p.Log, "[%s] preparing %s again: %s\n", name, dir, rebuild)
	}
	fmt.Fprintf(p.Log, "[%s] preparing driver for SDK %s in %s\n", name, what, dir)
	start := time.Now()
	// Built beside the final folder and renamed into place: a run that uses a preparation of
	// this key (a damaged one being replaced) never sees a half-built folder.
	build := besideName(dir, newSuffix)
	if err := os.MkdirAll(build, 0o755); err != nil {
		return nil, err
	}
	// A failed preparation leaves nothing behind: no half-installed folder for the next run to
	// trip over.
	prepared := false
	defer func() {
		if !prepared {
			_ = os.RemoveAll(build)
			if _, err := os.Stat(dir); os.IsNotExist(err) {
				// The lock file too (still held here, released just after): a waiter that
				// then takes the unlinked file's lock prepares again and fails the same way.
				_ = os.Remove(dir + ".lock")
				_ = os.Remove(filepath.Dir(dir)) // only when empty
			}
		}
	}()
	launch, err := d.Prepare(ctx, PrepareContext{
		DriverDir: driverDir, CacheDir: build, Version: version, Source: source, Log: p.Log,
		Run: func(ctx context.Context, wd string, env []string, argv ...string) error {
			return run(ctx, p.Log, name, wd, p.Nice, env, argv...)
		},
	})
	if err != nil {
		return nil, fmt.Errorf("prepare %s driver (SDK %s): %w", name, what, err)
	}
	prep := &Prepared{SDK: name, Version: version, Source: source, CacheDir: dir, Launch: relocate(launch, build, dir)}
	if err := finish(build, dir, prep); err != nil {
		return nil, fmt.Errorf("prepare %s driver (SDK %s): %w", name, what, err)
	}
	prepared = true
	if _, err := hold(dir); err != nil {
		return nil, fmt.Errorf("hold %s: %w", dir, err)
	}
	fmt.Fprintf(p.Log, "[%s] driver ready in %s\n", name, time.Since(start).Round(time.Second))
	return prep, nil
}

// finish marks the preparation built in build as whole (its file list, then the marker, written
// last) and renames it to dir; a preparation already at dir (a damaged one) is renamed aside
// first and removed once no process holds it.
func finish(build, dir string, prep *Prepared) error {
	if err := writeFileList(build); err != nil {
		return err
	}
	b, _ := json.MarshalIndent(prep, "", "  ")
	if err := os.WriteFile(filepath.Join(build, marker), b, 0o644); err != nil {
		return err
	}
	if _, err := os.Stat(dir); err == nil {
		old := besideName(dir, oldSuffix)
		if err := os.Rename(dir, old); err != nil {
			return err
		}
		defer func() { _, _ = removeUnheld(old) }()
	}
	return os.Rename(build, dir)
}

// run executes one preparation command, printing a heartbeat while it runs; a failure carries the
// tail of its output.
func run(ctx context.Context, log io.Writer, name, dir string, nice int, env []string, argv ...string) error {
	fmt.Fprintf(log, "[%s] $ %s\n", name, strings.Join(argv, " "))
	// In a process group of its own, killed as a whole on every way out (cargo's rustc and
	// linker, npm's and pip's children included): see package procgroup.
	cmd := procgroup.Command(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out tailBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	done := make(chan struct{})
	start := time.Now()
	go func() {
		t := time.NewTicker(20 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				fmt.Fprintf(log, "[%s]   … still running %s (%s)\n", name, filepath.Base(argv[0]), time.Since(start).Round(time.Second))
			}
		}
	}()
	err := procgroup.Start(cmd)
	if err == nil {
		if nice != 0 {
			_ = procgroup.Nice(cmd, nice) // a priority, not a result: the build runs either way
		}
		err = procgroup.Wait(cmd)
	}
	close(done)
	if err != nil {
		return fmt.Errorf("%s (in %s) failed: %w\n%s", strings.Join(argv, " "), dir, err, out.String())
	}
	return nil
}

type tailBuffer struct{ b []byte }

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > 16<<10 {
		t.b = t.b[len(t.b)-16<<10:]
	}
	return len(p), nil
}
func (t *tailBuffer) String() string { return string(t.b) }

// hashTree hashes the names and contents of the files under dir, skipping build output, so that a
// change to a driver invalidates its cached preparation. A README is documentation, not the
// driver: editing one rebuilds nothing (a Rust driver's release build takes many minutes).
func hashTree(dir string, buildOutputs []string) (string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() {
			if path != dir && slices.Contains(buildOutputs, e.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if e.Name() == "README.md" {
			return nil
		}
		files = append(files, path)
		return nil
	})
	if err != nil {
		return "", err
	}
	sort.Strings(files)
	h := sha256.New()
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return "", err
		}
		rel, _ := filepath.Rel(dir, f)
		fmt.Fprintf(h, "%s\x00%d\x00", rel, len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ':' || r == ' ' {
			return '_'
		}
		return r
	}, s)
}

// CopyDir copies the regular files under src to dst (for recipes that build in the cache).
func CopyDir(src, dst string, skip ...string) error {
	return filepath.WalkDir(src, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		for _, s := range skip {
			if rel == s {
				if e.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
		}
		target := filepath.Join(dst, rel)
		if e.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !e.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		info, _ := e.Info()
		// Owner-writable even when the source is not (the Go module cache is read-only).
		return os.WriteFile(target, b, info.Mode().Perm()|0o200)
	})
}

// LocalSource resolves --sdk-source for a recipe: a file (a package archive) is used as is; a
// folder is tried itself, then its checkoutDir subfolder (the SDK's folder in a github/copilot-sdk
// checkout), and the first that isPackage accepts is used. isPackage may return an error that
// explains why a folder that is the package cannot be used (for example, not built).
func LocalSource(src, checkoutDir string, isPackage func(dir string) (bool, error)) (string, error) {
	abs, err := filepath.Abs(src)
	if err != nil {
		return "", err
	}
	info, err := os.Stat(abs)
	if err != nil {
		return "", err
	}
	if !info.IsDir() {
		return abs, nil
	}
	for _, dir := range []string{abs, filepath.Join(abs, checkoutDir)} {
		ok, err := isPackage(dir)
		if err != nil {
			return "", err
		}
		if ok {
			return dir, nil
		}
	}
	return "", fmt.Errorf("neither %s nor its %s/ folder holds the SDK", abs, checkoutDir)
}
