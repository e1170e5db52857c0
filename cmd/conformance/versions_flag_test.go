package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestVersionLists(t *testing.T) {
	got, err := versionLists([]string{"node=1.0.5,1.0.8", "node=1.0.14,1.0.8", "go=v1.0.9"})
	require.NoError(t, err)
	assert.Equal(t, map[string][]string{"node": {"1.0.5", "1.0.8", "1.0.14"}, "go": {"v1.0.9"}}, got)

	for _, bad := range []string{"node", "node=", "=1.0.8", "node=1.0.8,", "go=latest", "cobol=1.0"} {
		_, err := versionLists([]string{bad})
		assert.Error(t, err, bad)
	}
}
