package sdks

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"regexp"
	"sort"
	"strings"

	"github.com/Masterminds/semver/v3"
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
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
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

// goProbeVersions: the Go module proxy reachable here answers 403 for a module's version list
// (@v/list), but serves each version: so the candidate tags vX.Y.Z from lo to hi (same major) are
// probed one by one with `go list -m MOD@vX.Y.Z`. Within a minor, patches are probed upward until
// two in a row are missing (past hi's own patch in its minor); a tag that skips two patches is
// therefore missed, which the bisect output says.
func goProbeVersions(module string) func(ctx context.Context, r Range) ([]string, error) {
	return func(ctx context.Context, r Range) ([]string, error) {
		exists := func(v string) bool {
			_, err := commandOutput(ctx, "go", "list", "-m", module+"@"+v)
			return err == nil
		}
		return probeVersions(r.Lo, r.Hi, exists)
	}
}

// probeVersions enumerates vMAJOR.MINOR.PATCH from lo to hi, asking exists for each candidate.
// With no hi (the newest), minors are probed upward until one has neither of its first two
// patches. Pre-release tags cannot be guessed and are not probed.
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
