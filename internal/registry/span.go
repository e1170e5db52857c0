package registry

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/Masterminds/semver/v3"
)

// Bisection lists the published versions from good to bad, in that order (bad may be the older
// one: a fix is bisected as a change too), pre-releases only as a bound. Both bounds must be
// published: a bisection that starts from a version the registry does not serve finds nothing.
func Bisection(ctx context.Context, list Lister, good, bad string) ([]string, error) {
	versions, err := list(ctx, Range{Lo: good, Hi: bad})
	if err != nil {
		return nil, fmt.Errorf("listing published versions: %w", err)
	}
	if a, errA := OrderKey(good); errA == nil {
		if b, errB := OrderKey(bad); errB == nil && b.LessThan(a) {
			slices.Reverse(versions)
		}
	}
	for _, v := range []string{good, bad} {
		if !slices.Contains(versions, v) {
			return nil, fmt.Errorf("%s is not among the versions the registry publishes from %s to %s: %v", v, good, bad, versions)
		}
	}
	return versions, nil
}

// Span lists the published versions of r for a history, oldest first: at least two, or a history
// has nothing to compare.
func Span(ctx context.Context, list Lister, r Range) ([]string, error) {
	versions, err := list(ctx, r)
	if err != nil {
		return nil, fmt.Errorf("listing published versions: %w", err)
	}
	if len(versions) < 2 {
		return nil, fmt.Errorf("%d version(s) published from %s to %s (%v): a history needs two", len(versions), r.Lo, OrNewest(r.Hi), versions)
	}
	return versions, nil
}

// MajorStart is the first release of version's major: 1.0.14 → 1.0.0, v1.0.14 → v1.0.0.
func MajorStart(version string) (string, error) {
	v, err := semver.NewVersion(version)
	if err != nil {
		return "", fmt.Errorf("%q is not a semantic version: %w", version, err)
	}
	prefix := version[:len(version)-len(strings.TrimPrefix(version, "v"))]
	return fmt.Sprintf("%s%d.0.0", prefix, v.Major()), nil
}

// OrNewest names a range's upper bound: hi, or "the newest" when the range has none.
func OrNewest(hi string) string {
	if hi == "" {
		return "the newest"
	}
	return hi
}
