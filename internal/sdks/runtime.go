package sdks

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/procgroup"
	"github.com/copilot-sdk-conformance/conformance/internal/text"
)

// The real Copilot runtime (--runtime real): which binary runs, prepared and cached like an SDK.
//
//   - No version: the runtime the schema-source SDK's platform package ships (for the pinned
//     Node SDK, node_modules/@github/copilot-sdk-linux-x64/prebuilds/linux-x64/copilot-runtime,
//     version 1.0.85), the same build whose api.schema.json the run validates against.
//   - A version V: the npm CLI package @github/copilot@V installed into
//     <cache>/runtime/<V>/ (its platform package @github/copilot-linux-x64 carries the binary
//     `copilot`), one flock per version as for SDK preparations.
//
// Both start as `<binary> --headless --no-auto-update --no-auto-login` (the Node SDK's own
// startCLIServer arguments), offline, with a private HOME.

// RuntimePackage is the npm package that publishes the runtime as a CLI.
const RuntimePackage = "@github/copilot"

// RuntimeBinary is a prepared real runtime.
type RuntimeBinary struct {
	Path    string // the executable
	Version string // the version asked for ("" for the one the pinned SDK ships)
	Origin  string // where it came from, for reports
	// Env is added to each runtime process's environment: the npm CLI is a single executable
	// that unpacks its package on start (6 to 16 s here) into COPILOT_CACHE_HOME, which is shared
	// per version and filled once at preparation, so scenarios keep a private HOME and start fast.
	Env []string
}

// PrepareRuntime returns the runtime binary for version ("" or "pinned": the one shipped beside
// the runtime schema in sdkCacheDir, the prepared schema-source SDK).
func PrepareRuntime(ctx context.Context, cacheRoot, version, sdkCacheDir string, log io.Writer) (RuntimeBinary, error) {
	if version == "" || version == "pinned" {
		matches, _ := filepath.Glob(filepath.Join(sdkCacheDir, "node_modules", "@github", "*", "prebuilds", "*", "copilot-runtime"))
		if len(matches) == 0 {
			return RuntimeBinary{}, fmt.Errorf("no node_modules/@github/*/prebuilds/*/copilot-runtime under %s", sdkCacheDir)
		}
		return RuntimeBinary{Path: matches[0], Origin: "the pinned SDK's platform package (" + relPlatform(sdkCacheDir, matches[0]) + ")"}, nil
	}
	if err := npmSyntax.Check(version); err != nil {
		return RuntimeBinary{}, fmt.Errorf("--runtime-version %s: %w", version, err)
	}
	dir := filepath.Join(cacheRoot, "runtime", sanitize(version))
	unlock, err := lockKey(ctx, dir+".lock")
	if err != nil {
		return RuntimeBinary{}, err
	}
	defer unlock()
	bin := func() string {
		m, _ := filepath.Glob(filepath.Join(dir, "node_modules", "@github", "copilot-*", "copilot"))
		if len(m) == 0 {
			return ""
		}
		return m[0]
	}
	rb := RuntimeBinary{Version: version, Origin: fmt.Sprintf("npm %s@%s", RuntimePackage, version)}
	unpacked := filepath.Join(dir, "unpacked")
	rb.Env = []string{"COPILOT_CACHE_HOME=" + unpacked}
	if p := bin(); p != "" {
		if _, err := os.Stat(filepath.Join(unpacked, "pkg")); err == nil {
			rb.Path = p
			return rb, nil
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return RuntimeBinary{}, err
	}
	fmt.Fprintf(log, "runtime: installing %s@%s into %s\n", RuntimePackage, version, dir)
	cmd := procgroup.Command(ctx, "npm", "install", "--no-audit", "--no-fund", "--ignore-scripts", "--no-save",
		"--prefix", dir, RuntimePackage+"@"+version)
	cmd.Env = append(os.Environ(), "npm_config_update_notifier=false")
	if out, err := procgroup.CombinedOutput(cmd); err != nil {
		return RuntimeBinary{}, fmt.Errorf("npm install %s@%s: %v\n%s", RuntimePackage, version, err, text.Tail(string(out), 400))
	}
	if rb.Path = bin(); rb.Path == "" {
		return RuntimeBinary{}, fmt.Errorf("npm installed %s@%s but %s holds no node_modules/@github/copilot-*/copilot", RuntimePackage, version, dir)
	}
	fmt.Fprintf(log, "runtime: unpacking %s@%s once into %s\n", RuntimePackage, version, unpacked)
	if err := unpackRuntime(ctx, rb); err != nil {
		return RuntimeBinary{}, err
	}
	return rb, nil
}

// unpackRuntime starts the runtime once, in a throwaway HOME, until it listens, so that its
// package is unpacked into the shared COPILOT_CACHE_HOME.
func unpackRuntime(ctx context.Context, rb RuntimeBinary) error {
	home, err := os.MkdirTemp("", "conformance-runtime-unpack-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(home)
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	cmd := procgroup.Command(ctx, rb.Path, "--headless", "--no-auto-update", "--no-auto-login")
	cmd.Dir, cmd.Env = home, append(os.Environ(), append([]string{"HOME=" + home}, rb.Env...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := procgroup.Start(cmd); err != nil {
		return err
	}
	defer func() { procgroup.Kill(cmd); _ = procgroup.Wait(cmd) }()
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if strings.Contains(strings.ToLower(sc.Text()), "listening on port") {
			return nil
		}
	}
	return fmt.Errorf("%s exited or timed out before listening while unpacking", rb.Path)
}

func relPlatform(root, path string) string {
	if rel, err := filepath.Rel(root, path); err == nil {
		return filepath.ToSlash(rel)
	}
	return path
}

// PrepareRealRuntime finds or installs the real runtime binary of a run: the one the schema-source
// SDK's platform package ships (that SDK prepared at its pin), or npm @github/copilot at version.
func PrepareRealRuntime(ctx context.Context, repoRoot, cacheRoot, version string, pins map[string]Pin, log io.Writer) (RuntimeBinary, error) {
	d, ok := SchemaSource()
	if !ok {
		return RuntimeBinary{}, fmt.Errorf("no SDK recipe ships the runtime")
	}
	dir := ""
	if version == "" {
		prep, err := (&Preparer{RepoRoot: repoRoot, CacheRoot: cacheRoot, Log: log}).Prepare(ctx, d.Name, pins[d.Name].Version, "")
		if err != nil {
			return RuntimeBinary{}, err
		}
		dir = prep.CacheDir
	}
	return PrepareRuntime(ctx, cacheRoot, version, dir, log)
}
