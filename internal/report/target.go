package report

import (
	"sort"

	"github.com/Masterminds/semver/v3"
)

// A run may hold several versions of one SDK (--sdk-version node=1.0.8,1.0.14): each
// SDK@version is a target of its own. Reports name a target by its SDK alone when the run has
// one version of that SDK (so single-version reports, and diffs of one version against the
// next, keep their names) and as SDK@version when it has several.

// Target is an SDK name with a version.
func Target(sdk, version string) string {
	if version == "" {
		return sdk
	}
	return sdk + "@" + version
}

// TargetKey names one target as reports key it: the SDK, and the version when the run holds
// several versions of that SDK ("" otherwise). Code keeps the two apart; String joins them.
type TargetKey struct{ SDK, Version string }

// String is the target's label: SDK, or SDK@version.
func (k TargetKey) String() string { return Target(k.SDK, k.Version) }

// Keys returns the key of each SDK@version of res (see Labels).
func Keys(res *Results) func(sdk, version string) TargetKey {
	label := Labels(res)
	return func(sdk, version string) TargetKey {
		if label(sdk, version) == sdk {
			return TargetKey{SDK: sdk}
		}
		return TargetKey{SDK: sdk, Version: version}
	}
}

// Labels returns the column name of each SDK@version of res: the SDK's name, or SDK@version for
// an SDK that ran in several versions.
func Labels(res *Results) func(sdk, version string) string {
	versions := map[string]map[string]bool{}
	add := func(sdk, v string) {
		if v == "" {
			return // a record without a version (an older results.json) names the SDK alone
		}
		if versions[sdk] == nil {
			versions[sdk] = map[string]bool{}
		}
		versions[sdk][v] = true
	}
	for _, s := range res.SDKs {
		add(s.Name, s.Version)
	}
	for _, r := range res.Results {
		add(r.SDK, r.Version)
	}
	return func(sdk, version string) string {
		if len(versions[sdk]) > 1 && version != "" {
			return Target(sdk, version)
		}
		return sdk
	}
}

// MultiVersion reports whether res holds several versions of some SDK.
func MultiVersion(res *Results) bool {
	label := Labels(res)
	for _, r := range res.Results {
		if label(r.SDK, r.Version) != r.SDK {
			return true
		}
	}
	for _, s := range res.SDKs {
		if label(s.Name, s.Version) != s.Name {
			return true
		}
	}
	return false
}

// ByTarget returns a copy of res in which every SDK name is its label (Labels): the renderers
// and the cross-SDK comparison then treat each SDK@version as an SDK of its own. The copy
// shares nothing mutable with res that the renderers change.
func ByTarget(res *Results) *Results {
	if !MultiVersion(res) {
		return res
	}
	label := Labels(res)
	out := *res
	out.SDKs = make([]SDK, len(res.SDKs))
	for i, s := range res.SDKs {
		s.Name = label(s.Name, s.Version)
		out.SDKs[i] = s
	}
	out.Results = make([]Result, len(res.Results))
	for i, r := range res.Results {
		r.SDK = label(r.SDK, r.Version)
		out.Results[i] = r
	}
	return &out
}

// SortVersions orders versions oldest first where both parse as dotted numbers (a leading v is
// ignored), else as strings.
func SortVersions(vs []string) {
	sort.SliceStable(vs, func(i, j int) bool { return VersionLess(vs[i], vs[j]) })
}

// VersionLess compares two versions by semver (Masterminds/semver accepts a leading v and
// Maven's and PyPI's plain x.y.z), falling back to string order for anything else.
func VersionLess(a, b string) bool {
	va, errA := semver.NewVersion(a)
	vb, errB := semver.NewVersion(b)
	if errA == nil && errB == nil {
		return va.LessThan(vb)
	}
	return a < b
}
