package encodings

import (
	"encoding/json"

	"testing"

	"github.com/copilot-sdk-conformance/conformance/internal/jsonform"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type observations map[string]string

func (o observations) Observe(key, value string) { o[key] = value }

// The scenario's output counts the members each form wrote differently, per value sent.
func TestEncodingTallyIsObserved(t *testing.T) {
	var tally Tally
	for _, v := range []any{map[string]any{"a": 1, "b": 2.5}, map[string]any{"c": []any{3}}, map[string]any{"s": "text"}} {
		_, _, err := tally.Encode(jsonform.Exponents, v)
		require.NoError(t, err)
	}
	_, ok, err := tally.Encode(jsonform.Floats, map[string]any{"s": "no numbers"})
	require.NoError(t, err)
	assert.False(t, ok, "nothing to send again as floats")
	tally = Tally{}
	for _, v := range []any{map[string]any{"a": 1, "b": 2.5}, map[string]any{"c": []any{3}}} {
		_, _, err := tally.Encode(jsonform.Exponents, v)
		require.NoError(t, err)
	}
	o := observations{}
	tally.Observe(o, "results")
	assert.Equal(t, "exponents: 3 numbers in 2 results", o["legal encodings tried"])
}

// A form other than the one counted starts the count again; a scenario that changed nothing
// says so; params are written in the scenario's form only when it has one.
func TestEncodingTallyRestartsAndWiresParams(t *testing.T) {
	var tally Tally
	o := observations{}
	tally.Observe(o, "events")
	assert.Equal(t, "none: no member of the events sent is written differently in this form", o["legal encodings tried"])

	params := map[string]any{"n": 5}
	assert.Equal(t, params, tally.Wire(params), "no form: as they are")
	tally.Params = jsonform.Floats
	assert.Equal(t, `{"n":5.0}`, string(tally.Wire(params).(json.RawMessage)))
	_, _, err := tally.Encode(jsonform.Exponents, map[string]any{"a": 1, "b": 2})
	require.NoError(t, err)
	tally.Observe(o, "values")
	assert.Equal(t, "exponents: 2 numbers in 1 values", o["legal encodings tried"])
	assert.Equal(t, jsonform.Floats, tally.Params, "the params' form outlives a new count")
}
