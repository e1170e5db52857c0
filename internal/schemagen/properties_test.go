package schemagen

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Properties reads a definition's property names from the schema itself (through a $ref).
func TestProperties(t *testing.T) {
	dir := t.TempDir()
	api := `{"definitions": {
		"Open": {"type": "object", "properties": {"model": {"type": "string"}, "coauthorEnabled": {"type": "boolean"}}},
		"Alias": {"$ref": "#/definitions/Open"},
		"Scalar": {"type": "string"}}}`
	require.NoError(t, os.WriteFile(filepath.Join(dir, apiFile), []byte(api), 0o644))
	events, err := os.ReadFile(filepath.Join("testdata", eventsFile))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, eventsFile), events, 0o644))
	d, err := Load(dir)
	require.NoError(t, err)
	tests := []struct {
		name string
		want []string
	}{
		{"Open", []string{"coauthorEnabled", "model"}},
		{"Alias", []string{"coauthorEnabled", "model"}},
		{"Scalar", nil},
		{"Missing", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, d.Properties(tt.name))
		})
	}
}
