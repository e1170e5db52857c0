package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/sdks"
)

// monorepoDir is an SDK's folder in a github/copilot-sdk checkout, as its recipe names it.
func monorepoDir(sdk string) string {
	d, _ := sdks.Lookup(sdk)
	return d.MonorepoDir
}

// sourcePairs reads --sdk-source values: LANG=PATH for one SDK, or a bare PATH that is the root of
// a github/copilot-sdk checkout, which stands for LANG=PATH/<folder> for each SDK of --sdk (every
// SDK when --sdk is not given) whose folder the checkout has. A LANG=PATH given too wins.
func sourcePairs(values, selected []string) (map[string]string, error) {
	out := map[string]string{}
	var roots []string
	for _, v := range values {
		if k, val, ok := strings.Cut(v, "="); ok && slices.Contains(sdks.Names(), k) {
			if val == "" {
				return nil, &exitError{2, fmt.Errorf("--sdk-source %q: want LANG=PATH or the PATH of a github/copilot-sdk checkout", v)}
			}
			out[k] = val
			continue
		}
		roots = append(roots, v)
	}
	for _, root := range roots {
		if info, err := os.Stat(root); err != nil || !info.IsDir() {
			return nil, &exitError{2, fmt.Errorf("--sdk-source %q: not LANG=PATH (LANG one of %s) and not a folder", root, strings.Join(sdks.Names(), ", "))}
		}
		want := selected
		if len(want) == 0 {
			want = sdks.Names()
		}
		found := 0
		for _, lang := range want {
			dir := filepath.Join(root, monorepoDir(lang))
			if _, isPair := out[lang]; isPair || monorepoDir(lang) == "" {
				continue
			}
			if info, err := os.Stat(dir); err == nil && info.IsDir() {
				out[lang] = dir
				found++
			} else if len(selected) > 0 {
				return nil, &exitError{2, fmt.Errorf("--sdk-source %s: the checkout has no %s/ folder for SDK %s", root, monorepoDir(lang), lang)}
			}
		}
		if found == 0 && len(selected) == 0 {
			return nil, &exitError{2, fmt.Errorf("--sdk-source %s: no language folder (%s) in it; give LANG=PATH for a single SDK", root, strings.Join(dirList(), ", "))}
		}
	}
	return out, nil
}

func dirList() []string {
	var out []string
	for _, n := range sdks.Names() {
		if d := monorepoDir(n); d != "" {
			out = append(out, d+"/")
		}
	}
	return out
}
