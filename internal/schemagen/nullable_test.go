package schemagen

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNullable(t *testing.T) {
	d, err := Load("testdata")
	require.NoError(t, err)
	match := func(prop, seg string) bool { return strings.EqualFold(prop, seg) }
	tests := []struct {
		name            string
		def             string
		path            []string
		nullable, known bool
	}{
		{"through list items and a $ref", "ListResult", []string{"models", "price"}, true, true},
		{"the SDK's spelling of the name", "ListResult", []string{"Models", "Price"}, true, true},
		{"a member that may not be null", "ListResult", []string{"models", "id"}, false, true},
		{"through a map's values", "ListResult", []string{"labels"}, false, true},
		{"a path the schema does not define", "ListResult", []string{"models", "nope"}, false, false},
		{"a definition the schema lacks", "Nope", []string{"x"}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, k := d.Nullable(tt.def, tt.path, match)
			assert.Equal(t, []bool{tt.nullable, tt.known}, []bool{n, k})
		})
	}
}
