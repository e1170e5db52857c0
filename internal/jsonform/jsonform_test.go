package jsonform

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEncode(t *testing.T) {
	tests := []struct {
		name string
		in   string
		form Form
		want string
		n    Tally
	}{
		{"integers as floats", `{"a":5,"b":[-3,0],"c":0.125,"d":1e21}`, Floats, `{"a":5.0,"b":[-3.0,0.0],"c":0.125,"d":1e21}`, Tally{Numbers: 3}},
		{"exponents", `{"a":5,"b":[-1234,0],"c":0.000125,"d":12.50}`, Exponents, `{"a":5e0,"b":[-1.234e+3,0e0],"c":1.25e-4,"d":1.25e+1}`, Tally{Numbers: 5}},
		{"exponent of an exponent", `[1e21,2.5E-3,100]`, Exponents, `[1e+21,2.5e-3,1e+2]`, Tally{Numbers: 3}},
		{"an integer beyond 2^53 keeps every digit", `9007199254740993`, Exponents, `9.007199254740993e+15`, Tally{Numbers: 1}},
		{"escapes and keys reversed", `{"a/b":"é/x","b":"🚀","c":"","d":"q\"\\","e":"<&>","f":"plain"}`, Escapes,
			`{"f":"plain","e":"\u003c\u0026\u003e","d":"q\"\\","c":"","b":"\ud83d\ude80","a\/b":"\u00e9\/x"}`, Tally{Strings: 5, Objects: 1}},
		{"nothing to change", `[true,null,"x"]`, Floats, `[true,null,"x"]`, Tally{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, n, err := Reencode([]byte(tt.in), tt.form)
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(got))
			assert.Equal(t, tt.n, n)
			// The same value: decoded, both are equal (numbers by their exact literal value).
			assert.Equal(t, decode(t, tt.in), decode(t, string(got)))
		})
	}
}

// Every form of a generated-looking value decodes to the value encoding/json gives.
func TestEveryFormIsTheSameValue(t *testing.T) {
	v := map[string]any{"count": int64(42), "ratio": 0.5, "big": int64(1) << 60, "name": "Grüße, 世界 ✓ 🚀", "path": "/a/b",
		"list": []any{int64(1), map[string]any{"z": int64(0), "y": "https://example.invalid/p?q=1&r=<2>"}}, "none": nil}
	canonical, err := json.Marshal(v)
	require.NoError(t, err)
	for _, f := range Forms {
		got, n, err := Encode(v, f)
		require.NoError(t, err, f)
		assert.NotEqual(t, string(canonical), string(got), f)
		assert.Positive(t, n.Fields(), f)
		assert.Equal(t, decode(t, string(canonical)), decode(t, string(got)), f)
	}
	_, _, err = Encode(v, "nope")
	assert.ErrorContains(t, err, `no form "nope"`)
}

// decode reads JSON with numbers as exact rationals' text (json.Number normalised through
// exponent), so that 5, 5.0 and 5e0 compare equal and 2^60+1 is not rounded.
func decode(t *testing.T, s string) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader([]byte(s)))
	d.UseNumber()
	var v any
	require.NoError(t, d.Decode(&v))
	return norm(v)
}

func norm(v any) any {
	switch v := v.(type) {
	case json.Number:
		return exponent(string(v))
	case []any:
		for i := range v {
			v[i] = norm(v[i])
		}
	case map[string]any:
		for k := range v {
			v[k] = norm(v[k])
		}
	}
	return v
}
