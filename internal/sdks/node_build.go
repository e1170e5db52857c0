package sdks

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// nodeBuildSkip are the folders of a Node SDK source that are not copied to its build: what the
// build and the install write.
var nodeBuildSkip = []string{"node_modules", "dist"}

// nodeBuilt says whether a Node SDK source holds its built package (a package file, an unpacked
// `npm pack` or a checkout folder someone built).
func nodeBuilt(src string) bool {
	if info, err := os.Stat(src); err == nil && !info.IsDir() {
		return true
	}
	_, err := os.Stat(filepath.Join(src, "dist", "index.js"))
	return err == nil
}

// buildNodeSource builds the Node SDK source folder src (a checkout's nodejs/, no dist/) in a copy
// and returns the copy, ready to install: `npm ci` by the folder's own lockfile, then its build
// script (`npm run build`). When `npm ci` fails for a reason the SDK's build does not need, a
// fallback installs the tree another way (node_fallback.go); fallback says which ("" for none). The copy is kept under the node cache's builds/ folder, keyed by the
// source's path and content, so a rerun on the same source reuses it; a changed source is built
// again and its older build removed. A failed step is named with its exit status and the tail
// of its output: the reason a run reports the SDK unavailable.
func buildNodeSource(ctx context.Context, pc PrepareContext, src string) (string, string, error) {
	var fallback string
	content, err := hashTree(src, nodeBuildSkip)
	if err != nil {
		return "", "", fmt.Errorf("node: read source %s: %w", src, err)
	}
	pathSum := sha256.Sum256([]byte(src))
	prefix := hex.EncodeToString(pathSum[:])[:12] + "-"
	builds := filepath.Join(filepath.Dir(pc.CacheDir), "builds")
	dir := filepath.Join(builds, prefix+content[:12])
	pkg := filepath.Join(dir, "package")
	if err := os.MkdirAll(builds, 0o755); err != nil {
		return "", "", err
	}
	unlock, err := lockKey(ctx, dir+".lock")
	if err != nil {
		return "", "", fmt.Errorf("lock %s: %w", dir, err)
	}
	defer unlock()
	done := filepath.Join(dir, "built")
	if marker, err := os.ReadFile(done); err == nil && nodeBuilt(pkg) {
		_, fallback, _ = strings.Cut(strings.TrimSpace(string(marker)), "\n")
		fmt.Fprintf(pc.Log, "[node] using the build of %s in %s%s\n", src, pkg, withFallback(fallback))
		now := time.Now()
		_ = os.Chtimes(done, now, now)
		return pkg, fallback, nil
	}
	// Older builds of the same source folder are of content it no longer has.
	if old, _ := filepath.Glob(filepath.Join(builds, prefix+"*")); len(old) > 0 {
		for _, o := range old {
			if o != dir && !strings.HasSuffix(o, ".lock") {
				_ = os.RemoveAll(o)
				_ = os.Remove(o + ".lock")
			}
		}
	}
	if err := os.RemoveAll(dir); err != nil {
		return "", "", err
	}
	ok := false
	defer func() {
		if !ok {
			_ = os.RemoveAll(dir)
		}
	}()
	fmt.Fprintf(pc.Log, "[node] %s has no built dist/: building it in %s\n", src, pkg)
	start := time.Now()
	if err := CopyDir(src, pkg, nodeBuildSkip...); err != nil {
		return "", "", fmt.Errorf("node: copy %s: %w", src, err)
	}
	env := []string{"npm_config_update_notifier=false"}
	// --ignore-scripts as for the driver's own install: no dependency's install script is needed
	// to build (koffi's compiles the in-process transport the driver never uses).
	install := []string{"npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts"}
	var fallbacks []string
	for err := pc.Run(ctx, pkg, env, install...); err != nil; err = pc.Run(ctx, pkg, env, install...) {
		if ctx.Err() != nil {
			return "", "", fmt.Errorf("node: building %s: %s: %w", src, strings.Join(install, " "), ctx.Err())
		}
		_, output, _ := strings.Cut(err.Error(), "\n")
		fb, why := planNodeFallback(pkg, install, output)
		if why == "" && len(fallbacks) >= maxNodeFallbacks {
			why = fmt.Sprintf("%d fallbacks tried", len(fallbacks))
		}
		if why != "" {
			return "", "", nodeBuildError(src, install, err, fallbacks, why)
		}
		if len(fb.drop) > 0 {
			if err := dropDevDependencies(pkg, fb.drop); err != nil {
				return "", "", fmt.Errorf("node: fallback for %s: %w", src, err)
			}
		}
		fmt.Fprintf(pc.Log, "[node] `%s` failed for a reason the SDK's build does not need; fallback: %s\n", strings.Join(install[:2], " "), fb.what)
		install, fallbacks = fb.argv, append(fallbacks, fb.what)
	}
	build := []string{"npm", "run", "build"}
	if err := pc.Run(ctx, pkg, env, build...); err != nil {
		if ctx.Err() != nil {
			return "", "", fmt.Errorf("node: building %s: %s: %w", src, strings.Join(build, " "), ctx.Err())
		}
		return "", "", nodeBuildError(src, build, err, fallbacks, "")
	}
	fallback = strings.Join(fallbacks, "; then ")
	if !nodeBuilt(pkg) {
		return "", "", &Unavailable{Reason: fmt.Sprintf("node: cannot build the SDK from source %s: `npm run build` finished but wrote no dist/index.js%s", src, withFallback(strings.Join(fallbacks, "; then ")))}
	}
	// The marker keeps the fallback, so a reused build still says how it was built.
	if err := os.WriteFile(done, []byte(src+"\n"+fallback+"\n"), 0o644); err != nil {
		return "", "", err
	}
	ok = true
	fmt.Fprintf(pc.Log, "[node] built %s in %s%s\n", src, time.Since(start).Round(time.Second), withFallback(strings.Join(fallbacks, "; then ")))
	return pkg, fallback, nil
}

