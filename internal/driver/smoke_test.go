package driver

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Drivers broken on purpose: smoke must fail with a message that says what is wrong.
func TestSmokeNamesWhatIsBroken(t *testing.T) {
	hello := func(result string) string {
		return `read l; echo '{"id":1,"outcome":"ok","result":` + result + `}'; read l`
	}
	tests := []struct {
		name, script, want string
	}{
		{"no answer at all", `read l; exit 0`, "driver crashed during \"hello\""},
		{"empty version", hello(`{"protocolVersion":1,"sdk":"node","version":"","capabilities":{}}`), "version is empty"},
		{"wrong protocol", hello(`{"protocolVersion":2,"sdk":"node","version":"1","capabilities":{}}`), "protocolVersion is 2, want 1"},
		{"wrong sdk", hello(`{"protocolVersion":1,"sdk":"go","version":"1","capabilities":{}}`), `sdk is "go", want "node"`},
		{"no tcp", hello(`{"protocolVersion":1,"sdk":"node","version":"1","capabilities":{"transport.tcp":false}}`), "cannot connect over TCP"},
		{"unsupported connect", `read l; echo '{"id":1,"outcome":"ok","result":{"protocolVersion":1,"sdk":"node","version":"1","capabilities":{"transport.tcp":true}}}'; read l; echo '{"id":2,"outcome":"unsupported","reason":"no"}'; read l`,
			"connect answered unsupported"},
		{"connects nowhere", `read l; echo '{"id":1,"outcome":"ok","result":{"protocolVersion":1,"sdk":"node","version":"1","capabilities":{"transport.tcp":true}}}'; read l; echo '{"id":2,"outcome":"ok","result":{}}'; read l`,
			"no connect request reached the runtime"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			err := Smoke(context.Background(), Local{Argv: []string{"sh", "-c", tt.script}}, "node", 3*time.Second, nil, &out)
			require.Error(t, err)
			assert.Contains(t, err.Error()+out.String(), tt.want)
			assert.Contains(t, out.String(), "FAIL")
		})
	}
}
