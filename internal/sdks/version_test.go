package sdks

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCheckVersion(t *testing.T) {
	tests := []struct {
		sdk, version string
		ok           bool
	}{
		{"node", "1.0.14", true},
		{"node", "1.0.15-preview.4", true},
		{"node", "1.0.14; touch x", false},
		{"node", "^1.0.0", false},
		{"node", "latest", false},
		{"node", "1.0", false},
		{"node", "v1.0.14", false},
		{"go", "v1.0.14", true},
		{"go", "1.0.14", true},
		{"go", "v1.0.15-preview.1", true},
		{"go", "v1.0.14 && rm -rf /", false},
		{"go", "master", false},
		{"python", "1.0.27", true},
		{"python", "1.1.0rc1", true},
		{"python", "2.0.post1", true},
		{"python", "1.0.0.dev3", true},
		{"python", "1!2.0", true},
		{"python", "../../etc", false},
		{"python", "1.0+local", false},
		{"python", "1.0.27 ", false},
		{"rust", "1.0.28", true},
		{"rust", "1.0.28-beta.1+build.5", true},
		{"rust", "=1.0.28", false},
		{"java", "0.3.0-java.2", true},
		{"java", "1.0.11", true},
		{"java", "1.0.12-SNAPSHOT", true},
		{"java", "../1.0", false},
		{"java", "1..0", false},
		{"java", "1.0/../../x", false},
		{"dotnet", "1.0.11", true},
		{"dotnet", "1.0.0.1", true},
		{"dotnet", "1.0.12-preview.1", true},
		{"dotnet", "1.0.0.0.0", false},
		{"dotnet", "1.0;x", false},
		{"cobol", "1.0.0", false},
	}
	for _, tt := range tests {
		err := CheckVersion(tt.sdk, tt.version)
		if tt.ok {
			assert.NoError(t, err, "%s=%s", tt.sdk, tt.version)
		} else {
			assert.Error(t, err, "%s=%s", tt.sdk, tt.version)
		}
	}
}

// TestPinsHaveValidVersions: every pinned version passes its own registry's syntax.
func TestPinsHaveValidVersions(t *testing.T) {
	pins, err := LoadPins("../../fixtures/sdks.yaml")
	assert.NoError(t, err)
	for name, p := range pins {
		assert.NoError(t, CheckVersion(name, p.Version), name)
	}
}