// withFallback is " (by the fallback: …)" for a build that took one, else "".
func withFallback(fallback string) string {
	if fallback == "" {
		return ""
	}
	return " (by the fallback: " + fallback + ")"
}

// ebadengine reads npm's warning lines about an unmet engine requirement.
var ebadengine = regexp.MustCompile(`^npm warn EBADENGINE\s+(package|required|current):\s*(.*)$`)

// npmAdvice are the lines npm adds after an error that say nothing of this one.
var npmAdvice = regexp.MustCompile(`^(?:404|notarget) (?:Note that you can also install|tarball, folder, http url|In most cases you or one of your dependencies)`)

// nodeBuildTail is how many lines of a failed build step's output its reason quotes.
const nodeBuildTail = 15

// nodeBuildError names the build step of src that failed, its exit status, the npm error lines
// (an unmet engine, a version the registry does not serve) and the tail of its output.
func nodeBuildError(src string, argv []string, err error, fallbacks []string, noFallback string) error {
	step := strings.Join(argv[:min(len(argv), 3)], " ")
	if argv[1] == "ci" || argv[1] == "install" {
		step = "npm " + argv[1]
	}
	status := "failed"
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		status = "failed (" + exit.ProcessState.String() + ")"
	}
	_, output, _ := strings.Cut(err.Error(), "\n")
	var lines, errLines, engines []string
	var pkgName, current string
	for _, l := range strings.Split(output, "\n") {
		if l = strings.TrimRight(l, " \r"); strings.TrimSpace(l) == "" {
			continue
		}
		lines = append(lines, l)
		if strings.HasPrefix(l, "npm error ") && !strings.Contains(l, "complete log of this run") && !strings.HasPrefix(l, "npm error code ") {
			// Not a bare "404", nor npm's advice after it.
			if e := strings.TrimSpace(strings.TrimPrefix(l, "npm error ")); strings.Contains(e, " ") && !npmAdvice.MatchString(e) {
				errLines = append(errLines, e)
			}
		}
		// npm warns of an unmet engine requirement in lines of its own, which may be the cause.
		if m := ebadengine.FindStringSubmatch(l); m != nil {
			switch m[1] {
			case "package":
				pkgName = strings.Trim(m[2], "',")
			case "required":
				if pkgName != "" {
					engines = append(engines, pkgName+" wants "+strings.Trim(m[2], "{}, "))
				}
			case "current":
				current = strings.Trim(m[2], "{}, ")
			}
		}
	}
	if len(engines) > 0 {
		errLines = append(errLines, "unmet engine requirement: "+strings.Join(engines, ", ")+" (here "+current+")")
	}
	what := ""
	if len(errLines) > 0 {
		// The summary quotes the reason up to its first "; ": the error lines come first.
		what = ": " + strings.Join(errLines[:min(len(errLines), 3)], " / ")
	}
	if len(lines) > nodeBuildTail {
		lines = lines[len(lines)-nodeBuildTail:]
	}
	how := "npm ci (its package-lock.json), then npm run build"
	if len(fallbacks) > 0 {
		how += ", by the fallback " + strings.Join(fallbacks, "; then ")
	}
	if noFallback != "" {
		how += "; no fallback applies: " + noFallback
	}
	return &Unavailable{Reason: fmt.Sprintf("node: cannot build the SDK from source %s: `%s` %s%s; the build runs in a copy: %s; the tail of its output:\n%s",
		src, step, status, what, how, strings.Join(lines, "\n"))}
}
