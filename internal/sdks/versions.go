package sdks

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"sort"
	"strings"

	"github.com/Masterminds/semver/v3"
)

// Each recipe's Versions asks its registry through the registry's ordinary client (npm, pip,
// go) or, where the client has no listing command (crates.io, Maven Central, NuGet), through the
// registry's documented index file. The helpers here are what they share.

// bounds parses lo and hi and returns them lower first.
func bounds(lo, hi string) (a, b *semver.Version, err error) {
	if a, err = semver.NewVersion(lo); err != nil {
		return nil, nil, fmt.Errorf("version %q: %w", lo, err)
	}
	if b, err = semver.NewVersion(hi); err != nil {
		return nil, nil, fmt.Errorf("version %q: %w", hi, err)
	}
	if b.LessThan(a) {
		a, b = b, a
	}
	return a, b, nil
}

// InRange keeps the versions from lo to hi inclusive (either order of the bounds), without
// pre-releases and without repeats, oldest first, each spelled as the registry spells it.
func InRange(published []string, lo, hi string) ([]string, error) {
	a, b, err := bounds(lo, hi)
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
		sv, err := semver.NewVersion(raw)
		if err != nil || seen[sv.String()] {
			continue
		}
		// A bound that is itself a pre-release is kept: it was asked for.
		if sv.Prerelease() != "" && !sv.Equal(a) && !sv.Equal(b) {
			continue
		}
		if sv.LessThan(a) || sv.GreaterThan(b) {
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

// Lister returns every version a registry publishes (pre-releases included), in any order.
type Lister func(ctx context.Context) ([]string, error)

// between turns a registry's full list into a Versions function (InRange over it).
func between(list Lister) func(ctx context.Context, lo, hi string) ([]string, error) {
	return func(ctx context.Context, lo, hi string) ([]string, error) {
		vs, err := list(ctx)
		if err != nil {
			return nil, err
		}
		return InRange(vs, lo, hi)
	}
}

// npmPublished: `npm view PKG versions --json`.
func npmPublished(pkg string) Lister {
	return func(ctx context.Context) ([]string, error) {
		out, err := commandOutput(ctx, "npm", "view", pkg, "versions", "--json")
		if err != nil {
			return nil, err
		}
		var vs []string
		if err := json.Unmarshal(out, &vs); err != nil {
			return nil, fmt.Errorf("npm view %s versions: %w", pkg, err)
		}
		return vs, nil
	}
}

// pipPublished: `python3 -m pip index versions --pre DIST` ("Available versions: 1.0.9, 1.0.9rc1, …").
func pipPublished(dist string) Lister {
	return func(ctx context.Context) ([]string, error) {
		out, err := commandOutput(ctx, "python3", "-m", "pip", "index", "versions", "--pre", dist)
		if err != nil {
			return nil, err
		}
		for _, line := range strings.Split(string(out), "\n") {
			if list, ok := strings.CutPrefix(strings.TrimSpace(line), "Available versions:"); ok {
				return strings.Split(strings.ReplaceAll(list, " ", ""), ","), nil
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
func goProbeVersions(module string) func(ctx context.Context, lo, hi string) ([]string, error) {
	return func(ctx context.Context, lo, hi string) ([]string, error) {
		exists := func(v string) bool {
			_, err := commandOutput(ctx, "go", "list", "-m", module+"@"+v)
			return err == nil
		}
		return probeVersions(lo, hi, exists)
	}
}

// probeVersions enumerates vMAJOR.MINOR.PATCH from lo to hi, asking exists for each candidate.
func probeVersions(lo, hi string, exists func(string) bool) ([]string, error) {
	a, b, err := bounds(lo, hi)
	if err != nil {
		return nil, err
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
		misses := 0
		for ; misses < 2; patch++ {
			if minor == b.Minor() && patch > b.Patch() {
				break
			}
			if probes++; probes > maxProbes {
				return nil, fmt.Errorf("probing tags from %s to %s: more than %d candidates", lo, hi, maxProbes)
			}
			v := fmt.Sprintf("v%d.%d.%d", a.Major(), minor, patch)
			if exists(v) {
				out, misses = append(out, v), 0
			} else if !(minor == b.Minor() && patch < b.Patch()) {
				misses++ // in hi's minor every patch up to hi is probed
			}
		}
	}
	return out, nil
}

// cratesPublished reads crates.io's sparse index (the file cargo itself reads): one JSON object
// per published version, yanked ones marked (and left out).
func cratesPublished(crate string) Lister {
	return func(ctx context.Context) ([]string, error) {
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
		return vs, nil
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

// mavenPublished reads Maven Central's maven-metadata.xml (what mvn resolves version ranges from).
func mavenPublished(group, artifact string) Lister {
	return func(ctx context.Context) ([]string, error) {
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
		return meta.Versions, nil
	}
}

// nugetPublished reads NuGet's flat container index (unreachable from the machines this harness
// was built on, where it fails with the network error).
func nugetPublished(id string) Lister {
	return func(ctx context.Context) ([]string, error) {
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
		return idx.Versions, nil
	}
}
