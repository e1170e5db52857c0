package sdks

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// drivers/PROTOCOL.md's "Writing a new driver" names every field of a recipe, so that a driver
// author learns them all from the protocol document.
func TestProtocolDocNamesEveryRecipeField(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "drivers", "PROTOCOL.md"))
	require.NoError(t, err)
	doc := string(b)
	i := strings.Index(doc, "## Writing a new driver")
	require.GreaterOrEqual(t, i, 0, "PROTOCOL.md has a Writing a new driver section")
	section := doc[i:]
	if j := strings.Index(section[1:], "\n## "); j > 0 {
		section = section[:j+1]
	}
	rt := reflect.TypeOf(Recipe{})
	for k := range rt.NumField() {
		f := rt.Field(k)
		assert.Contains(t, section, "`"+f.Name+"`", "PROTOCOL.md's recipe fields lack %s", f.Name)
	}
}
