package sdks

import (
	"bytes"
	"context"
	"os"
	"strings"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/procgroup"
)

// An SDK built from a git checkout reports a placeholder version ("(devel)" for a replaced Go
// module, "0.0.0.dev0" or "0.0.0-dev" from a checkout's package metadata, a Maven -SNAPSHOT), so
// the harness labels it with the checkout's commit itself, for every SDK alike: no driver has to.

// CheckoutLabel names the commit of the git checkout that holds the SDK folder dir: `git describe`
// against the SDK's own release tags (<sdk>/v*, as github/copilot-sdk tags Go, Java and Rust),
// else the shared v* tags, else the short hash; with "-dirty" when the folder has changes that are
// not committed (its own files only: a change elsewhere in the checkout does not build into this
// SDK). ok is false when dir is not in a git work tree, or git tracks none of its files (a package
// unpacked inside some other repository), or git is not on PATH: such a source keeps its label.
func CheckoutLabel(ctx context.Context, sdk, dir string) (label string, ok bool) {
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return "", false
	}
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	git := func(args ...string) (string, bool) {
		cmd := procgroup.Command(ctx, "git", append([]string{"-C", dir}, args...)...)
		// The user's own git settings must not change the answer (a pager, colour, a locale).
		cmd.Env = append(os.Environ(), "GIT_PAGER=cat", "LC_ALL=C", "GIT_OPTIONAL_LOCKS=0")
		var out bytes.Buffer
		cmd.Stdout = &out
		if procgroup.Run(cmd) != nil {
			return "", false
		}
		return strings.TrimSpace(out.String()), true
	}
	if tracked, ok := git("ls-files", "--", "."); !ok || tracked == "" {
		return "", false
	}
	for _, match := range []string{sdk + "/v*", "v[0-9]*"} {
		if d, ok := git("describe", "--tags", "--abbrev=7", "--match", match); ok && d != "" {
			label = d
			break
		}
	}
	if label == "" {
		h, ok := git("rev-parse", "--short=7", "HEAD")
		if !ok || h == "" {
			return "", false // a repository without a commit yet
		}
		label = h
	}
	if status, ok := git("status", "--porcelain", "--", "."); ok && status != "" {
		label += "-dirty"
	}
	return label, true
}

// gitMark starts the part of a version that names the checkout's commit.
const gitMark = "git "

// SourceVersion is the version a report shows for an SDK built from the checkout at label: the
// version the SDK reported, then the commit ("0.0.0.dev0 (git v1.0.12-3-gabc1234-dirty)"); just
// the commit ("git abc1234") when the SDK reported none or Go's "(devel)", which says only that.
// A version that names the commit already is kept.
func SourceVersion(reported, label string) string {
	if label == "" || strings.Contains(reported, "("+gitMark) || strings.HasPrefix(reported, gitMark) {
		return reported
	}
	if reported == "" || reported == "(devel)" {
		return gitMark + label
	}
	return reported + " (" + gitMark + label + ")"
}

// ReportedVersion is the version the SDK itself reported in a version SourceVersion labelled
// ("(devel)" for a bare commit): what a semver range is checked against.
func ReportedVersion(version string) string {
	if strings.HasPrefix(version, gitMark) {
		return "(devel)"
	}
	if i := strings.Index(version, " ("+gitMark); i >= 0 && strings.HasSuffix(version, ")") {
		return version[:i]
	}
	return version
}
