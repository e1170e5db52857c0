package sdks

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// A checkout's own install step (`npm ci` by its lockfile) can fail here for a reason that does
// not touch the SDK's build: a dev dependency the registry does not serve (anymore, or for this
// Node: @platformatic/vfs@0.3.0, which upstream's tests use, is a 404 for Node 20 users), or an
// engine range the toolchain at hand does not meet under engine-strict. The build then falls back,
// and says so in the run's output and the SDK's source in every report:
//
//   - an unserved package (npm error E404 or ETARGET) that the lockfile marks dev-only: the
//     direct dev dependencies that need it are left out of the copy's package.json and the tree is
//     installed with `npm install` (every other package at its locked version), then built;
//   - an unmet engine range (npm error EBADENGINE): the same step again with --engine-strict=false.
//
// Anything else (a runtime dependency not served, a network error, a build script that fails) is
// not a fallback's to hide: the SDK is unavailable, with the step's error. A fallback whose build
// then fails is named in that error too.

// nodeFallback is one way around a failed install step.
type nodeFallback struct {
	argv []string // the install step to run instead
	drop []string // direct dev dependencies to leave out of package.json first
	what string   // for the log and the reports
}

// maxNodeFallbacks bounds the fallbacks tried for one build (each may reveal the next unserved
// package).
const maxNodeFallbacks = 5

// npm's output names an unserved package in these lines: a tarball or a packument that is a 404,
// or no version in the range asked for.
var (
	npmErrorCode = regexp.MustCompile(`(?m)^npm (?:error|ERR!) code (\S+)`)
	npm404       = regexp.MustCompile(`(?m)404 Not Found - GET (\S+)`)
	npmNoTarget  = regexp.MustCompile(`(?m)No matching version found for (\S+?)@(\S+?)\.?\s*$`)
)

// planNodeFallback reads why the install step argv failed in the package folder dir (output is its
// output) and returns the fallback that applies, or why none does.
func planNodeFallback(dir string, argv []string, output string) (nodeFallback, string) {
	m := npmErrorCode.FindStringSubmatch(output)
	if m == nil {
		return nodeFallback{}, "npm named no error code"
	}
	switch code := m[1]; code {
	case "EBADENGINE":
		if slices.Contains(argv, "--engine-strict=false") {
			return nodeFallback{}, "the engine check failed with --engine-strict=false"
		}
		return nodeFallback{argv: append(slices.Clone(argv), "--engine-strict=false"),
			what: "`" + strings.Join(argv[:2], " ") + " --engine-strict=false` (an engine range the Node here does not meet)"}, ""
	case "E404", "ETARGET":
		unserved := unservedPackages(output)
		if len(unserved) == 0 {
			return nodeFallback{}, "npm's " + code + " names no package"
		}
		lock, err := readNodeLock(dir)
		if err != nil {
			return nodeFallback{}, err.Error()
		}
		var drop, names []string
		for _, p := range unserved {
			if !lock.devOnly(p.name) {
				return nodeFallback{}, p.name + " is not a dev-only package of the lockfile: the SDK may need it"
			}
			direct := lock.devDependentsOf(p.name)
			if len(direct) == 0 {
				return nodeFallback{}, "no dev dependency of package.json leads to " + p.name
			}
			for _, d := range direct {
				if !slices.Contains(drop, d) {
					drop = append(drop, d)
				}
			}
			names = append(names, p.String())
		}
		deps := "dependency"
		if len(drop) > 1 {
			deps = "dependencies"
		}
		return nodeFallback{argv: []string{"npm", "install", "--no-audit", "--no-fund", "--ignore-scripts"}, drop: drop,
			what: fmt.Sprintf("`npm install` without the dev %s %s (the registry does not serve %s: %s)",
				deps, strings.Join(drop, ", "), strings.Join(names, ", "), code)}, ""
	default:
		return nodeFallback{}, "npm error " + code + " is not one a fallback is for (an unserved dev-only package, an engine range)"
	}
}

// unserved is a package (and version, when npm names it) the registry does not serve.
type unserved struct{ name, version string }

func (u unserved) String() string {
	if u.version == "" {
		return u.name
	}
	return u.name + "@" + u.version
}

