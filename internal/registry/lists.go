package registry

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/text"
)

// NPM lists an npm package's versions: `npm view PKG versions --json`.
func (c *Client) NPM(pkg string) Lister {
	return func(ctx context.Context, r Range) ([]string, error) {
		out, err := c.run(ctx, "npm", "view", pkg, "versions", "--json")
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

// PyPI lists a distribution's versions: `python3 -m pip index versions DIST` ("Available
// versions: 1.0.9, 1.0.8, …").
func (c *Client) PyPI(dist string) Lister {
	return func(ctx context.Context, r Range) ([]string, error) {
		argv := []string{"python3", "-m", "pip", "index", "versions", dist}
		if r.Previews || preBound(r) {
			argv = append(argv, "--pre") // pip lists pre-releases only when asked, even a bound
		}
		out, err := c.run(ctx, argv...)
		if err != nil {
			return nil, err
		}
		for _, line := range strings.Split(string(out), "\n") {
			if list, ok := strings.CutPrefix(strings.TrimSpace(line), "Available versions:"); ok {
				return InRange(strings.Split(strings.ReplaceAll(list, " ", ""), ","), r)
			}
		}
		return nil, fmt.Errorf("pip index versions %s: no \"Available versions:\" line in %q", dist, text.Tail(string(out), 400))
	}
}

// preBound says whether a bound of r is itself a pre-release (a bisection from 1.0.0b1): the
// range keeps it, so the listing must have it.
func preBound(r Range) bool {
	for _, b := range []string{r.Lo, r.Hi} {
		if v, err := OrderKey(b); b != "" && err == nil && v.Prerelease() != "" {
			return true
		}
	}
	return false
}

// GoModule lists a Go module's versions with the go command: `go list -m -versions` (the
// proxy's list, pre-releases included) and, where the proxy refuses the list (the proxy reachable
// here answers 403 for @v/list but serves each version), by probing the candidate tags one by one
// with `go list -m MOD@vX.Y.Z`: releases by probeVersions and, when pre-releases are asked for,
// the previews and betas by probePreReleases.
func (c *Client) GoModule(module string) Lister {
	return func(ctx context.Context, r Range) ([]string, error) {
		list := func() ([]string, error) {
			out, err := c.run(ctx, "go", "list", "-m", "-versions", module)
			if err != nil {
				return nil, err
			}
			fields := strings.Fields(string(out)) // "MODULE v1.0.0 v1.0.1 …"
			if len(fields) < 2 {
				return nil, nil
			}
			return fields[1:], nil
		}
		return listOrProbe(r, list, c.goExists(ctx, module))
	}
}

// goExists says whether the proxy serves module at a version.
func (c *Client) goExists(ctx context.Context, module string) func(string) bool {
	return func(v string) bool {
		_, err := c.run(ctx, "go", "list", "-m", module+"@"+v)
		return err == nil
	}
}

// Crates lists a crate's versions from crates.io's sparse index (the file cargo itself reads):
// one JSON object per published version, yanked ones marked and left out.
func (c *Client) Crates(crate string) Lister {
	return func(ctx context.Context, r Range) ([]string, error) {
		body, err := c.get(ctx, c.base(c.CratesURL, "https://index.crates.io")+"/"+sparsePath(crate))
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

// Maven lists an artifact's versions from Maven Central's maven-metadata.xml (what mvn resolves
// version ranges from).
func (c *Client) Maven(group, artifact string) Lister {
	return func(ctx context.Context, r Range) ([]string, error) {
		url := c.base(c.MavenURL, "https://repo1.maven.org/maven2") + "/" + strings.ReplaceAll(group, ".", "/") + "/" + artifact + "/maven-metadata.xml"
		body, err := c.get(ctx, url)
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

// NuGet lists a package's versions from NuGet's flat container index (unreachable from the
// machines this harness was built on, where it fails with the network error).
func (c *Client) NuGet(id string) Lister {
	return func(ctx context.Context, r Range) ([]string, error) {
		body, err := c.get(ctx, c.base(c.NuGetURL, "https://api.nuget.org/v3-flatcontainer")+"/"+strings.ToLower(id)+"/index.json")
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
