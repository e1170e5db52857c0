package steps

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/copilot-sdk-conformance/conformance/internal/driver"
	"github.com/copilot-sdk-conformance/conformance/steps/scenario"
	"github.com/copilot-sdk-conformance/conformance/steps/scenario/scenariotest"
)

// The code and data the application read from the SDK's error pass only when they are the ones
// the runtime answered: a wrong or dropped code, dropped or altered data, and a driver that
// declared error.rpc.code but reported no code each fail, naming what.
func TestErrorCarriedCodeAndData(t *testing.T) {
	const data = `{"reason":"conformance","detail":{"n":1.5,"list":[null,"é"]}}`
	tests := []struct {
		name     string
		response string // the driver's answer to the tried call
		code     string // "" passes
		data     string // "" passes
	}{
		{name: "code and data as answered, keys in another order",
			response: `{"id":1,"outcome":"error","error":{"type":"ResponseError","message":"m","code":-32603,"data":{"detail":{"list":[null,"é"],"n":1.5},"reason":"conformance"}}}`},
		{name: "another code",
			response: `{"id":1,"outcome":"error","error":{"type":"E","message":"m","code":-32000,"data":` + data + `}}`,
			code:     "with the code -32000, want -32603"},
		{name: "the SDK dropped the code and the data",
			response: `{"id":1,"outcome":"error","error":{"type":"E","message":"m","code":null,"data":null}}`,
			code:     "carries no JSON-RPC code", data: "carries no JSON-RPC code"},
		{name: "the SDK dropped the data",
			response: `{"id":1,"outcome":"error","error":{"type":"E","message":"m","code":-32603,"data":null}}`,
			data:     "without the error's data"},
		{name: "the SDK altered the data",
			response: `{"id":1,"outcome":"error","error":{"type":"E","message":"m","code":-32603,"data":{"reason":"conformance","detail":{"n":1,"list":[null,"é"]}}}}`,
			data:     "with the data"},
		{name: "the driver reported no code although it declared error.rpc.code",
			response: `{"id":1,"outcome":"error","error":{"type":"E","message":"m"}}`,
			code:     "driver fault: the fake driver declared error.rpc.code but reported no code", data: "driver fault"},
		{name: "the call returned",
			response: `{"id":1,"outcome":"ok","result":{}}`,
			code:     "want it to raise an error", data: "want it to raise an error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r driver.Response
			require.NoError(t, json.Unmarshal([]byte(tt.response), &r))
			w := &world{Scenario: &scenario.Scenario{T: scenariotest.Target{Caps: map[string]bool{"error.rpc.code": true}}}, tried: &r}
			for _, c := range []struct {
				err  error
				want string
			}{
				{w.errorCarriedCode(-32603), tt.code},
				{w.errorCarriedData(data), tt.data},
			} {
				if c.want == "" {
					assert.NoError(t, c.err)
				} else if assert.Error(t, c.err) {
					assert.Contains(t, c.err.Error(), c.want)
				}
			}
		})
	}
}
