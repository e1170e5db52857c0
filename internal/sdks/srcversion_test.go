package sdks

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/Masterminds/semver/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A build n commits after a release tag is a pre-release of the next version, ordered between
// the tag and every later release or named pre-release, as a Go pseudo-version is.
func TestPseudoVersion(t *testing.T) {
	tests := []struct {
		tag     string
		commits int
		want    string
		after   []string // versions the build comes after
		before  []string // versions it comes before
	}{
		{"go/v1.0.9", 6, "1.0.10-0.6", []string{"1.0.9", "1.0.9-preview.3"}, []string{"1.0.10", "1.0.10-preview.0", "1.0.10-beta.1", "1.0.10-rc.1"}},
		{"v1.0.12-preview.0", 5, "1.0.12-preview.0.0.5", []string{"1.0.11", "1.0.12-preview.0"}, []string{"1.0.12-preview.1", "1.0.12"}},
		{"java/v1.0.11", 0, "1.0.11", nil, nil},
		{"rust/v0.3.0-java.2", 1, "0.3.0-java.2.0.1", []string{"0.3.0-java.2"}, []string{"0.3.0-java.3", "0.3.0"}},
	}
	for _, tt := range tests {
		got, err := pseudoVersion(tt.tag, tt.commits)
		require.NoError(t, err)
		assert.Equal(t, tt.want, got, tt.tag)
		v := semver.MustParse(got)
		for _, a := range tt.after {
			assert.True(t, v.GreaterThan(semver.MustParse(a)), "%s after %s", got, a)
		}
		for _, b := range tt.before {
			assert.True(t, v.LessThan(semver.MustParse(b)), "%s before %s", got, b)
		}
	}
}

func TestRealVersion(t *testing.T) {
	for v, want := range map[string]bool{
		"1.0.14": true, "1.0.15-preview.4": true, "1.0.27rc1": true, "v1.0.14": true, "0.3.0-java.2": true,
		"0.0.0-dev": false, "0.0.0.dev0": false, "0.0.0": false, "1.0.10-SNAPSHOT": false,
		"1.0.13-preview.0-SNAPSHOT": false, "": false, "(devel)": false, "latest": false,
	} {
		assert.Equal(t, want, RealVersion(v), v)
	}
}

// Each SDK's manifest is read with a parser of its format, as the files of an upstream checkout
// (4e95deee5) and of published packages hold them.
func TestDeclaredVersion(t *testing.T) {
	tests := []struct {
		sdk, file, body, want string
	}{
		{"node", "package.json", `{"name": "@github/copilot-sdk", "version": "0.0.0-dev", "dependencies": {"x": {"version": "9"}}}`, "0.0.0-dev"},
		{"node", "package.json", `{"name": "@github/copilot-sdk", "version": "1.0.14"}`, "1.0.14"},
		{"python", "pyproject.toml", "[build-system]\nrequires = [\"setuptools\"]\n\n[project]\nname = \"github-copilot-sdk\"\nversion = \"0.0.0.dev0\"\n", "0.0.0.dev0"},
		{"python", "PKG-INFO", "Metadata-Version: 2.4\nName: github-copilot-sdk\nVersion: 1.0.27\n\nVersion: 9.9.9 in the description\n", "1.0.27"},
		{"rust", "Cargo.toml", "[package]\nname = \"github-copilot-sdk\"\nversion = \"0.0.0-dev\"\nedition = \"2021\"\n\n[dependencies]\nserde = { version = \"1\" }\n", "0.0.0-dev"},
		{"rust", "Cargo.toml", "[package]\nname = \"github-copilot-sdk\"\nversion.workspace = true\n", ""},
		{"java", "pom.xml", `<?xml version="1.0"?><project><modelVersion>4.0.0</modelVersion><groupId>com.github</groupId>
<artifactId>copilot-sdk-java</artifactId><version>1.0.10-SNAPSHOT</version>
<dependencies><dependency><version>2.22.1</version></dependency></dependencies></project>`, "1.0.10-SNAPSHOT"},
		{"java", "pom.xml", `<project><parent><version>0.3.0-java.2</version></parent><artifactId>x</artifactId></project>`, "0.3.0-java.2"},
		{"go", "go.mod", "module github.com/github/copilot-sdk/go\n", ""},
	}
	for _, tt := range tests {
		dir := filepath.Join(t.TempDir(), tt.sdk)
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, tt.file), []byte(tt.body), 0o644))
		got, file := DeclaredVersion(tt.sdk, dir)
		assert.Equal(t, tt.want, got, "%s %s", tt.sdk, tt.file)
		if tt.want != "" {
			assert.Equal(t, tt.sdk+"/"+tt.file, file)
		}
	}
}

