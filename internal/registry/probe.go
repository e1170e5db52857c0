package registry

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/Masterminds/semver/v3"
)

// GoMaxBeta bounds the pre-release tags probed for the Go SDK's first major release: the Go
// proxy here refuses version lists, and the SDK's Go module published its previews as
// v1.0.0-beta.N (the other registries list theirs).
const GoMaxBeta = 15

// listOrProbe is GoModule with the go command abstracted: the list when it is served and
// not empty, else the probed tags.
func listOrProbe(r Range, list func() ([]string, error), exists func(string) bool) ([]string, error) {
	if listed, err := list(); err == nil && len(listed) > 0 {
		return InRange(listed, r)
	}
	releases, err := probeVersions(r.Lo, r.Hi, exists)
	if err != nil {
		return nil, err
	}
	var pre []string
	if r.Previews {
		if pre, err = probePreReleases(r.Lo, r.Hi, releases, exists); err != nil {
			return nil, err
		}
	} else { // a bound that is a pre-release was asked for
		for _, bound := range []string{r.Lo, r.Hi} {
			if v, err := semver.NewVersion(bound); err == nil && v.Prerelease() != "" && exists("v"+v.String()) {
				pre = append(pre, "v"+v.String())
			}
		}
	}
	return InRange(append(releases, pre...), r)
}

// probePreReleases probes the pre-release tags of a range, given the releases found in it:
// vX.Y.Z-preview.N for every patch up to one past the newest release of each minor (a version's
// previews come before it, and a patch may be published only as previews: v1.0.10-preview.0),
// and vX.0.0-beta.N (the SDKs' previews before their first major release were betas). Tags skip
// numbers (the Go SDK has v1.0.11-preview.2 and no .0 or .1; a proxy may serve only some of a
// series: the one here serves v1.0.0-beta.8 alone), so in each series the first numbers are all
// probed (previews 0-4, betas 0-GoMaxBeta) and then upward until three in a row are missing;
// four series at a time (each probe is a round trip to the proxy). Builds named after a CI run
// (1.0.15-unstable.RUN.gSHA) cannot be guessed and are not found.
func probePreReleases(lo, hi string, releases []string, exists func(string) bool) ([]string, error) {
	a, b, err := bounds(lo, hi)
	if err != nil {
		return nil, err
	}
	type series struct {
		minor, patch uint64
		label        string
		floor        int // numbers below it are all probed
	}
	newest := map[uint64]uint64{a.Minor(): a.Patch()} // minor → newest release patch found
	for _, r := range releases {
		if v, err := semver.NewVersion(r); err == nil && v.Major() == a.Major() && v.Patch() >= newest[v.Minor()] {
			newest[v.Minor()] = v.Patch()
		}
	}
	var all []series
	for _, minor := range slices.Sorted(maps.Keys(newest)) {
		first := uint64(0)
		if minor == a.Minor() {
			first = a.Patch()
		}
		for patch := first; patch <= newest[minor]+1; patch++ {
			if b != nil && (minor > b.Minor() || minor == b.Minor() && patch > b.Patch()) {
				break
			}
			all = append(all, series{minor, patch, "preview", 5})
			if minor == 0 && patch == 0 {
				all = append(all, series{minor, patch, "beta", GoMaxBeta + 1})
			}
		}
	}
	const maxProbes, maxN, missesToStop = 300, 50, 3
	var (
		mu     sync.Mutex
		out    []string
		probes int
		wg     sync.WaitGroup
		slots  = make(chan struct{}, 4)
	)
	for _, s := range all {
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			for n, misses := 0, 0; n < maxN && (n < s.floor || misses < missesToStop); n++ {
				v := semver.New(a.Major(), s.minor, s.patch, fmt.Sprintf("%s.%d", s.label, n), "")
				if v.LessThan(a) {
					continue // below the range: not probed, not a miss
				}
				if b != nil && v.GreaterThan(b) {
					return
				}
				mu.Lock()
				probes++
				over := probes > maxProbes
				mu.Unlock()
				if over {
					return
				}
				tag := "v" + v.String()
				if !exists(tag) {
					misses++
					continue
				}
				misses = 0
				mu.Lock()
				out = append(out, tag)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if probes > maxProbes {
		return nil, fmt.Errorf("probing pre-release tags from %s to %s: more than %d candidates", lo, hi, maxProbes)
	}
	return out, nil
}

// probeVersions enumerates vMAJOR.MINOR.PATCH from lo to hi, asking exists for each candidate.
// With no hi (the newest), minors are probed upward until one has neither of its first two
// patches. Pre-release tags are probed by probePreReleases.
func probeVersions(lo, hi string, exists func(string) bool) ([]string, error) {
	a, b, err := bounds(lo, hi)
	if err != nil {
		return nil, err
	}
	open := b == nil
	if open {
		b = semver.New(a.Major(), ^uint64(0)>>1, 0, "", "")
	}
	if a.Major() != b.Major() {
		return nil, fmt.Errorf("probing tags from %s to %s: the bounds must share a major version", lo, hi)
	}
	const maxProbes = 200
	var out []string
	probes := 0
	for minor := a.Minor(); minor <= b.Minor(); minor++ {
		patch := uint64(0)
		if minor == a.Minor() {
			patch = a.Patch()
		}
		misses, found := 0, false
		for ; misses < 2; patch++ {
			if minor == b.Minor() && patch > b.Patch() {
				break
			}
			if probes++; probes > maxProbes {
				return nil, fmt.Errorf("probing tags from %s to %s: more than %d candidates", lo, hi, maxProbes)
			}
			v := fmt.Sprintf("v%d.%d.%d", a.Major(), minor, patch)
			if exists(v) {
				out, misses, found = append(out, v), 0, true
			} else if !(minor == b.Minor() && patch < b.Patch()) {
				misses++ // in hi's minor every patch up to hi is probed
			}
		}
		if open && !found && minor > a.Minor() {
			break // a minor with neither of its first two patches: past the newest
		}
	}
	return out, nil
}

// GoProbeAll probes the Go module's 1.x tags: v1.0.0-beta.1…beta.15, then vX.Y.Z from
// v1.0.0 upward (probeVersions' rule: a minor's patches until two in a row are missing, minors
// until one has neither .0 nor .1).
func (c *Client) GoProbeAll(module string) func(ctx context.Context) ([]string, error) {
	return func(ctx context.Context) ([]string, error) {
		exists := c.goExists(ctx, module)
		var out []string
		for n := 1; n <= GoMaxBeta; n++ {
			if v := fmt.Sprintf("v1.0.0-beta.%d", n); exists(v) {
				out = append(out, v)
			}
		}
		for minor := 0; ; minor++ {
			lo, hi := fmt.Sprintf("v1.%d.0", minor), fmt.Sprintf("v1.%d.1", minor)
			vs, err := probeVersions(lo, hi, exists)
			if err != nil {
				return nil, err
			}
			if len(vs) == 0 {
				break
			}
			// probeVersions stops at hi in hi's minor: continue upward past .1.
			last := semver.MustParse(vs[len(vs)-1])
			for patch, misses := last.Patch()+1, 0; misses < 2; patch++ {
				v := fmt.Sprintf("v1.%d.%d", minor, patch)
				if exists(v) {
					vs, misses = append(vs, v), 0
				} else {
					misses++
				}
			}
			out = append(out, dedupe(vs)...)
		}
		return out, nil
	}
}
