package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/sdks"
)

var (
	// rustConfigField is an optional field type of the crate's SessionConfig (`Option<Name>`).
	rustConfigField = regexp.MustCompile(`(?m)^    pub \w+: Option<(\w+)>,$`)
	// rustOptionalString is an optional string field the field's serializer leaves out when
	// unset: its attribute line, then the field.
	rustOptionalString = regexp.MustCompile(`(?m)^    #\[serde\([^\]\n]*skip_serializing_if = "Option::is_none"[^\]\n]*\)\]\n(    pub (\w+): Option<String>,)$`)
)

// rustStruct is the body of `pub struct name {` in text, with the attributes above it.
func rustStruct(text, name string) (attrs, body string, at int, ok bool) {
	head := regexp.MustCompile(`(?m)^pub struct ` + regexp.QuoteMeta(name) + ` \{\n`)
	loc := head.FindStringIndex(text)
	if loc == nil {
		return "", "", 0, false
	}
	end := strings.Index(text[loc[1]:], "\n}\n")
	if end < 0 {
		return "", "", 0, false
	}
	start := strings.LastIndex(text[:loc[0]], "\n\n") + 1
	return text[start:loc[0]], text[loc[1] : loc[1]+end+1], loc[1], true
}

// misspellRustConfigField misspells, in the crate's src/types.rs, the serde name of the first
// optional string field of a type of SessionConfig's fields that the crate declares
// `#[non_exhaustive]` with `Default` and camelCase wire names (a type an application builds by
// its Default and field names, as the driver's src/byname.rs does) and whose wire key the sweep
// sets (`"key":` in its text). The field gets an explicit `rename` to the camelCase name with
// "Misspelled" added. It returns the mutated file, the type and the wire key.
func misspellRustConfigField(text, sweep string) (string, string, string, bool) {
	_, config, _, ok := rustStruct(text, "SessionConfig")
	if !ok {
		return "", "", "", false
	}
	for _, m := range rustConfigField.FindAllStringSubmatch(config, -1) {
		attrs, body, at, ok := rustStruct(text, m[1])
		if !ok || !strings.Contains(attrs, "non_exhaustive") || !strings.Contains(attrs, "Default") ||
			!strings.Contains(attrs, "Deserialize") || !strings.Contains(attrs, `rename_all = "camelCase"`) {
			continue
		}
		for _, f := range rustOptionalString.FindAllStringSubmatchIndex(body, -1) {
			key := camel(body[f[4]:f[5]])
			if !strings.Contains(sweep, `"`+key+`":`) {
				continue
			}
			insert := at + f[2]
			mutated := text[:insert] + `    #[serde(rename = "` + key + `Misspelled")]` + "\n" + text[insert:]
			return mutated, m[1], key, true
		}
	}
	return "", "", "", false
}

// camel is serde's camelCase of a snake_case Rust field name.
func camel(snake string) string {
	parts := strings.Split(snake, "_")
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "")
}

func TestMisspellRustConfigField(t *testing.T) {
	text := `pub struct SessionConfig {
    pub model: Option<String>,
    pub plain: Option<Plain>,
    pub infinite: Option<InfiniteConfig>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Plain {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub no_default: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct InfiniteConfig {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storage_dir: Option<String>,
}
`
	mutated, owner, key, ok := misspellRustConfigField(text, `| infinite | {"storageDir": "x"} |`)
	require.True(t, ok)
	assert.Equal(t, "InfiniteConfig", owner)
	assert.Equal(t, "storageDir", key)
	assert.Contains(t, mutated, "    #[serde(rename = \"storageDirMisspelled\")]\n    pub storage_dir: Option<String>,\n")
	assert.Equal(t, strings.Count(text, "\n")+1, strings.Count(mutated, "\n"))

	_, _, _, ok = misspellRustConfigField(text, `| infinite | {"enabled": true} |`)
	assert.False(t, ok, "the sweep sets no optional string field of those types")
	_, _, _, ok = misspellRustConfigField("pub struct Other {\n}\n", `{"storageDir": "x"}`)
	assert.False(t, ok, "no SessionConfig: nothing to misspell")
}

