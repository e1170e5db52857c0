package sdks

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/Masterminds/semver/v3"

	"github.com/copilot-sdk-conformance/conformance/internal/procgroup"
)

// Each recipe's Versions asks its registry through the registry's ordinary client (npm, pip,
// go) or, where the client has no listing command (crates.io, Maven Central, NuGet), through the
// registry's documented index file. The helpers here are what they share.

// Range is a question to a registry: the versions from Lo to Hi inclusive (either order; Hi ""
// is the newest published), with pre-releases (previews, betas) only when Previews is set. A
// bound that is itself a pre-release is always kept: it was asked for.
type Range struct {
	Lo, Hi   string
	Previews bool
}

// bounds parses lo and hi and returns them lower first; an empty hi is no upper bound (b nil).
func bounds(lo, hi string) (a, b *semver.Version, err error) {
	if a, err = semver.NewVersion(lo); err != nil {
		return nil, nil, fmt.Errorf("version %q: %w", lo, err)
	}
	if hi == "" {
		return a, nil, nil
	}
	if b, err = semver.NewVersion(hi); err != nil {
		return nil, nil, fmt.Errorf("version %q: %w", hi, err)
	}
	if b.LessThan(a) {
		a, b = b, a
	}
	return a, b, nil
}

// InRange keeps the published versions in r, without repeats, oldest first, each spelled as the
// registry spells it.
func InRange(published []string, r Range) ([]string, error) {
	a, b, err := bounds(r.Lo, r.Hi)
	if err != nil {
		return nil, err
	}
	type v struct {
		raw string
		sv  *semver.Version
	}
	var keep []v
	seen := map[string]bool{}
	for _, raw := range published {
		sv, err := parseVersion(raw)
		if err != nil || seen[sv.String()] {
			continue
		}
		// A bound that is itself a pre-release is kept: it was asked for.
		if sv.Prerelease() != "" && !r.Previews && !sv.Equal(a) && (b == nil || !sv.Equal(b)) {
			continue
		}
		if sv.LessThan(a) || (b != nil && sv.GreaterThan(b)) {
			continue
		}
		seen[sv.String()] = true
		keep = append(keep, v{raw, sv})
	}
	sort.Slice(keep, func(i, j int) bool { return keep[i].sv.LessThan(keep[j].sv) })
	out := make([]string, len(keep))
	for i, k := range keep {
		out[i] = k.raw
	}
	return out, nil
}

// pep440Pre is a PyPI pre-release (1.0.27rc4, 1.0.0b12, 1.0.25.dev40141230562), which semver
// does not parse.
var pep440Pre = regexp.MustCompile(`^([0-9]+\.[0-9]+\.[0-9]+)\.?(a|b|rc|dev)([0-9]+)$`)

// parseVersion parses a registry's version as semver, reading a PyPI pre-release as the semver
// pre-release X.Y.Z-TAG.N (so it sorts below X.Y.Z; among themselves dev sorts after b, unlike
// PEP 440, which only matters with --previews).
func parseVersion(raw string) (*semver.Version, error) {
	if m := pep440Pre.FindStringSubmatch(raw); m != nil {
		return semver.NewVersion(m[1] + "-" + m[2] + "." + m[3])
	}
	return semver.NewVersion(raw)
}

// commandOutput runs argv and returns its standard output; an error carries the tail of stderr.
func commandOutput(ctx context.Context, argv ...string) ([]byte, error) {
	cmd := procgroup.Command(ctx, argv[0], argv[1:]...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := procgroup.Output(cmd)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %s", strings.Join(argv, " "), err, tail(stderr.String()))
	}
	return out, nil
}

func tail(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 400 {
		s = "…" + s[len(s)-400:]
	}
	return s
}

// httpGet fetches a registry's index file.
func httpGet(ctx context.Context, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return body, nil
}

// npmVersions: `npm view PKG versions --json`.
func npmVersions(pkg string) func(ctx context.Context, r Range) ([]string, error) {
	return func(ctx context.Context, r Range) ([]string, error) {
		out, err := commandOutput(ctx, "npm", "view", pkg, "versions", "--json")
		if err != nil {
			return nil, err
		}
		var vs []string
		if err := json.Unmarshal(out, &vs); err != nil {
			return nil, fmt.Errorf("npm view %s versions: %w", pkg, err)
		}
		return InRange(vs, r)
	}
}

