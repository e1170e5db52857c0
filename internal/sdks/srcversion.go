package sdks

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/Masterminds/semver/v3"
	"github.com/copilot-sdk-conformance/conformance/internal/registry"
)

// A source build is matched against the expected-failure manifest's version ranges as the
// version it would be released as (MatchVersion), not as the placeholder its package metadata
// holds between releases (0.0.0-dev, 0.0.0.dev0, a Maven -SNAPSHOT) nor as its commit label:
//
//  1. the version the SDK's manifest declares (package.json, pyproject.toml or PKG-INFO,
//     Cargo.toml, pom.xml), when it is a real one: not a 0.0.0 placeholder, not a -SNAPSHOT;
//  2. else, in a git checkout, its nearest release tag for that SDK plus the commits since, read
//     as a pre-release of the next version, the way Go builds a pseudo-version
//     (go.dev/ref/mod#pseudo-versions) with the count of commits in place of the timestamp:
//     6 commits after v1.0.9 is 1.0.10-0.6 (after every 1.0.9, before 1.0.10 and before any
//     named pre-release of it such as 1.0.10-preview.0); 5 commits after v1.0.12-preview.0 is
//     1.0.12-preview.0.0.5 (before 1.0.12-preview.1);
//  3. else a -SNAPSHOT's version read as the build before that release: 1.0.10-SNAPSHOT is
//     1.0.10-0; a SNAPSHOT of a pre-release (1.0.13-preview.0-SNAPSHOT) is matched as that
//     pre-release, as semver has no version just before one. In a checkout the tag (2.) says
//     more precisely where a SNAPSHOT build stands, and wins.
//
// Which tags are an SDK's is read from the tags that exist: a tag is <prefix>v<semver>; the
// prefixes that name this SDK are its folder in the checkout (go/ for go/v1.0.9, as Go module
// tags must be) or its name, else the shared prefix-less v tags.

// Matched is the version a source build is matched as, and what it was read from.
type Matched struct {
	Version string // "1.0.10-0.6"; "" when none could be derived
	From    string // "python/pyproject.toml", "go/v1.0.9 + 6 commits"
}

