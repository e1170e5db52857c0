package steps

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEveryHandlerReached(t *testing.T) {
	tests := []struct {
		name string
		res  reached
		want string // "" when the check passes
	}{
		{name: "every handler reached", res: reached{registered: []string{"a", "b"}, by: map[string][]string{"a": {"m"}, "b": {"event e"}}}},
		{name: "a handler nothing reached", res: reached{registered: []string{"a", "b"}, by: map[string][]string{"a": {"m"}}, triggers: 3},
			want: "no runtime-to-SDK method or event of the schema reached it (3 sent, each once with its required params): b"},
		{name: "a handler the driver kept is its own", res: reached{registered: []string{"a", "b"}, by: map[string][]string{"a": {"m"}}, kept: map[string]bool{"b": true}}},
		{name: "a call of a handler that was not registered", res: reached{registered: []string{"a"}, by: map[string][]string{"a": {"m"}, "z": {"m"}}},
			want: "calls of handlers that were not registered: z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := &world{surfaceReached: &tt.res}
			err := w.everyHandlerReached()
			if tt.want == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
	assert.Error(t, (&world{}).everyHandlerReached(), "no sweep ran: nothing was checked")
}

func TestRequestOf(t *testing.T) {
	for event, want := range map[string]string{
		"user_input.requested":               "userInput.request",
		"exit_plan_mode.requested":           "exitPlanMode.request",
		"elicitation.requested":              "elicitation.request",
		"session_limits_exhausted.requested": "sessionLimitsExhausted.request",
		"user_input.completed":               "",
		".requested":                         "",
	} {
		got, ok := requestOf(event)
		assert.Equal(t, want != "", ok, event)
		assert.Equal(t, want, got, event)
	}
}
