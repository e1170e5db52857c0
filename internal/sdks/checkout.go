package sdks

import (
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
// against the SDK's own release tags (a prefix of the checkout's tags that is the SDK's folder or
// name, as github/copilot-sdk tags go/v1.0.9, java/v1.0.9, rust/v1.0.9: releasePrefixes), else
// the shared v* tags, else the short hash; with "-dirty" when the folder has changes that are
// not committed (its own files only: a change elsewhere in the checkout does not build into this
// SDK). ok is false when dir is not in a git work tree, or git tracks none of its files (a package
// unpacked inside some other repository), or git is not on PATH: such a source keeps its label.
func CheckoutLabel(ctx context.Context, sdk, dir string) (label string, ok bool) {
	git, ok := checkoutGit(ctx, dir)
	if !ok {
		return "", false
	}
	for _, prefix := range releasePrefixes(git, sdk) {
		if d, ok := git("describe", "--tags", "--abbrev=7", "--match", prefix+"v[0-9]*"); ok && d != "" {
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

// checkoutGit is gitIn for a folder git tracks files of: not a package unpacked inside some other
// repository, whose commits and tags are not its own.
func checkoutGit(ctx context.Context, dir string) (func(args ...string) (string, bool), bool) {
	git, ok := gitIn(ctx, dir)
	if !ok {
		return nil, false
	}
	if tracked, ok := git("ls-files", "--", "."); !ok || tracked == "" {
		return nil, false
	}
	return git, true
}

// gitIn runs git in dir (a folder) with the user's settings that would change its answers off; ok
// is false when dir is not a folder.
func gitIn(ctx context.Context, dir string) (git func(args ...string) (string, bool), ok bool) {
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return nil, false
	}
	return func(args ...string) (string, bool) {
		ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		out, ok := runGit(ctx, dir, args...)
		return strings.TrimSpace(string(out)), ok
	}, true
}

// runGit runs git in dir in a process group of its own (procgroup) and returns its standard
// output; ok is false when it fails or git is missing. The user's own git settings must not
// change the bytes (a pager, colour, a locale, an external diff tool).
func runGit(ctx context.Context, dir string, args ...string) (out []byte, ok bool) {
	cmd := procgroup.Command(ctx, "git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_PAGER=cat", "LC_ALL=C", "GIT_OPTIONAL_LOCKS=0", "GIT_EXTERNAL_DIFF=")
	out, err := procgroup.Output(cmd)
	return out, err == nil
}

// gitMark starts the part of a version that names the checkout's commit; matchedMark the version
// a source build is matched as against the manifest's ranges (MatchVersion); unmatched says it has
// none, so only entries without versions apply to it.
const (
	gitMark     = "git "
	matchedMark = "matched as "
	unmatched   = "no release version"
)

// SourceVersion is the version a report shows for an SDK built from a local source: the version
// the SDK reported, then the checkout's commit (label, "" outside git) and the version it is
// matched as ("0.0.0.dev0 (git v1.0.9-6-g4e95dee; matched as 1.0.10-0.6)"); just the commit and
// the match when the SDK reported none or Go's "(devel)", which says only that ("git
// go/v1.0.9-6-g4e95dee; matched as 1.0.10-0.6"). matched is "" when none was derived: a real
// reported version is then what is matched (an unpacked package), else "no release version".
// A version that names the commit or the match already is kept (a replay of a labelled run).
func SourceVersion(reported, label, matched string) string {
	if strings.Contains(reported, "("+gitMark) || strings.HasPrefix(reported, gitMark) ||
		strings.Contains(reported, "("+matchedMark) || strings.Contains(reported, "("+unmatched) {
		return reported
	}
	if reported == "(devel)" && label != "" { // the commit says more than "(devel)"
		reported = ""
	}
	var parts []string
	if label != "" {
		parts = append(parts, gitMark+label)
	}
	switch {
	case matched != "" && matched != reported:
		parts = append(parts, matchedMark+matched)
	case matched == "" && !RealVersion(reported):
		parts = append(parts, unmatched)
	}
	switch {
	case len(parts) == 0:
		return reported
	case reported == "" && label != "":
		return strings.Join(parts, "; ")
	case reported == "":
		return "(" + strings.Join(parts, "; ") + ")"
	}
	return reported + " (" + strings.Join(parts, "; ") + ")"
}

// MatchingVersion is the version a manifest range is checked against for a version SourceVersion
// labelled: the version it is matched as, "" when it has none (only entries without versions
// apply), else the version the SDK reported ("(devel)" for a bare commit of a run labelled
// before versions were matched).
func MatchingVersion(version string) string {
	if _, rest, ok := strings.Cut(version, matchedMark); ok {
		m, _, _ := strings.Cut(rest, ")")
		return strings.TrimSpace(m)
	}
	if strings.Contains(version, unmatched) {
		return ""
	}
	if strings.HasPrefix(version, gitMark) {
		return "(devel)"
	}
	if i := strings.Index(version, " ("+gitMark); i >= 0 && strings.HasSuffix(version, ")") {
		return version[:i]
	}
	return version
}
