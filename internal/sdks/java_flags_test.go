package sdks

import (
	"encoding/json"
	"os"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The Java driver's image starts its JVM as the local launch does.
func TestJavaImageStartsTheJVMAsTheLocalLaunch(t *testing.T) {
	b, err := os.ReadFile("../../docker/java.Dockerfile")
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^ENTRYPOINT (\[.*\])$`).FindSubmatch(b)
	require.NotNil(t, m, "docker/java.Dockerfile has no ENTRYPOINT")
	var argv []string
	require.NoError(t, json.Unmarshal(m[1], &argv))
	want := append(append([]string{"java"}, javaFlags...), "-jar", "/driver/conformance-driver.jar")
	assert.Equal(t, want, argv)
}
