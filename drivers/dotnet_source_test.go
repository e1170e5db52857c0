package drivers

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// dotnetSources reads drivers/dotnet/*.cs without their comments (a line's `//` after blank or at
// its start; "http://" in a string stays), by file name.
func dotnetSources(t *testing.T) map[string][]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("dotnet", "*.cs"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	comment := regexp.MustCompile(`(^|\s)//.*$`)
	out := map[string][]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		lines := strings.Split(string(b), "\n")
		for i, l := range lines {
			lines[i] = comment.ReplaceAllString(l, "")
		}
		out[filepath.Base(f)] = lines
	}
	return out
}

// TestDotnetDriverBuildsByName keeps the .NET driver honest where no machine of this project can
// compile it (no .NET SDK, no NuGet): the SDK's values are built by ByName.cs (PROTOCOL.md
// "Building SDK values"), whose one call into System.Text.Json's deserializer decodes a
// [JsonPolymorphic] union; no other file deserializes, and each place that turns the harness's
// JSON into an SDK value goes through ByName.
func TestDotnetDriverBuildsByName(t *testing.T) {
	src := dotnetSources(t)
	deserializer := regexp.MustCompile(`\b(Deserialize\w*|PopulateObject|ReadFrom\w*|JsonTypeInfo)\b`)
	type hit struct {
		file string
		line int
	}
	var hits, converters []hit
	for file, lines := range src {
		for i, l := range lines {
			switch {
			case !deserializer.MatchString(l):
			case file == "Converters.cs":
				converters = append(converters, hit{file, i + 1})
			default:
				hits = append(hits, hit{file, i + 1})
			}
		}
	}
	// The convert command tests the SDK's converter from JSON itself: one call, reading back the
	// JSON of a value built by name first (PROTOCOL.md, Converters).
	require.Len(t, converters, 1, "System.Text.Json deserializer calls in Converters.cs (only the read-back): %v", converters)
	built := -1
	for i, l := range src["Converters.cs"] {
		if strings.Contains(l, "ByName.Build(") {
			built = i + 1
		}
	}
	assert.True(t, built > 0 && built < converters[0].line, "Converters.cs reads back before it builds by name")
	require.Len(t, hits, 1, "System.Text.Json deserializer calls in drivers/dotnet (only ByName.Decode may have one): %v", hits)
	assert.Equal(t, "ByName.cs", hits[0].file)
	byName := src["ByName.cs"]
	decode := -1
	for i, l := range byName {
		if strings.Contains(l, "private object? Decode(") {
			decode = i + 1
		}
	}
	require.Positive(t, decode, "ByName.cs has no Decode method")
	assert.Greater(t, hits[0].line, decode, "the deserializer call is not in ByName.Decode")
	assert.Contains(t, strings.Join(byName[decode-1:hits[0].line], "\n"), "JsonPolymorphicAttribute",
		"ByName.Decode deserializes something other than a [JsonPolymorphic] union")

	for _, tc := range []struct {
		file, call, what string
	}{
		{"SessionOptions.cs", "ByName.Strict(property.PropertyType,", "session options"},
		{"SessionOptions.cs", "ByName.Strict(typeof(ToolResultObject),", "tool results"},
		{"SessionOptions.cs", "ByName.Strict(info.PropertyType,", "connect option clientInfo"},
		{"SessionOptions.cs", "ByName.Build(typeof(Ticket),", "the application's returnValue"},
		{"Surface.cs", "ByName.Strict(p.PropertyType,", "surface fields"},
		{"GeneratedRpc.cs", "ByName.Build(p.ParameterType,", "generated rpc params"},
		{"GeneratedRpc.cs", "ByName.Plan(", "driver.builtBy over the wrappers' parameter types"},
		{"Program.cs", `notes["driver.builtBy"] = ByName.Note()`, "hello's driver.builtBy"},
		{"Handlers.cs", "ByName.Build(typeof(TOut), output,", "hook outputs"},
		{"Handlers.cs", "ByName.Build(typeof(CanvasProviderOpenResult),", "canvas open results"},
		{"Handlers.cs", "ByName.Build(typeof(SessionFsStatResult),", "session file system results"},
	} {
		t.Run(tc.what, func(t *testing.T) {
			assert.Contains(t, strings.Join(src[tc.file], "\n"), tc.call, "%s: %s are not built through ByName", tc.file, tc.what)
		})
	}
}