// pipVersions: `python3 -m pip index versions DIST` ("Available versions: 1.0.9, 1.0.8, …").
func pipVersions(dist string) func(ctx context.Context, r Range) ([]string, error) {
	return func(ctx context.Context, r Range) ([]string, error) {
		argv := []string{"python3", "-m", "pip", "index", "versions", dist}
		if r.Previews {
			argv = append(argv, "--pre") // pip lists pre-releases only when asked
		}
		out, err := commandOutput(ctx, argv...)
		if err != nil {
			return nil, err
		}
		for _, line := range strings.Split(string(out), "\n") {
			if list, ok := strings.CutPrefix(strings.TrimSpace(line), "Available versions:"); ok {
				return InRange(strings.Split(strings.ReplaceAll(list, " ", ""), ","), r)
			}
		}
		return nil, fmt.Errorf("pip index versions %s: no \"Available versions:\" line in %q", dist, tail(string(out)))
	}
}

// goVersions lists the Go module's versions with the go command: `go list -m -versions` (the
// proxy's list, pre-releases included) and, where the proxy refuses the list (the proxy reachable
// here answers 403 for @v/list but serves each version), by probing the candidate tags one by one
// with `go list -m MOD@vX.Y.Z`: releases by probeVersions and, when pre-releases are asked for,
// the previews and betas by probePreReleases.
func goVersions(module string) func(ctx context.Context, r Range) ([]string, error) {
	return func(ctx context.Context, r Range) ([]string, error) {
		list := func() ([]string, error) {
			out, err := commandOutput(ctx, "go", "list", "-m", "-versions", module)
			if err != nil {
				return nil, err
			}
			fields := strings.Fields(string(out)) // "MODULE v1.0.0 v1.0.1 …"
			if len(fields) < 2 {
				return nil, nil
			}
			return fields[1:], nil
		}
		exists := func(v string) bool {
			_, err := commandOutput(ctx, "go", "list", "-m", module+"@"+v)
			return err == nil
		}
		return listOrProbe(r, list, exists)
	}
}

// listOrProbe is goVersions with the go command abstracted: the list when it is served and
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
// probed (previews 0-4, betas 0-goMaxBeta) and then upward until three in a row are missing;
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
	for _, minor := range sortedKeysU(newest) {
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
				all = append(all, series{minor, patch, "beta", goMaxBeta + 1})
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

func sortedKeysU[V any](m map[uint64]V) []uint64 {
	out := make([]uint64, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
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

// cratesVersions reads crates.io's sparse index (the file cargo itself reads): one JSON object
// per published version, yanked ones marked.
func cratesVersions(crate string) func(ctx context.Context, r Range) ([]string, error) {
	return func(ctx context.Context, r Range) ([]string, error) {
		body, err := httpGet(ctx, "https://index.crates.io/"+sparsePath(crate))
		if err != nil {
			return nil, err
		}
		var vs []string
		for _, line := range strings.Split(string(body), "\n") {
			var e struct {
				Vers   string `json:"vers"`
				Yanked bool   `json:"yanked"`
			}
			if json.Unmarshal([]byte(line), &e) == nil && e.Vers != "" && !e.Yanked {
				vs = append(vs, e.Vers)
			}
		}
		return InRange(vs, r)
	}
}

// sparsePath is the crates.io index path of a crate name.
func sparsePath(name string) string {
	n := strings.ToLower(name)
	switch len(n) {
	case 1:
		return "1/" + n
	case 2:
		return "2/" + n
	case 3:
		return "3/" + n[:1] + "/" + n
	}
	return n[:2] + "/" + n[2:4] + "/" + n
}

// mavenVersions reads Maven Central's maven-metadata.xml (what mvn resolves version ranges from).
func mavenVersions(group, artifact string) func(ctx context.Context, r Range) ([]string, error) {
	return func(ctx context.Context, r Range) ([]string, error) {
		url := "https://repo1.maven.org/maven2/" + strings.ReplaceAll(group, ".", "/") + "/" + artifact + "/maven-metadata.xml"
		body, err := httpGet(ctx, url)
		if err != nil {
			return nil, err
		}
		var meta struct {
			Versions []string `xml:"versioning>versions>version"`
		}
		if err := xml.Unmarshal(body, &meta); err != nil {
			return nil, fmt.Errorf("%s: %w", url, err)
		}
		return InRange(meta.Versions, r)
	}
}

// nugetVersions reads NuGet's flat container index (unreachable from the machines this harness
// was built on, where it fails with the network error).
func nugetVersions(id string) func(ctx context.Context, r Range) ([]string, error) {
	return func(ctx context.Context, r Range) ([]string, error) {
		body, err := httpGet(ctx, "https://api.nuget.org/v3-flatcontainer/"+strings.ToLower(id)+"/index.json")
		if err != nil {
			return nil, err
		}
		var idx struct {
			Versions []string `json:"versions"`
		}
		if err := json.Unmarshal(body, &idx); err != nil {
			return nil, err
		}
		return InRange(idx.Versions, r)
	}
}
