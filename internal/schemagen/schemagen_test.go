package schemagen

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// schemaDir is where a prepared Node SDK holds the runtime's schemas (CONFORMANCE_SCHEMA_DIR),
// else the test uses the small schema in testdata.
func schemaDir(t *testing.T) string {
	if d := os.Getenv("CONFORMANCE_SCHEMA_DIR"); d != "" {
		return d
	}
	return "testdata"
}

func TestCasesValidateAndAreDeterministic(t *testing.T) {
	d, err := Load(schemaDir(t))
	require.NoError(t, err)
	require.NotEmpty(t, d.Methods)
	total, dropped := 0, 0
	for _, m := range d.Methods {
		cases, bad := d.Cases(m, 8)
		again, _ := d.Cases(m, 8)
		a, _ := json.Marshal(cases)
		b, _ := json.Marshal(again)
		assert.Equal(t, string(a), string(b), m.Name)
		for _, c := range cases {
			if c.Params != nil {
				assert.NoError(t, d.Validate(m.ptr+"/params", c.Params), "%s %s", m.Name, c.Name)
			}
		}
		total += len(cases)
		dropped += len(bad)
		for _, x := range bad {
			t.Logf("%s: dropped %s", m.Name, x)
		}
		_, err := d.Result(m)
		assert.NoError(t, err, m.Name)
	}
	for _, et := range d.EventTypes {
		for _, all := range []bool{false, true} {
			_, err := d.Event(et, et.Type, all)
			assert.NoError(t, err, et.Type)
		}
	}
	t.Logf("%d event types", len(d.EventTypes))
	t.Logf("%d methods, %d cases, %d dropped", len(d.Methods), total, dropped)
}
