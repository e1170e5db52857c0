package sdks

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// The generated RPC layer of a prepared SDK, read from the installed package's own files, not
// from what its driver says: the capability audit holds a driver that declares rpc.generated
// false against it, so a layer the SDK has (kept where that version keeps it: Java 0.x in
// com/github/copilot/sdk/generated/rpc, 1.x in com/github/copilot/generated/rpc) is never
// reported missing.

// javaGenerated finds the generated ServerRpc and SessionRpc classes in the driver's jar (which
// shades the SDK's classes in), in whichever package this SDK version keeps them.
func javaGenerated(_ context.Context, prep *Prepared) (string, error) {
	return jarGenerated(filepath.Join(prep.CacheDir, "driver", "target", javaJar))
}

// jarGenerated is the folder of a jar holding both generated/rpc/ServerRpc.class and
// SessionRpc.class ("" when none does).
func jarGenerated(jar string) (string, error) {
	r, err := zip.OpenReader(jar)
	if err != nil {
		return "", fmt.Errorf("java: %w", err)
	}
	defer r.Close()
	classes := map[string]map[string]bool{}
	for _, f := range r.File {
		dir, name := filepath.Split(f.Name)
		if (name == "ServerRpc.class" || name == "SessionRpc.class") && strings.HasSuffix(dir, "generated/rpc/") {
			if classes[dir] == nil {
				classes[dir] = map[string]bool{}
			}
			classes[dir][name] = true
		}
	}
	var found []string
	for dir, names := range classes {
		if len(names) == 2 {
			found = append(found, dir)
		}
	}
	if len(found) == 0 {
		return "", nil
	}
	sort.Strings(found)
	return filepath.Base(jar) + "!/" + found[0], nil
}

// nodeGenerated is the installed SDK's dist/generated/rpc.js.
func nodeGenerated(_ context.Context, prep *Prepared) (string, error) {
	return existing(filepath.Join(prep.CacheDir, "node_modules", filepath.FromSlash(nodePackage), "dist", "generated", "rpc.js"))
}

// pythonGenerated is the installed package's copilot/generated/rpc.py.
func pythonGenerated(_ context.Context, prep *Prepared) (string, error) {
	matches, _ := filepath.Glob(filepath.Join(prep.CacheDir, "venv", "lib", "python*", "site-packages", "copilot", "generated", "rpc.py"))
	if len(matches) == 0 {
		return "", nil
	}
	return matches[0], nil
}

// goGenerated is rpc/zrpc.go in the SDK module the driver builds with (`go list -m`: the module
// cache's copy, or a local source's replace folder).
func goGenerated(ctx context.Context, prep *Prepared) (string, error) {
	stdout, stderr, err := probeCommand(ctx, filepath.Join(prep.CacheDir, "src"), []string{"GOFLAGS=-mod=mod", "GOWORK=off"},
		"go", "list", "-m", "-f", "{{if .Replace}}{{.Replace.Dir}}{{else}}{{.Dir}}{{end}}", goSDKModule)
	if err != nil {
		return "", fmt.Errorf("go list -m %s: %v: %s", goSDKModule, err, bytes.TrimSpace(stderr))
	}
	dir := strings.TrimSpace(string(stdout))
	if dir == "" {
		return "", fmt.Errorf("go list -m %s: no folder", goSDKModule)
	}
	return existing(filepath.Join(dir, "rpc", "zrpc.go"))
}

// rustGenerated is src/generated/rpc.rs of the crate the driver builds with, when the crate's
// Client reaches it (Client::rpc; older crates generate the file for their own use only).
func rustGenerated(_ context.Context, prep *Prepared) (string, error) {
	crate, err := rustCrateDir(filepath.Join(prep.CacheDir, "src"))
	if err != nil {
		return "", err
	}
	path, err := existing(filepath.Join(crate, "src", "generated", "rpc.rs"))
	if path == "" || err != nil {
		return path, err
	}
	text, err := readSources(filepath.Join(crate, "src"), ".rs")
	if err != nil {
		return "", err
	}
	if reachable, err := rustHas(text, "Client::rpc"); err != nil || !reachable {
		return "", err
	}
	return path, nil
}

func existing(path string) (string, error) {
	if _, err := os.Stat(path); err != nil {
		if os.IsNotExist(err) {
			return "", nil
		}
		return "", err
	}
	return path, nil
}
