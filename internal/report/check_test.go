package report

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A check is typed in Go and "method:path" in results.json, as before the type existed.
func TestCheckIsMethodColonPathInJSON(t *testing.T) {
	r := Result{Checked: []Check{{Method: "session.create", Path: "tools[0].isTerminal"}, {Method: "session.create", Path: "**.a:b"}}}
	b, err := json.Marshal(r)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"checked":["session.create:tools[0].isTerminal","session.create:**.a:b"]`)
	var back Result
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, r.Checked, back.Checked, "a path with a colon survives: a method has none")
}

func TestTargetKey(t *testing.T) {
	res := &Results{SDKs: []SDK{{Name: "node", Version: "1.0.8"}, {Name: "node", Version: "1.0.14"}, {Name: "go", Version: "v1"}}}
	key := Keys(res)
	assert.Equal(t, TargetKey{SDK: "node", Version: "1.0.8"}, key("node", "1.0.8"))
	assert.Equal(t, "node@1.0.8", key("node", "1.0.8").String())
	assert.Equal(t, TargetKey{SDK: "go"}, key("go", "v1"), "one version of an SDK: keyed by the SDK alone")
}