// unservedPackages reads the packages npm could not get: a 404 tarball URL
// (REGISTRY/@scope/name/-/name-1.0.0.tgz), a 404 packument (REGISTRY/@scope%2fname) or no
// matching version.
func unservedPackages(output string) []unserved {
	var out []unserved
	add := func(u unserved) {
		if u.name != "" && !slices.Contains(out, u) {
			out = append(out, u)
		}
	}
	for _, m := range npm404.FindAllStringSubmatch(output, -1) {
		u, err := url.Parse(m[1])
		if err != nil {
			continue
		}
		path, _ := url.PathUnescape(strings.TrimPrefix(u.EscapedPath(), "/"))
		name, file, tarball := strings.Cut(path, "/-/")
		version := ""
		if tarball {
			base := name[strings.LastIndex(name, "/")+1:]
			version = strings.TrimSuffix(strings.TrimPrefix(file, base+"-"), ".tgz")
		}
		add(unserved{name: name, version: version})
	}
	for _, m := range npmNoTarget.FindAllStringSubmatch(output, -1) {
		add(unserved{name: m[1], version: m[2]})
	}
	return out
}

// nodeLock is what a fallback reads of a source's package.json and package-lock.json (v2 or v3:
// the "packages" map, which npm 7 and later write).
type nodeLock struct {
	devDeps  map[string]string // package.json devDependencies
	packages map[string]struct {
		Dev                  bool              `json:"dev"`
		DevOptional          bool              `json:"devOptional"`
		Dependencies         map[string]string `json:"dependencies"`
		OptionalDependencies map[string]string `json:"optionalDependencies"`
		PeerDependencies     map[string]string `json:"peerDependencies"`
	}
}

func readNodeLock(dir string) (*nodeLock, error) {
	var pkg struct {
		DevDependencies map[string]string `json:"devDependencies"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err == nil {
		err = json.Unmarshal(b, &pkg)
	}
	if err != nil {
		return nil, fmt.Errorf("read package.json: %v", err)
	}
	l := &nodeLock{devDeps: pkg.DevDependencies}
	var lock struct {
		Packages json.RawMessage `json:"packages"`
	}
	b, err = os.ReadFile(filepath.Join(dir, "package-lock.json"))
	if err == nil {
		err = json.Unmarshal(b, &lock)
	}
	if err == nil && len(lock.Packages) == 0 {
		err = fmt.Errorf("no \"packages\" (a lockfile older than version 2)")
	}
	if err == nil {
		err = json.Unmarshal(lock.Packages, &l.packages)
	}
	if err != nil {
		return nil, fmt.Errorf("read package-lock.json: %v", err)
	}
	return l, nil
}

// lockName is the package name of a lockfile path ("node_modules/a/node_modules/@s/b" is "@s/b").
func lockName(path string) string {
	i := strings.LastIndex(path, "node_modules/")
	if i < 0 {
		return ""
	}
	return path[i+len("node_modules/"):]
}

// devOnly says whether the lockfile has name and only as a dev (or dev-optional) package.
func (l *nodeLock) devOnly(name string) bool {
	seen := false
	for path, p := range l.packages {
		if lockName(path) == name {
			if !p.Dev && !p.DevOptional {
				return false
			}
			seen = true
		}
	}
	return seen
}

// devDependentsOf are the direct dev dependencies of package.json whose tree holds name: name
// itself when it is one, else those that reach it through the lockfile's dependencies.
func (l *nodeLock) devDependentsOf(name string) []string {
	dependents := map[string][]string{} // package name -> names of the packages that depend on it
	for path, p := range l.packages {
		from := lockName(path)
		for _, deps := range []map[string]string{p.Dependencies, p.OptionalDependencies, p.PeerDependencies} {
			for d := range deps {
				dependents[d] = append(dependents[d], from)
			}
		}
	}
	var out []string
	seen := map[string]bool{name: true}
	queue := []string{name}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		if _, ok := l.devDeps[n]; ok {
			out = append(out, n)
			continue
		}
		for _, d := range dependents[n] {
			if d != "" && !seen[d] {
				seen[d] = true
				queue = append(queue, d)
			}
		}
	}
	slices.Sort(out)
	return out
}

// dropDevDependencies removes names from the devDependencies of dir/package.json (a build copy).
func dropDevDependencies(dir string, names []string) error {
	file := filepath.Join(dir, "package.json")
	b, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	var pkg map[string]json.RawMessage
	if err := json.Unmarshal(b, &pkg); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	var dev map[string]json.RawMessage
	if err := json.Unmarshal(pkg["devDependencies"], &dev); err != nil {
		return fmt.Errorf("%s devDependencies: %w", file, err)
	}
	for _, n := range names {
		delete(dev, n)
	}
	if pkg["devDependencies"], err = json.Marshal(dev); err != nil {
		return err
	}
	out, err := json.MarshalIndent(pkg, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(file, append(out, '\n'), 0o644)
}
