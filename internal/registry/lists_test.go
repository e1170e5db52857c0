package registry

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func recorded(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return b
}

// recordedRegistries serves the recorded index files (testdata/) at the paths crates.io, Maven
// Central and NuGet serve them; yanked marks 1.0.27 yanked in the crates.io index.
func recordedRegistries(t *testing.T, yanked bool) *Client {
	crates := string(recorded(t, "crates-github-copilot-sdk.ndjson"))
	if yanked {
		lines := strings.Split(crates, "\n")
		for i, l := range lines {
			if strings.Contains(l, `"vers": "1.0.27",`) {
				lines[i] = strings.Replace(l, `"yanked": false`, `"yanked": true`, 1)
			}
		}
		crates = strings.Join(lines, "\n")
		require.Contains(t, crates, `"yanked": true`)
	}
	files := map[string][]byte{
		"/crates/gi/th/github-copilot-sdk":                      []byte(crates),
		"/maven/com/github/copilot-sdk-java/maven-metadata.xml": recorded(t, "maven-metadata-copilot-sdk-java.xml"),
		"/nuget/github.copilot.sdk/index.json":                  []byte(`{"versions": ["0.1.0", "1.0.0-preview.1", "1.0.0", "1.0.1"]}`),
		"/nuget/broken.json.sdk/index.json":                     []byte(`not json`),
		"/maven/com/example/not-xml/maven-metadata.xml":         []byte(`<metadata><versioning>`),
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write(b)
	}))
	t.Cleanup(srv.Close)
	return &Client{CratesURL: srv.URL + "/crates", MavenURL: srv.URL + "/maven/", NuGetURL: srv.URL + "/nuget", HTTP: srv.Client()}
}

