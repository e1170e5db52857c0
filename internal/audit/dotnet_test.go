package audit

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDotnetDriverAccountsForEveryCapability reads the .NET driver's sources, because no machine
// this suite runs on can build them (no .NET SDK, no NuGet): every capability of the protocol must
// be either declared true outright or given a missing symbol ("GitHub.Copilot.…", or a "driver: …"
// gap), so that where .NET does run, TestCapabilityAudit has a symbol to probe for every false one.
// A capability added to the protocol without the .NET driver accounting for it fails here.
func TestDotnetDriverAccountsForEveryCapability(t *testing.T) {
	dir := filepath.Join("..", "..", "drivers", "dotnet")
	files, err := filepath.Glob(filepath.Join(dir, "*.cs"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	var src strings.Builder
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		src.Write(b)
	}
	schema, err := os.ReadFile(filepath.Join("..", "..", "drivers", "protocol.schema.json"))
	require.NoError(t, err)
	universe, err := Universe(schema)
	require.NoError(t, err)

	text := src.String()
	for _, c := range universe {
		if name, ok := strings.CutPrefix(c, "session.option."); ok {
			// SessionOptions.s_all: each option is declared and given its config property's symbol.
			assert.Regexp(t, regexp.MustCompile(`new\("`+regexp.QuoteMeta(name)+`", "\w+"`), text,
				"%s: drivers/dotnet/SessionOptions.cs has no option %q in s_all", c, name)
			continue
		}
		key := regexp.QuoteMeta(`["` + c + `"] = `)
		declaredTrue := regexp.MustCompile(key + `true\b`).MatchString(text)
		// The SDK's tools are Microsoft.Extensions.AI AIFunctions: a symbol there names the SDK's API too.
		named := regexp.MustCompile(key + `"(GitHub\.Copilot\.\w|Microsoft\.Extensions\.AI\.\w|driver: \S)`).MatchString(text)
		assert.True(t, declaredTrue || named || Shapes[c],
			"%s: the .NET driver neither declares it true nor names the SDK symbol (or driver gap) that makes it false", c)
	}
}
