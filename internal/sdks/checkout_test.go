package sdks

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gitRepo makes a repository with a go/ and a python/ folder, one commit.
func gitRepo(t *testing.T) (root string, git func(args ...string) string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not on PATH")
	}
	root = t.TempDir()
	git = func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", root}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "git %s: %s", strings.Join(args, " "), out)
		return strings.TrimSpace(string(out))
	}
	git("init", "-q", "-b", "main")
	for _, f := range []string{"go/go.mod", "python/pyproject.toml", "README.md"} {
		require.NoError(t, os.MkdirAll(filepath.Join(root, filepath.Dir(f)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(root, f), []byte("one\n"), 0o644))
	}
	git("add", ".")
	git("commit", "-q", "-m", "one")
	return root, git
}

// An SDK from a git checkout is labelled with the commit it was built from: describe against its
// own tags, the shared v* tags or the short hash, -dirty when its folder has changes.
func TestCheckoutLabel(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name  string
		setup func(root string, git func(...string) string)
		sdk   string
		dir   string
		want  string // a pattern; HASH is the short hash of HEAD
	}{
		{"no tag: the short hash", nil, "go", "go", `^HASH$`},
		{"a file changed in the SDK folder: dirty", func(root string, _ func(...string) string) {
			require.NoError(t, os.WriteFile(filepath.Join(root, "go", "go.mod"), []byte("two\n"), 0o644))
		}, "go", "go", `^HASH-dirty$`},
		{"a new file in the SDK folder: dirty", func(root string, _ func(...string) string) {
			require.NoError(t, os.WriteFile(filepath.Join(root, "go", "new.go"), []byte("x"), 0o644))
		}, "go", "go", `^HASH-dirty$`},
		{"a change in another SDK's folder: clean", func(root string, _ func(...string) string) {
			require.NoError(t, os.WriteFile(filepath.Join(root, "python", "pyproject.toml"), []byte("two\n"), 0o644))
		}, "go", "go", `^HASH$`},
		{"the SDK's own tag", func(_ string, git func(...string) string) {
			git("tag", "v1.0.0")
			git("tag", "go/v1.0.1")
		}, "go", "go", `^go/v1\.0\.1$`},
		{"commits after the shared tag", func(root string, git func(...string) string) {
			git("tag", "v1.0.0")
			require.NoError(t, os.WriteFile(filepath.Join(root, "README.md"), []byte("two\n"), 0o644))
			git("commit", "-q", "-am", "two")
		}, "python", "python", `^v1\.0\.0-1-gHASH$`},
		{"another SDK's tag is not this one's", func(_ string, git func(...string) string) {
			git("tag", "rust/v9.0.0")
		}, "python", "python", `^HASH$`},
		{"the checkout root", nil, "go", ".", `^HASH$`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, git := gitRepo(t)
			if tt.setup != nil {
				tt.setup(root, git)
			}
			hash := git("rev-parse", "--short=7", "HEAD")
			label, ok := CheckoutLabel(ctx, tt.sdk, filepath.Join(root, tt.dir))
			require.True(t, ok)
			assert.Regexp(t, strings.ReplaceAll(tt.want, "HASH", hash), label)
		})
	}

	t.Run("a folder outside any checkout keeps its label", func(t *testing.T) {
		_, ok := CheckoutLabel(ctx, "go", t.TempDir())
		assert.False(t, ok)
	})
	t.Run("a folder git does not track keeps its label", func(t *testing.T) {
		root, _ := gitRepo(t)
		dir := filepath.Join(root, "unpacked")
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "package.json"), []byte("{}"), 0o644))
		_, ok := CheckoutLabel(ctx, "node", dir)
		assert.False(t, ok)
	})
	t.Run("a package file keeps its label", func(t *testing.T) {
		root, _ := gitRepo(t)
		_, ok := CheckoutLabel(ctx, "go", filepath.Join(root, "go", "go.mod"))
		assert.False(t, ok)
	})
}

func TestSourceVersion(t *testing.T) {
	tests := []struct{ reported, label, matched, want, matching string }{
		{"(devel)", "abc1234-dirty", "", "git abc1234-dirty; no release version", ""},
		{"(devel)", "go/v1.0.9-6-g4e95dee", "1.0.10-0.6", "git go/v1.0.9-6-g4e95dee; matched as 1.0.10-0.6", "1.0.10-0.6"},
		{"", "abc1234", "", "git abc1234; no release version", ""},
		{"0.0.0.dev0", "v1.0.12-3-gabc1234", "1.0.13-0.3", "0.0.0.dev0 (git v1.0.12-3-gabc1234; matched as 1.0.13-0.3)", "1.0.13-0.3"},
		{"1.0.10-SNAPSHOT", "java/v1.0.9-4-gabc1234", "1.0.10-0.4", "1.0.10-SNAPSHOT (git java/v1.0.9-4-gabc1234; matched as 1.0.10-0.4)", "1.0.10-0.4"},
		// A placeholder outside git with nothing derived: only entries without versions apply.
		{"0.0.0-dev", "", "", "0.0.0-dev (no release version)", ""},
		// An unpacked package: its own version is what is matched.
		{"1.0.14", "", "1.0.14", "1.0.14", "1.0.14"},
		{"1.0.14", "", "", "1.0.14", "1.0.14"},
		// A Go module folder outside git: the SDK says only "(devel)".
		{"(devel)", "", "", "(devel) (no release version)", ""},
		// A release commit: the label is the tag, the version is the one reported.
		{"1.0.11", "v1.0.11", "1.0.11", "1.0.11 (git v1.0.11)", "1.0.11"},
		// Labelled already (a replay of a labelled run): kept.
		{"0.0.0.dev0 (git abc1234; matched as 1.0.1-0.2)", "abc1234", "9.9.9", "0.0.0.dev0 (git abc1234; matched as 1.0.1-0.2)", "1.0.1-0.2"},
		{"git abc1234; matched as 1.0.1-0.2", "abc1234", "", "git abc1234; matched as 1.0.1-0.2", "1.0.1-0.2"},
		// Labelled by an older harness, which matched the reported version.
		{"0.0.0.dev0 (git abc1234)", "abc1234", "", "0.0.0.dev0 (git abc1234)", "0.0.0.dev0"},
		{"git abc1234", "abc1234", "", "git abc1234", "(devel)"},
	}
	for _, tt := range tests {
		got := SourceVersion(tt.reported, tt.label, tt.matched)
		assert.Equal(t, tt.want, got, "%+v", tt)
		assert.Equal(t, tt.matching, MatchingVersion(got), "%+v", tt)
	}
	assert.Equal(t, "1.0.14", MatchingVersion("1.0.14"), "a registry version is itself")
}