// MatchVersion derives the version the SDK source folder dir is matched as (see above). ok is
// false when neither its manifest nor its checkout's tags give one.
func MatchVersion(ctx context.Context, sdk, dir string) (m Matched, ok bool) {
	declared, file := DeclaredVersion(sdk, dir)
	if RealVersion(declared) {
		return Matched{Version: declared, From: file}, true
	}
	if tag, n, ok := nearestReleaseTag(ctx, sdk, dir); ok {
		v, err := pseudoVersion(tag, n)
		if err == nil {
			from := tag
			if n > 0 {
				from = fmt.Sprintf("%s + %d commit%s", tag, n, plural(n))
			}
			return Matched{Version: v, From: from}, true
		}
	}
	if v, ok := snapshotVersion(declared); ok {
		return Matched{Version: v, From: file + " (a SNAPSHOT: the build before that release)"}, true
	}
	return Matched{}, false
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// RealVersion says whether v is a version an SDK is released as: one the manifest's ranges can
// order (SemVer or PEP 440), not a 0.0.0 placeholder (no SDK is released as 0.0.0) and not a
// Maven -SNAPSHOT (a build on the way to that version).
func RealVersion(v string) bool {
	if v == "" || strings.HasSuffix(strings.ToUpper(v), "-SNAPSHOT") {
		return false
	}
	sv, err := registry.OrderKey(strings.TrimPrefix(v, "v"))
	return err == nil && (sv.Major() != 0 || sv.Minor() != 0 || sv.Patch() != 0)
}

// snapshotVersion reads a Maven "V-SNAPSHOT" as the build before V (see above).
func snapshotVersion(v string) (string, bool) {
	base, ok := strings.CutSuffix(v, "-SNAPSHOT")
	if !ok || !RealVersion(base) {
		return "", false
	}
	sv, err := semver.NewVersion(base)
	if err != nil {
		return "", false
	}
	if sv.Prerelease() != "" {
		return base, true
	}
	return fmt.Sprintf("%d.%d.%d-0", sv.Major(), sv.Minor(), sv.Patch()), true
}

// pseudoVersion is the version n commits after the release tag tag (<prefix>vX.Y.Z[-pre]).
func pseudoVersion(tag string, n int) (string, error) {
	sv, err := semver.NewVersion(tagVersion(tag))
	if err != nil {
		return "", err
	}
	switch {
	case n == 0:
		return strings.TrimPrefix(sv.Original(), "v"), nil
	case sv.Prerelease() == "":
		return fmt.Sprintf("%d.%d.%d-0.%d", sv.Major(), sv.Minor(), sv.Patch()+1, n), nil
	default:
		return fmt.Sprintf("%d.%d.%d-%s.0.%d", sv.Major(), sv.Minor(), sv.Patch(), sv.Prerelease(), n), nil
	}
}

// releaseTag splits a tag into its prefix and version: "go/v1.0.9" is "go/" and "1.0.9".
var releaseTag = regexp.MustCompile(`^(.*?)v([0-9]+\.[0-9]+\.[0-9]+(?:-[0-9A-Za-z.-]+)?)$`)

func tagVersion(tag string) string {
	if m := releaseTag.FindStringSubmatch(tag); m != nil {
		return m[2]
	}
	return tag
}

// tagPrefixes are the tag prefixes that name the SDK sdk whose folder in the checkout is rel
// ("go/", or "" at its root), among the prefixes the checkout's tags have, most specific first;
// the shared prefix-less tags last. A prefix of another SDK is never this one's.
func tagPrefixes(sdk, rel string, existing map[string]bool) []string {
	var out []string
	add := func(p string) {
		if existing[p] && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	if rel = strings.Trim(rel, "/"); rel != "" && rel != "." {
		add(rel + "/")
	}
	add(sdk + "/")
	add("")
	return out
}

// describeOut reads `git describe --long`: TAG-N-gHASH.
var describeOut = regexp.MustCompile(`^(.+)-([0-9]+)-g[0-9a-f]+$`)

// nearestReleaseTag is the SDK's release tag nearest before the commit of the checkout holding
// dir, and how many commits the commit is after it.
func nearestReleaseTag(ctx context.Context, sdk, dir string) (tag string, commits int, ok bool) {
	git, ok := checkoutGit(ctx, dir)
	if !ok {
		return "", 0, false
	}
	for _, prefix := range releasePrefixes(git, sdk) {
		d, ok := git("describe", "--tags", "--long", "--abbrev=7", "--match", prefix+"v[0-9]*")
		if !ok {
			continue
		}
		m := describeOut.FindStringSubmatch(d)
		if m == nil || !releaseTag.MatchString(m[1]) {
			continue
		}
		n, err := strconv.Atoi(m[2])
		if err != nil {
			continue
		}
		return m[1], n, true
	}
	return "", 0, false
}

// releasePrefixes are the tag prefixes of the checkout's release tags that name sdk (tagPrefixes).
func releasePrefixes(git func(...string) (string, bool), sdk string) []string {
	tags, _ := git("tag", "--list", "*v[0-9]*")
	existing := map[string]bool{}
	for _, t := range strings.Split(tags, "\n") {
		if m := releaseTag.FindStringSubmatch(strings.TrimSpace(t)); m != nil {
			existing[m[1]] = true
		}
	}
	rel, _ := git("rev-parse", "--show-prefix")
	return tagPrefixes(sdk, rel, existing)
}

// DeclaredVersion is the version the SDK's own manifest in dir declares, and the file's name
// ("" when it has none: Go modules declare no version, a package file is not read).
func DeclaredVersion(sdk, dir string) (version, file string) {
	read, ok := declaredVersion[sdk]
	if !ok {
		return "", ""
	}
	for _, name := range read.files {
		body, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		if v := read.parse(name, body); v != "" {
			return v, filepath.ToSlash(filepath.Join(filepath.Base(dir), name))
		}
	}
	return "", ""
}

// manifestReader reads an SDK's declared version from the first of its files that has one.
type manifestReader struct {
	files []string
	parse func(name string, body []byte) string
}

// declaredVersion: each SDK's package manifest, read with a parser of its format. Go declares no
// version in go.mod (its tags are the versions); .NET is not built here.
var declaredVersion = map[string]manifestReader{
	"node": {[]string{"package.json"}, func(_ string, b []byte) string {
		var p struct {
			Version string `json:"version"`
		}
		_ = json.Unmarshal(b, &p)
		return p.Version
	}},
	// A checkout and an sdist have pyproject.toml; an sdist's PKG-INFO holds the version even
	// when pyproject declares it dynamic.
	"python": {[]string{"pyproject.toml", "PKG-INFO"}, func(name string, b []byte) string {
		if name == "PKG-INFO" {
			return headerField(b, "Version")
		}
		var p struct {
			Project struct {
				Version string `toml:"version"`
			} `toml:"project"`
			Tool struct {
				Poetry struct {
					Version string `toml:"version"`
				} `toml:"poetry"`
			} `toml:"tool"`
		}
		if _, err := toml.Decode(string(b), &p); err != nil {
			return ""
		}
		if p.Project.Version != "" {
			return p.Project.Version
		}
		return p.Tool.Poetry.Version
	}},
	"rust": {[]string{"Cargo.toml"}, func(_ string, b []byte) string {
		var c struct {
			Package struct {
				Version any `toml:"version"` // a table ({workspace = true}) names no version here
			} `toml:"package"`
		}
		if _, err := toml.Decode(string(b), &c); err != nil {
			return ""
		}
		v, _ := c.Package.Version.(string)
		return v
	}},
	"java": {[]string{"pom.xml"}, func(_ string, b []byte) string {
		var p struct {
			Version string `xml:"version"`
			Parent  struct {
				Version string `xml:"version"`
			} `xml:"parent"`
		}
		if xml.Unmarshal(b, &p) != nil {
			return ""
		}
		if p.Version != "" {
			return strings.TrimSpace(p.Version)
		}
		return strings.TrimSpace(p.Parent.Version) // a module inherits its parent's version
	}},
}

// headerField reads "Name: value" from an RFC 822 style metadata file (PKG-INFO).
func headerField(b []byte, name string) string {
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimRight(l, "\r"); l == "" {
			break // the headers end at the first empty line
		}
		if k, v, ok := strings.Cut(l, ":"); ok && strings.EqualFold(k, name) {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
