package sdks

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/Masterminds/semver/v3"
)

// Version syntax per SDK, after its registry's rules, so that a malformed --sdk-version
// (`node=1.0.14; touch x`, `python=../../etc`) is rejected before anything runs instead of
// reaching npm, pip or a cache folder name. Only exact versions are accepted: the harness
// installs one version, never a range or a tag.

// pep440 is the version pattern published in PEP 440 (Appendix B), without the local part: PyPI
// refuses uploads with a local version (+label), so none can be installed from it.
var pep440 = regexp.MustCompile(`(?i)^v?(?:(?:[0-9]+)!)?(?:[0-9]+(?:\.[0-9]+)*)` +
	`(?:[-_.]?(?:a|b|c|rc|alpha|beta|pre|preview)[-_.]?(?:[0-9]+)?)?` +
	`(?:(?:-(?:[0-9]+))|(?:[-_.]?(?:post|rev|r)[-_.]?(?:[0-9]+)?))?` +
	`(?:[-_.]?(?:dev)[-_.]?(?:[0-9]+)?)?$`)

// nuget is NuGet's version: one to four numeric parts, then SemVer 2 pre-release and build labels.
var nuget = regexp.MustCompile(`^[0-9]+(?:\.[0-9]+){0,3}(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$`)

// maven is a Maven version string. Maven itself accepts almost any text; this keeps what
// published artifacts use (letters, digits and . - _ +, starting with a digit) since the version
// becomes part of a path in the local repository.
var maven = regexp.MustCompile(`^[0-9][0-9A-Za-z._+-]*$`)

// strictSemver accepts exactly a SemVer 2.0.0 version (no "v", no missing parts, no range).
func strictSemver(v string) error {
	if _, err := semver.StrictNewVersion(v); err != nil {
		return fmt.Errorf("not a semantic version X.Y.Z[-pre][+build]: %w", err)
	}
	return nil
}

// Each recipe's VersionSyntax names its registry and checks a version string against its rules.

// VersionSyntax is a registry's rule for exact version strings.
type VersionSyntax struct {
	Registry string
	Check    func(string) error
}

var (
	npmSyntax    = VersionSyntax{"npm (semver)", strictSemver}
	cratesSyntax = VersionSyntax{"crates.io (semver)", strictSemver}
	goSyntax     = VersionSyntax{"the Go module proxy (vX.Y.Z[-pre])", func(v string) error {
		// The Go driver adds the "v" when it is missing.
		if err := strictSemver(strings.TrimPrefix(v, "v")); err != nil {
			return fmt.Errorf("not a module version vX.Y.Z[-pre][+build]: %w", err)
		}
		return nil
	}}
	pypiSyntax = VersionSyntax{"PyPI (PEP 440)", func(v string) error {
		if !pep440.MatchString(v) {
			return fmt.Errorf("not a PEP 440 version such as 1.0.27, 1.1.0rc1 or 2.0.post1 (local versions +label cannot come from PyPI)")
		}
		return nil
	}}
	mavenSyntax = VersionSyntax{"Maven Central", func(v string) error {
		if !maven.MatchString(v) || strings.Contains(v, "..") || len(v) > 128 {
			return fmt.Errorf("not a Maven version such as 1.0.11 or 0.3.0-java.2 (digits first, then letters, digits and . - _ +)")
		}
		return nil
	}}
	nugetSyntax = VersionSyntax{"NuGet", func(v string) error {
		if !nuget.MatchString(v) {
			return fmt.Errorf("not a NuGet version such as 1.0.11 or 1.0.12-preview.1")
		}
		return nil
	}}
)

// CheckVersion checks version against the syntax of the registry of SDK name.
func CheckVersion(name, version string) error {
	d, ok := Lookup(name)
	if !ok {
		return fmt.Errorf("unknown SDK %q (known: %s)", name, strings.Join(Names(), ", "))
	}
	s := d.Version
	if err := s.Check(version); err != nil {
		return fmt.Errorf("%q is not a version %s serves: %w", version, s.Registry, err)
	}
	return nil
}