func TestIndexFiles(t *testing.T) {
	c := recordedRegistries(t, false)
	tests := []struct {
		name    string
		list    Lister
		r       Range
		want    []string
		wantErr string
	}{
		{"crates.io releases", c.Crates("github-copilot-sdk"), Range{Lo: "1.0.0"}, []string{"1.0.27", "1.0.28"}, ""},
		{"crates.io with pre-releases (a CI build too)", c.Crates("GitHub-Copilot-SDK"), Range{Lo: "1.0.0", Hi: "1.0.27", Previews: true},
			[]string{"1.0.25-unstable.40141230562.g130d689", "1.0.27-preview.3", "1.0.27-preview.4", "1.0.27"}, ""},
		{"crates.io: a crate it does not index", c.Crates("no-such-crate"), Range{Lo: "1.0.0"}, nil, "/crates/no/-s/no-such-crate: 404"},
		{"Maven Central", c.Maven("com.github", "copilot-sdk-java"), Range{Lo: "0.0.0", Previews: true}, []string{"0.3.0-java.2"}, ""},
		{"Maven Central: a pre-release bound is kept", c.Maven("com.github", "copilot-sdk-java"), Range{Lo: "0.3.0-java.2"}, []string{"0.3.0-java.2"}, ""},
		{"Maven Central: metadata that is not XML", c.Maven("com.example", "not-xml"), Range{Lo: "1.0.0"}, nil, "maven-metadata.xml: XML syntax error"},
		{"NuGet", c.NuGet("GitHub.Copilot.SDK"), Range{Lo: "1.0.0"}, []string{"1.0.0", "1.0.1"}, ""},
		{"NuGet: an index that is not JSON", c.NuGet("broken.json.sdk"), Range{Lo: "1.0.0"}, nil, "invalid character"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.list(context.Background(), tt.r)
			if tt.wantErr != "" {
				assert.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
	got, err := recordedRegistries(t, true).Crates("github-copilot-sdk")(context.Background(), Range{Lo: "1.0.0"})
	require.NoError(t, err)
	assert.Equal(t, []string{"1.0.28"}, got, "a yanked version is not published")
}

// recordedClients answers as the registries' own clients answered (testdata/), and records the
// commands asked for. The Go proxy refuses the version list (as recorded) and serves the tags in
// goTags one by one.
type recordedClients struct {
	t      *testing.T
	goTags map[string]bool
	asked  []string
}

const goModule = "github.com/github/copilot-sdk/go"

func (c *recordedClients) run(_ context.Context, argv ...string) ([]byte, error) {
	cmd := strings.Join(argv, " ")
	c.asked = append(c.asked, cmd)
	switch {
	case cmd == "npm view @github/copilot-sdk versions --json":
		return recorded(c.t, "npm-view-github-copilot-sdk-versions.json"), nil
	case strings.HasPrefix(cmd, "python3 -m pip index versions github-copilot-sdk"):
		return recorded(c.t, "pip-index-versions-github-copilot-sdk.txt"), nil
	case cmd == "python3 -m pip index versions not-a-listing":
		return []byte("WARNING: pip index is currently an experimental command.\n"), nil
	case cmd == "go list -m -versions "+goModule:
		return nil, errors.New(string(recorded(c.t, "go-list-versions-403.txt")))
	case strings.HasPrefix(cmd, "go list -m "+goModule+"@"):
		if c.goTags[strings.TrimPrefix(cmd, "go list -m "+goModule+"@")] {
			return []byte(cmd), nil
		}
		return nil, errors.New("403 Forbidden")
	}
	return nil, errors.New("no recorded answer for " + cmd)
}

func TestClientCommands(t *testing.T) {
	goTags := map[string]bool{"v1.0.12": true, "v1.0.13": true, "v1.0.14": true, "v1.0.15-preview.0": true, "v1.1.0": true}
	tests := []struct {
		name    string
		list    func(c *Client) Lister
		r       Range
		want    []string
		asked   string // a command the lister ran
		wantErr string
	}{
		{"npm", func(c *Client) Lister { return c.NPM("@github/copilot-sdk") }, Range{Lo: "1.0.9", Hi: "1.0.14"},
			[]string{"1.0.9", "1.0.11", "1.0.13", "1.0.14"}, "npm view @github/copilot-sdk versions --json", ""},
		{"npm with pre-releases", func(c *Client) Lister { return c.NPM("@github/copilot-sdk") }, Range{Lo: "1.0.0-beta.0", Hi: "1.0.1", Previews: true},
			[]string{"1.0.0-beta.4", "1.0.0-beta.8", "1.0.0-beta.9", "1.0.0", "1.0.1"}, "", ""},
		{"PyPI", func(c *Client) Lister { return c.PyPI("github-copilot-sdk") }, Range{Lo: "1.0.13", Hi: "1.0.9"},
			[]string{"1.0.9", "1.0.11", "1.0.13"}, "python3 -m pip index versions github-copilot-sdk", ""},
		{"PyPI asks pip for pre-releases", func(c *Client) Lister { return c.PyPI("github-copilot-sdk") }, Range{Lo: "1.0.26", Previews: true},
			[]string{"1.0.26", "1.0.27"}, "python3 -m pip index versions github-copilot-sdk --pre", ""},
		{"PyPI asks pip for pre-releases when a bound is one", func(c *Client) Lister { return c.PyPI("github-copilot-sdk") }, Range{Lo: "1.0.0b1", Hi: "1.0.1"},
			[]string{"1.0.0", "1.0.1"}, "python3 -m pip index versions github-copilot-sdk --pre", ""},
		{"PyPI: no version line", func(c *Client) Lister { return c.PyPI("not-a-listing") }, Range{Lo: "1.0.0"},
			nil, "", `no "Available versions:" line`},
		{"Go: the proxy refuses the list, tags are probed", func(c *Client) Lister { return c.GoModule(goModule) }, Range{Lo: "v1.0.12"},
			[]string{"v1.0.12", "v1.0.13", "v1.0.14", "v1.1.0"}, "go list -m " + goModule + "@v1.0.15", ""},
		{"Go: probed pre-releases", func(c *Client) Lister { return c.GoModule(goModule) }, Range{Lo: "v1.0.13", Hi: "v1.0.15", Previews: true},
			[]string{"v1.0.13", "v1.0.14", "v1.0.15-preview.0"}, "go list -m " + goModule + "@v1.0.15-preview.0", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recordedClients{t: t, goTags: goTags}
			got, err := tt.list(&Client{Command: rec.run})(context.Background(), tt.r)
			if tt.wantErr != "" {
				assert.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			if tt.asked != "" {
				assert.True(t, slices.Contains(rec.asked, tt.asked), "asked %q, not %q", rec.asked, tt.asked)
			}
		})
	}
}