// A source is matched as its manifest's real version, else as its nearest release tag (the SDK's
// own prefix, read from the tags that exist, else the shared v tags) plus the commits since.
func TestMatchVersion(t *testing.T) {
	ctx := context.Background()
	commit := func(root string, git func(...string) string, n int) {
		for i := 0; i < n; i++ {
			require.NoError(t, os.WriteFile(filepath.Join(root, "README.md"), []byte{byte('a' + i)}, 0o644))
			git("commit", "-q", "-am", "change")
		}
	}
	tests := []struct {
		name   string
		setup  func(root string, git func(...string) string)
		sdk    string
		dir    string
		want   Matched
		wantOK bool
	}{
		{"the SDK's own tag, then commits", func(root string, git func(...string) string) {
			git("tag", "v1.0.8")
			git("tag", "go/v1.0.9")
			commit(root, git, 6)
		}, "go", "go", Matched{"1.0.10-0.6", "go/v1.0.9 + 6 commits"}, true},
		{"the shared tag when the SDK has none", func(root string, git func(...string) string) {
			git("tag", "go/v1.0.11")
			git("tag", "v1.0.12-preview.0")
			commit(root, git, 1)
		}, "python", "python", Matched{"1.0.12-preview.0.0.1", "v1.0.12-preview.0 + 1 commit"}, true},
		{"a placeholder in the manifest: the tag", func(root string, git func(...string) string) {
			require.NoError(t, os.WriteFile(filepath.Join(root, "python", "pyproject.toml"), []byte("[project]\nversion = \"0.0.0.dev0\"\n"), 0o644))
			git("commit", "-q", "-am", "placeholder")
			git("tag", "v1.0.9")
		}, "python", "python", Matched{"1.0.9", "v1.0.9"}, true},
		{"a real version in the manifest wins", func(root string, git func(...string) string) {
			require.NoError(t, os.WriteFile(filepath.Join(root, "python", "pyproject.toml"), []byte("[project]\nversion = \"1.0.10\"\n"), 0o644))
			git("commit", "-q", "-am", "release")
			git("tag", "v1.0.9")
		}, "python", "python", Matched{"1.0.10", "python/pyproject.toml"}, true},
		{"another SDK's tag is not this one's", func(_ string, git func(...string) string) {
			git("tag", "rust/v9.0.0")
		}, "python", "python", Matched{}, false},
		{"a tag that is no version is not a release", func(_ string, git func(...string) string) {
			git("tag", "20260527-phase-04")
		}, "go", "go", Matched{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, git := gitRepo(t)
			tt.setup(root, git)
			got, ok := MatchVersion(ctx, tt.sdk, filepath.Join(root, tt.dir))
			assert.Equal(t, tt.wantOK, ok)
			assert.Equal(t, tt.want, got)
		})
	}
	t.Run("an unpacked package outside git: its manifest", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "package")
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"version": "1.0.14"}`), 0o644))
		got, ok := MatchVersion(ctx, "node", dir)
		assert.True(t, ok)
		assert.Equal(t, Matched{"1.0.14", "package/package.json"}, got)
	})
	t.Run("a SNAPSHOT outside git: the build before that release", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "java")
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "pom.xml"), []byte(`<project><version>1.0.10-SNAPSHOT</version></project>`), 0o644))
		got, ok := MatchVersion(ctx, "java", dir)
		assert.True(t, ok)
		assert.Equal(t, "1.0.10-0", got.Version)
	})
	t.Run("an unpacked package inside another repository does not take its tags", func(t *testing.T) {
		root, git := gitRepo(t)
		git("tag", "v5.0.0")
		dir := filepath.Join(root, "unpacked")
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"version": "0.0.0-dev"}`), 0o644))
		_, ok := MatchVersion(ctx, "node", dir)
		assert.False(t, ok)
	})
}
