package driver

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzDecodeLine feeds arbitrary driver stdout lines to the decoder (with the protocol schema
// on): it never panics, every line reaches the transcript, and a response is returned only for
// a JSON object with an integer id.
func FuzzDecodeLine(f *testing.F) {
	v, err := LoadValidator("../../drivers/protocol.schema.json")
	require.NoError(f, err)
	for _, s := range []string{
		`{"id":1,"outcome":"ok","result":{"driver":"node","sdkVersion":"1.0.14","protocolVersion":1,"capabilities":[]}}`,
		`{"id":2,"outcome":"error","error":{"type":"TypeError","message":"boom"}}`,
		`{"id":3,"outcome":"unsupported","reason":"no isTerminal"}`,
		`{"event":"tool.called","data":{"name":"x"}}`,
		`{"id":"1","outcome":"ok"}`,
		`hello from console.log`,
		`{"id":1e400}`,
		`[]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		l, r := decodeLine(line, v)
		if string(l.Body) != string(line) {
			t.Fatalf("the transcript line differs from the input")
		}
		if r != nil {
			var probe struct{ ID *int }
			if json.Unmarshal(line, &probe) != nil || probe.ID == nil {
				t.Fatalf("a response from a line without an integer id: %q", line)
			}
		}
	})
}
