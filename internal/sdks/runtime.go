package sdks

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
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
	if p := bin(); p != "" {
		rb.Path = p
		return rb, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return RuntimeBinary{}, err
	}
	fmt.Fprintf(log, "runtime: installing %s@%s into %s\n", RuntimePackage, version, dir)
	cmd := exec.CommandContext(ctx, "npm", "install", "--no-audit", "--no-fund", "--ignore-scripts", "--no-save",
		"--prefix", dir, RuntimePackage+"@"+version)
	cmd.Env = append(os.Environ(), "npm_config_update_notifier=false")
	if out, err := cmd.CombinedOutput(); err != nil {
		return RuntimeBinary{}, fmt.Errorf("npm install %s@%s: %v\n%s", RuntimePackage, version, err, tail(string(out)))
	}
	if rb.Path = bin(); rb.Path == "" {
		return RuntimeBinary{}, fmt.Errorf("npm installed %s@%s but %s holds no node_modules/@github/copilot-*/copilot", RuntimePackage, version, dir)
	}
	return rb, nil
}

func relPlatform(root, path string) string {
	if rel, err := filepath.Rel(root, path); err == nil {
		return filepath.ToSlash(rel)
	}
	return path
}
