package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/driver"
	"github.com/copilot-sdk-conformance/conformance/internal/sdks"
	"github.com/spf13/cobra"
)

// repoRoot finds the harness checkout: --root, or the nearest folder above the working
// directory that holds fixtures/sdks.yaml and drivers/PROTOCOL.md.
func repoRoot(cmd *cobra.Command) (string, error) {
	if r, _ := cmd.Flags().GetString("root"); r != "" {
		return filepath.Abs(r)
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if fileExists(filepath.Join(dir, "fixtures", "sdks.yaml")) && fileExists(filepath.Join(dir, "drivers", "PROTOCOL.md")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", &exitError{2, fmt.Errorf("not inside a conformance checkout (no fixtures/sdks.yaml above the working directory); pass --root")}
		}
		dir = parent
	}
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// parsePairs reads repeated LANG=VALUE flags.
func parsePairs(flag string, values []string) (map[string]string, error) {
	out := map[string]string{}
	for _, v := range values {
		k, val, ok := strings.Cut(v, "=")
		if !ok || k == "" || val == "" {
			return nil, &exitError{2, fmt.Errorf("--%s %q: want LANG=VALUE", flag, v)}
		}
		out[k] = val
	}
	return out, nil
}

// selfArgv is how the SDKs spawn this program as their runtime over stdio.
func selfArgv() []string {
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	return []string{exe, "runtime", "--stdio"}
}

// rootAndPins finds the checkout and reads its pinned SDK versions.
func rootAndPins(cmd *cobra.Command) (string, map[string]sdks.Pin, error) {
	root, err := repoRoot(cmd)
	if err != nil {
		return "", nil, err
	}
	pins, err := sdks.LoadPins(filepath.Join(root, "fixtures", "sdks.yaml"))
	if err != nil {
		return "", nil, &exitError{2, err}
	}
	return root, pins, nil
}

// localDriver prepares --sdk's driver on this machine, as smoke and surface start it: the SDK
// must be pinned, and --sdk-version (default the pin) is checked against its registry's syntax
// first. It returns the repository root and the pins besides. The preparation's progress goes to log.
func localDriver(cmd *cobra.Command, sdk, version, source string, log io.Writer) (string, map[string]sdks.Pin, driver.Local, error) {
	root, pins, err := rootAndPins(cmd)
	if err != nil {
		return "", nil, driver.Local{}, err
	}
	pin, ok := pins[sdk]
	if !ok {
		return "", nil, driver.Local{}, &exitError{2, fmt.Errorf("--sdk %q: not in fixtures/sdks.yaml", sdk)}
	}
	if version == "" {
		version = pin.Version
	} else if err := sdks.CheckVersion(sdk, version); err != nil {
		return "", nil, driver.Local{}, &exitError{2, fmt.Errorf("--sdk-version %s: %w", version, err)}
	}
	prep, err := (&sdks.Preparer{RepoRoot: root, CacheRoot: sdks.DefaultCacheRoot(), Log: log}).Prepare(cmd.Context(), sdk, version, source)
	if err != nil {
		return "", nil, driver.Local{}, &exitError{2, err}
	}
	return root, pins, driver.Local{Argv: prep.Launch.Argv, Dir: prep.Launch.Dir, Env: prep.Launch.Env}, nil
}
