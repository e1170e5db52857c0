package harness

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/copilot-sdk-conformance/conformance/internal/driver"
)

func TestCapabilityNamesWhatTheSDKLacks(t *testing.T) {
	hello := &driver.Hello{
		Capabilities: map[string]bool{"a": true, "noted": false, "symbol": false, "gap": false, "bare": false},
		Notes:        map[string]string{"a": "how a is done", "noted": "v1 has no X.Y"},
		Missing:      map[string]string{"noted": "X.Y", "symbol": "rpc.ToolsAPI.Set", "gap": "driver: no handler API on this version"},
	}
	tests := []struct {
		name, capability string
		has              bool
		note             string
	}{
		{"a capability it has keeps its note", "a", true, "how a is done"},
		{"a note says it first", "noted", false, "v1 has no X.Y"},
		{"else the missing symbol", "symbol", false, "the SDK has no rpc.ToolsAPI.Set"},
		{"a driver gap as the driver words it", "gap", false, "driver: no handler API on this version"},
		{"nothing to say", "bare", false, ""},
	}
	l := &lease{target: &target{hello: hello}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			has, note := l.Capability(tt.capability)
			assert.Equal(t, tt.has, has)
			assert.Equal(t, tt.note, note)
		})
	}
}
