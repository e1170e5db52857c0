package canon

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestDefaults(t *testing.T) {
	tests := []struct{ name, method, in, want string }{
		{"null allowlist is absent", "session.create", `{"availableTools":null,"model":"m"}`, `{"model":"m"}`},
		{"empty allowlist is kept", "session.create", `{"availableTools":[]}`, `{"availableTools":[]}`},
		{"handler flags false are absent", "session.resume", `{"requestElicitation":false,"hooks":false,"requestUserInput":true}`, `{"requestUserInput":true}`},
		{"disableResume false is absent", "session.resume", `{"disableResume":false}`, `{}`},
		{"empty denylist on create is absent", "session.create", `{"excludedTools":[],"disabledSkills":[]}`, `{}`},
		{"empty denylist on resume is kept", "session.resume", `{"excludedTools":[]}`, `{"excludedTools":[]}`},
		{"streaming false is kept", "session.create", `{"streaming":false}`, `{"streaming":false}`},
		{"sub-agent events stay normative", "session.create", `{"includeSubAgentStreamingEvents":true}`, `{"includeSubAgentStreamingEvents":true}`},
		{"other methods untouched", "session.options.update", `{"excludedTools":[],"hooks":false}`, `{"excludedTools":[],"hooks":false}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, decode(t, tt.want), Defaults(tt.method, decode(t, tt.in)))
		})
	}
}
