package schema

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/copilot-sdk-conformance/conformance/internal/sdks"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A miniature of api.schema.json's layout: method groups with rpcMethod and params, and shared
// definitions referenced with #/definitions/….
const mini = `{
  "$schema": "https://json-schema.org/draft/2019-09/schema",
  "session": {
    "tools": {
      "set": {"rpcMethod": "session.tools.set", "params": {"type": "object",
        "properties": {"sessionId": {"type": "string"}, "tools": {"type": "array", "items": {"$ref": "#/definitions/ProtocolExternalToolDefinition"}}},
        "required": ["sessionId", "tools"], "additionalProperties": false}}
    }
  },
  "definitions": {
    "ProtocolExternalToolDefinition": {"type": "object",
      "properties": {"name": {"type": "string"}, "description": {"type": "string"}, "isTerminal": {"type": "boolean"},
        "defer": {"enum": ["auto", "never"]}},
      "required": ["name"], "additionalProperties": false}
  }
}`

func TestCheckPlantedViolations(t *testing.T) {
	v, err := Compile([]byte(mini))
	require.NoError(t, err)
	assert.Equal(t, 1, v.Methods())
	tests := []struct {
		name, method, params string
		want                 []string
	}{
		{"clean tools.set", "session.tools.set", `{"sessionId":"s","tools":[{"name":"a","isTerminal":true}]}`, nil},
		{"planted snake_case key", "session.tools.set", `{"sessionId":"s","tools":[{"name":"a","is_terminal":true}]}`,
			[]string{"/tools/0: additional properties 'is_terminal' not allowed"}},
		{"tools null", "session.tools.set", `{"sessionId":"s","tools":null}`, []string{"/tools: got null, want array"}},
		{"tools missing", "session.tools.set", `{"sessionId":"s"}`, []string{"/: missing property 'tools'"}},
		{"create tools checked against the tool definition", "session.create", `{"sessionId":"s","tools":[{"name":"a"},{"name":"b","namespacedName":"x/b","defer":"later"}]}`,
			[]string{"/tools/1/defer: value must be one of 'auto', 'never'", "/tools/1: additional properties 'namespacedName' not allowed"}},
		{"undescribed method", "session.send", `{"anything":1}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, x := range v.Check(tt.method, json.RawMessage(tt.params)) {
				got = append(got, x.String())
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

// TestPublishedSchemaWhenPrepared loads the published schema from a preparation of the pinned
// version of the SDK that ships it (fixtures/sdks.yaml), prepared here when the cache does not
// hold it: whatever other versions the cache holds (some ship no schema) do not matter. It skips
// only when that SDK's toolchain is missing, and fails then when CI requires the SDK.
func TestPublishedSchemaWhenPrepared(t *testing.T) {
	if testing.Short() {
		t.Skip("prepares the pinned SDK: not in -short mode")
	}
	d, ok := sdks.SchemaSource()
	require.True(t, ok, "a recipe ships the runtime's schema")
	pins, err := sdks.LoadPins("../../fixtures/sdks.yaml")
	require.NoError(t, err)
	if _, err := sdks.CheckToolchain(d); err != nil {
		if slices.Contains(strings.Split(os.Getenv("CONFORMANCE_REQUIRE_SDKS"), ","), d.Name) {
			t.Fatalf("%s is required (CONFORMANCE_REQUIRE_SDKS) but unavailable: %v", d.Name, err)
		}
		t.Skipf("%s, whose preparation ships the schema, is unavailable here: %v", d.Name, err)
	}
	p := &sdks.Preparer{RepoRoot: "../..", CacheRoot: sdks.DefaultCacheRoot(), Log: io.Discard}
	prep, err := p.Prepare(context.Background(), d.Name, pins[d.Name].Version, "")
	require.NoError(t, err)
	dir, err := d.Schema(prep.CacheDir)
	require.NoError(t, err, "the pinned %s %s ships api.schema.json", d.Name, pins[d.Name].Version)
	v, err := Load(filepath.Join(dir, "api.schema.json"))
	require.NoError(t, err)
	assert.Greater(t, v.Methods(), 100)
	got := v.Check("session.tools.set", json.RawMessage(`{"sessionId":"s","tools":[{"name":"a","description":"d","is_terminal":true}]}`))
	require.NotEmpty(t, got)
	assert.Equal(t, "/tools/0", got[0].Pointer)
	assert.Contains(t, got[0].Message, "is_terminal")
}
