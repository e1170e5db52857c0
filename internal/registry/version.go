package registry

import (
	"fmt"
	"regexp"

	"github.com/Masterminds/semver/v3"
)

func dedupe(vs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, v := range vs {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// pep440Order splits a PEP 440 version into its release and its pre/dev label (1.0.0b4, 1.0.27rc1,
// 1.0.27.dev40031404408).
var pep440Order = regexp.MustCompile(`^v?([0-9]+(?:\.[0-9]+)*?)(?:[-_.]?(a|b|rc|dev)[-_.]?([0-9]+))?$`)

// OrderKey is a version as semver, for ordering the versions of any registry: SemVer as is, a
// PEP 440 pre-release mapped so that dev < a < b < rc < the release (as PEP 440 orders them).
func OrderKey(v string) (*semver.Version, error) {
	if sv, err := semver.NewVersion(v); err == nil {
		return sv, nil
	}
	m := pep440Order.FindStringSubmatch(v)
	if m == nil {
		return nil, fmt.Errorf("version %q is neither SemVer nor a PEP 440 release or pre-release", v)
	}
	label := map[string]string{"dev": "0dev", "a": "a", "b": "b", "rc": "rc"}[m[2]]
	s := m[1]
	if label != "" {
		s += "-" + label + "." + m[3]
	}
	return semver.NewVersion(s)
}

// Sample is the published 1.x versions of an SDK and the few the published-versions test prepares.
type Sample struct {
	All     []string // every 1.x version the registry serves, oldest first
	Oldest  string   // the oldest 1.x version (often a pre-release)
	Newest  string   // the newest 1.x release
	Preview string   // the newest pre-release (a preview newer than Newest is what users try next)
}

// Versions lists the sample's distinct versions (Oldest, Preview, Newest).
func (s Sample) Versions() []string {
	return dedupe(slicesNonEmpty(s.Oldest, s.Preview, s.Newest))
}

func slicesNonEmpty(vs ...string) []string {
	var out []string
	for _, v := range vs {
		if v != "" {
			out = append(out, v)
		}
	}
	return out
}

// Sample1x picks the 1.x versions out of a registry's list. Unparseable entries are an error:
// a registry answer this code does not understand must not shrink the sample silently.
func Sample1x(published []string) (Sample, error) {
	keep, err := ordered(published, true, func(sv *semver.Version) bool { return sv.Major() == 1 })
	if err != nil {
		return Sample{}, err
	}
	var s Sample
	for _, k := range keep {
		s.All = append(s.All, k.raw)
		if k.sv.Prerelease() == "" {
			s.Newest = k.raw
		} else {
			s.Preview = k.raw
		}
	}
	if len(keep) > 0 {
		s.Oldest = keep[0].raw
	}
	return s, nil
}
