package jsondiff

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
)

func TestDiffScrubbedString(t *testing.T) {
	transcript.AddSecret("key1-732") // found under a credential key by another scenario
	recorded := transcript.Redacted("key1-732") + "8"
	tests := []struct {
		name      string
		want, got any
		same      bool
	}{
		{"the recording scrubbed a secret out of what arrived", "key1-7328", recorded, true},
		{"the recording scrubbed a secret out of what was sent", recorded, "key1-7328", true},
		{"another string with the same secret in it", "key1-7329", recorded, false},
		{"no redaction", "key1-7328", "key1-7329", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.same, len(Diff(tt.want, tt.got, "")) == 0)
		})
	}
}