// TestMutatedRustCrateWireNameShows runs the session options sweep on a copy of the pinned
// Rust crate whose src/types.rs misspells the serde name of one optional field of a config
// value type that the sweep sets (misspellRustConfigField). A driver that built the value
// through the crate's Deserialize would find no field for the key, report the option
// unsupported and pass by it; the driver builds it by Rust field name
// (drivers/rust/build_byname.rs), so the misspelled key goes on the wire and the sweep fails
// naming it. (The fields sweep would not show it: its keys are the crate's own serde names, read
// from the crate's source by the surface command.) The pinned crate's run does not name the
// misspelling. One Rust build of the mutated crate: minutes.
func TestMutatedRustCrateWireNameShows(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the Rust driver on a mutated copy of the crate (minutes): not in -short mode")
	}
	if _, err := exec.LookPath("cargo"); err != nil {
		if slices.Contains(required(), "rust") {
			t.Fatalf("rust is required here, but cargo is not on PATH: %v", err)
		}
		t.Skip("the Rust toolchain (cargo) is not installed: the mutated crate cannot be built")
	}
	root := repoDir(t)
	pins, err := sdks.LoadPins(filepath.Join(root, "fixtures", "sdks.yaml"))
	require.NoError(t, err)
	version := strings.TrimPrefix(pins["rust"].Version, "=")
	// The pinned crate's source, as cargo unpacks it for the driver's build.
	manifest := filepath.Join(root, "drivers", "rust", "Cargo.toml")
	if out, err := exec.Command("cargo", "fetch", "--locked", "--manifest-path", manifest).CombinedOutput(); err != nil {
		if slices.Contains(required(), "rust") {
			t.Fatalf("rust is required here: cargo fetch: %v\n%s", err, out)
		}
		t.Skipf("the pinned crate cannot be fetched here: %v\n%s", err, out)
	}
	home := os.Getenv("CARGO_HOME")
	if home == "" {
		h, err := os.UserHomeDir()
		require.NoError(t, err)
		home = filepath.Join(h, ".cargo")
	}
	found, _ := filepath.Glob(filepath.Join(home, "registry", "src", "*", "github-copilot-sdk-"+version))
	require.NotEmpty(t, found, "cargo fetch unpacks github-copilot-sdk %s under %s/registry/src", version, home)

	crate := filepath.Join(t.TempDir(), "github-copilot-sdk")
	require.NoError(t, sdks.CopyDir(found[0], crate))
	types := filepath.Join(crate, "src", "types.rs")
	text, err := os.ReadFile(types)
	require.NoError(t, err)
	const sweep = "features/session/options.feature"
	sweepText, err := os.ReadFile(filepath.Join(root, sweep))
	require.NoError(t, err)
	mutated, owner, key, ok := misspellRustConfigField(string(text), string(sweepText))
	require.True(t, ok, "src/types.rs of %s has a config value type with an optional string field %s sets", version, sweep)
	require.NoError(t, os.WriteFile(types, []byte(mutated), 0o644))
	t.Logf("misspelled %s's %q as %q", owner, key, key+"Misspelled")

	bin := buildCLI(t)
	word := regexp.MustCompile(regexp.QuoteMeta(key) + `(Misspelled)?\b`)
	// The lines of the run's failures that name the key (request numbers left out), and the
	// driver's tally of the types it builds through serde.
	naming := func(args ...string) (map[string]bool, string) {
		reports := t.TempDir()
		_, out := runCLI(t, bin, append(append([]string{"run", "--sdk", "rust", "--report-dir", reports}, args...), sweep)...)
		res, err := report.ReadResults(filepath.Join(reports, "results.json"))
		require.NoError(t, err, "%s", out)
		require.Len(t, res.SDKs, 1)
		require.Equal(t, report.Available, res.SDKs[0].Status, "%s", res.SDKs[0].Reason)
		lines := map[string]bool{}
		for _, r := range res.Results {
			if r.Status != report.Failed && r.Status != report.XFail {
				continue
			}
			for _, l := range strings.Split(r.Message, "\n") {
				if word.MatchString(l) {
					lines[requestNumber.ReplaceAllString(l, "#")] = true
				}
			}
		}
		return lines, res.SDKs[0].Notes[report.BuiltByNote]
	}
	before, builtBy := naming()
	assert.NotContains(t, builtBy, owner+":", "the driver builds %s by name, not through serde", owner)
	after, _ := naming("--sdk-source", "rust="+crate)
	var added []string
	for l := range after {
		if !before[l] {
			added = append(added, l)
		}
	}
	for l := range before {
		assert.NotContains(t, l, key+"Misspelled", "the pinned crate's run names no misspelling")
	}
	assert.NotEmpty(t, added, "the misspelled serde name of %s's %q went unnoticed (lines naming it before: %v)", owner, key, before)
	assert.True(t, slices.ContainsFunc(added, func(l string) bool { return strings.Contains(l, key+"Misspelled") }),
		"a failure names the misspelled key %q: %v", key+"Misspelled", added)
	t.Logf("failure lines naming %q that the misspelling added: %d, e.g. %q", key, len(added), first(added))
}
