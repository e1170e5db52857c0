package jsondiff

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
)

// TestDiffStrings: a secret recorded by its fingerprint is the string sent; any other change to
// a string is a difference, a redaction inside a longer string too (the transcript scrubs only
// registered secrets, and a harness-generated string is never one: transcript.Generated).
func TestDiffStrings(t *testing.T) {
	tests := []struct {
		name      string
		want, got any
		same      bool
	}{
		{"the same string", "key1-7328", "key1-7328", true},
		{"a secret recorded by its fingerprint", "planted-0046", transcript.Redacted("planted-0046"), true},
		{"a secret sent as recorded", transcript.Redacted("planted-0046"), "planted-0046", true},
		{"another secret's fingerprint", "planted-0047", transcript.Redacted("planted-0046"), false},
		{"a redaction inside a longer string", "key1-7328", transcript.Redacted("key1-732") + "8", false},
		{"the same instant written two ways", "2026-07-08T07:10:11Z", "2026-07-08T09:10:11+02:00", true},
		{"another string", "key1-7328", "key1-7329", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.same, len(Diff(tt.want, tt.got, "")) == 0)
		})
	}
}
