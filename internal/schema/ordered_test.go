package schema

import (
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOrderedNamesReadTheSameEveryTime: the names a failure lists (additional and missing
// properties) come in map order from the validator; through Ordered every check reads the same.
func TestOrderedNamesReadTheSameEveryTime(t *testing.T) {
	c := jsonschema.NewCompiler()
	require.NoError(t, c.AddResource("s.json", map[string]any{
		"type": "object", "additionalProperties": false,
		"required":   []any{"d", "a", "c", "b"},
		"properties": map[string]any{"a": true, "b": true, "c": true, "d": true},
	}))
	s, err := c.Compile("s.json")
	require.NoError(t, err)
	inst := map[string]any{"z": 1, "y": 2, "x": 3, "w": 4, "v": 5}
	for _, tc := range []struct{ name, want string }{
		{"additionalProperties", "additional properties 'v', 'w', 'x', 'y', 'z' not allowed"},
		{"required", "missing properties 'a', 'b', 'c', 'd'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for i := 0; i < 30; i++ {
				got := violations(s.Validate(inst), "")
				var msgs []string
				for _, v := range got {
					msgs = append(msgs, v.Message)
				}
				assert.Contains(t, strings.Join(msgs, "\n"), tc.want)
			}
		})
	}
}
