package sdks

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// goSDKModule is the Go SDK's module path on the Go module proxy.
const goSDKModule = "github.com/github/copilot-sdk/go"

func init() {
	register(Driver{
		Probe:       probeGo,
		Name:        "go",
		Order:       2,
		MonorepoDir: "go",
		LocalBase:   &LocalBase{RuntimeBase: RuntimeDebian},
		VersionsNote: "the module proxy refuses version lists here; the versions were found by probing tags vX.Y.Z with `go list -m` " +
			"(a tag that skips two patches, and pre-releases, are not found)",
		Version:  goSyntax,
		Pinned:   pinnedIn("go.mod", `github\.com/github/copilot-sdk/go (v\S+)`),
		Pristine: pristineGo,
		Versions: goProbeVersions(goSDKModule),
		Toolchain: []Tool{{
			Bin:         "go",
			VersionArgs: []string{"version"},
			Hint:        "install Go >= 1.24 (https://go.dev/dl, or `apt-get install golang-go` where that is new enough)",
		}},
		Prepare: prepareGo,
	})
}

// prepareGo copies drivers/go (its own module, pinning the SDK in go.mod/go.sum) into the cache,
// points it at the requested SDK version or local source, and builds the driver binary there.
// The module and build caches (GOMODCACHE, GOCACHE) are the user's, so a re-prepare is fast.
func prepareGo(ctx context.Context, pc PrepareContext) (Launch, error) {
	src := filepath.Join(pc.CacheDir, "src")
	if err := os.RemoveAll(src); err != nil {
		return Launch{}, err
	}
	if err := copyGoDriver(pc.DriverDir, src); err != nil {
		return Launch{}, err
	}
	env := []string{
		"GOFLAGS=-mod=mod -buildvcs=false",
		"GOWORK=off",
	}
	goCmd := func(args ...string) error { return pc.Run(ctx, src, env, append([]string{"go"}, args...)...) }

	switch {
	case pc.Source != "":
		dir, err := goSDKSourceDir(pc.Source)
		if err != nil {
			return Launch{}, err
		}
		fmt.Fprintf(pc.Log, "go: using local SDK source %s\n", dir)
		if err := goCmd("mod", "edit", "-replace", goSDKModule+"="+dir); err != nil {
			return Launch{}, err
		}
		if err := goCmd("mod", "tidy"); err != nil {
			return Launch{}, err
		}
	default:
		version := pc.Version
		if version == "" {
			return Launch{}, fmt.Errorf("go: no SDK version given")
		}
		if !strings.HasPrefix(version, "v") {
			version = "v" + version
		}
		sum, _ := os.ReadFile(filepath.Join(src, "go.sum"))
		if !strings.Contains(string(sum), goSDKModule+" "+version+" ") {
			// Not the pinned version: resolve it and its dependencies from the proxy.
			fmt.Fprintf(pc.Log, "go: switching %s to %s\n", goSDKModule, version)
			if err := goCmd("mod", "edit", "-require="+goSDKModule+"@"+version); err != nil {
				return Launch{}, err
			}
			if err := goCmd("mod", "tidy"); err != nil {
				return Launch{}, err
			}
		} else {
			fmt.Fprintf(pc.Log, "go: %s %s (pinned in drivers/go/go.mod)\n", goSDKModule, version)
		}
	}

	bin := filepath.Join(pc.CacheDir, "driver")
	if err := goCmd("build", "-o", bin, "."); err != nil {
		return Launch{}, err
	}
	return Launch{Argv: []string{bin}, Dir: pc.CacheDir}, nil
}

// copyGoDriver copies the driver's module files (go.mod, go.sum, *.go) into dst.
func copyGoDriver(from, dst string) error {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	entries, err := os.ReadDir(from)
	if err != nil {
		return err
	}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !(name == "go.mod" || name == "go.sum" || strings.HasSuffix(name, ".go")) {
			continue
		}
		data, err := os.ReadFile(filepath.Join(from, name))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dst, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// goSDKSourceDir finds the Go SDK module in a local folder: the folder itself (the go/ folder of a
// github/copilot-sdk checkout, or an unpacked module) or its go/ subfolder (the checkout's root).
func goSDKSourceDir(source string) (string, error) {
	abs, err := filepath.Abs(source)
	if err != nil {
		return "", err
	}
	for _, dir := range []string{abs, filepath.Join(abs, "go")} {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n") {
			if f := strings.Fields(line); len(f) >= 2 && f[0] == "module" && strings.Trim(f[1], `"`) == goSDKModule {
				return dir, nil
			}
		}
	}
	return "", fmt.Errorf("go: %s holds no module %s (looked at go.mod and go/go.mod)", source, goSDKModule)
}

// probeGo asks go doc in the prepared driver module: "pkg.Name[.Member]", where pkg is the
// SDK's package name for its root ("copilot") or a sub-package's last path element.
func probeGo(ctx context.Context, prep *Prepared, symbols []string) (map[string]bool, error) {
	out := map[string]bool{}
	for _, sym := range symbols {
		pkg, rest, ok := strings.Cut(sym, ".")
		if !ok {
			return nil, fmt.Errorf("go symbol %q: want pkg.Name[.Member]", sym)
		}
		path := goSDKModule
		if pkg != "copilot" {
			path += "/" + pkg
		}
		_, stderr, err := probeCommand(ctx, filepath.Join(prep.CacheDir, "src"), []string{"GOFLAGS=-mod=mod", "GOWORK=off"},
			"go", "doc", "-short", path, rest)
		switch {
		case err == nil:
			out[sym] = true
		case bytes.Contains(stderr, []byte("no symbol")) || bytes.Contains(stderr, []byte("no method or field")):
			out[sym] = false
		default:
			return nil, fmt.Errorf("go doc %s %s: %v: %s", path, rest, err, bytes.TrimSpace(stderr))
		}
	}
	return out, nil
}
