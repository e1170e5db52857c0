// Package registry asks an SDK's package registry which versions it publishes: npm, PyPI and the
// Go module proxy through their ordinary clients (npm, pip, go), crates.io, Maven Central and
// NuGet, whose clients have no listing command, through their documented index files. The SDK
// recipes (internal/sdks) name their registry's Lister; bisect and history ask it for a range
// (Bisection, Span). The answers are parsed and ordered here (OrderKey: SemVer and PEP 440 alike)
// and tested on recorded ones (testdata/).
package registry

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"

	"github.com/Masterminds/semver/v3"

	"github.com/copilot-sdk-conformance/conformance/internal/procgroup"
	"github.com/copilot-sdk-conformance/conformance/internal/text"
)

// Range is a question to a registry: the versions from Lo to Hi inclusive (either order; Hi ""
// is the newest published), with pre-releases (previews, betas) only when Previews is set. A
// bound that is itself a pre-release is always kept: it was asked for.
type Range struct {
	Lo, Hi   string
	Previews bool
}

// Lister lists the versions a registry publishes in a range, oldest first, each spelled as the
// registry spells it.
type Lister func(ctx context.Context, r Range) ([]string, error)

// Client is where the registries are and how their own clients run; the zero value is the
// public registries and the clients on PATH. Tests point it at recorded answers.
type Client struct {
	// CratesURL, MavenURL and NuGetURL are the base URLs of the index files read over HTTP
	// (default https://index.crates.io, https://repo1.maven.org/maven2,
	// https://api.nuget.org/v3-flatcontainer).
	CratesURL, MavenURL, NuGetURL string
	HTTP                          *http.Client
	// Command runs a registry's client (npm, pip, go) and returns its standard output; an
	// error says why (default: the command in a process group of its own, internal/procgroup).
	Command func(ctx context.Context, argv ...string) ([]byte, error)
}

// Public is the public registries, asked through the clients on PATH.
var Public = &Client{}

func (c *Client) base(url, def string) string {
	if url == "" {
		return def
	}
	return strings.TrimSuffix(url, "/")
}

// run runs argv with c.Command or, by default, in a process group of its own; an error carries
// the tail of stderr.
func (c *Client) run(ctx context.Context, argv ...string) ([]byte, error) {
	if c.Command != nil {
		return c.Command(ctx, argv...)
	}
	cmd := procgroup.Command(ctx, argv[0], argv[1:]...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := procgroup.Output(cmd)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %s", strings.Join(argv, " "), err, text.Tail(stderr.String(), 400))
	}
	return out, nil
}

// get fetches a registry's index file.
func (c *Client) get(ctx context.Context, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	client := c.HTTP
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
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

// bounds parses lo and hi (PyPI pre-releases too) and returns them lower first; an empty hi is
// no upper bound (b nil).
func bounds(lo, hi string) (a, b *semver.Version, err error) {
	if a, err = OrderKey(lo); err != nil {
		return nil, nil, fmt.Errorf("version %q: %w", lo, err)
	}
	if hi == "" {
		return a, nil, nil
	}
	if b, err = OrderKey(hi); err != nil {
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
	// A bound that is itself a pre-release is kept: it was asked for. An unreadable entry is
	// left out: it is in no range.
	keep, _ := ordered(published, false, func(sv *semver.Version) bool {
		if sv.Prerelease() != "" && !r.Previews && !sv.Equal(a) && (b == nil || !sv.Equal(b)) {
			return false
		}
		return !sv.LessThan(a) && (b == nil || !sv.GreaterThan(b))
	})
	out := make([]string, len(keep))
	for i, k := range keep {
		out[i] = k.raw
	}
	return out, nil
}

// version is a registry's version as it spells it and as OrderKey reads it.
type version struct {
	raw string
	sv  *semver.Version
}

// ordered reads the published versions that keep chooses, oldest first, each once (its first
// spelling). An entry OrderKey cannot read is an error when strict, else left out.
func ordered(published []string, strict bool, keep func(*semver.Version) bool) ([]version, error) {
	var out []version
	seen := map[string]bool{}
	for _, raw := range published {
		raw = strings.TrimSpace(raw)
		if raw == "" {
			continue
		}
		sv, err := OrderKey(raw)
		if err != nil {
			if strict {
				return nil, err
			}
			continue
		}
		if seen[sv.String()] || !keep(sv) {
			continue
		}
		seen[sv.String()] = true
		out = append(out, version{raw, sv})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].sv.LessThan(out[j].sv) })
	return out, nil
}
