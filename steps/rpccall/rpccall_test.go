package rpccall

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A generated secret's value (and so its fingerprint in the transcript) is the same in every
// run for the same method and place, and differs between places: two runs of one case pair
// their redacted values.
func TestSecretsApartIsStable(t *testing.T) {
	params := map[string]any{"apiKey": "x", "token": "x", "provider": map[string]any{"bearerToken": "x", "name": "n"},
		"headers": []any{map[string]any{"authToken": "x"}}}
	first := SecretsApart(params, "session.provider.add")
	for range 20 { // map order differs from call to call
		assert.Equal(t, first, SecretsApart(params, "session.provider.add"))
	}
	seen := map[string]bool{}
	for _, v := range []any{first["apiKey"], first["token"], first["provider"].(map[string]any)["bearerToken"], first["headers"].([]any)[0].(map[string]any)["authToken"]} {
		s := v.(string)
		assert.False(t, seen[s], "each secret its own value: %s", s)
		seen[s] = true
	}
	assert.Equal(t, "n", first["provider"].(map[string]any)["name"])
	assert.NotEqual(t, first["apiKey"], SecretsApart(params, "sessions.open")["apiKey"], "another method, another value")
}
