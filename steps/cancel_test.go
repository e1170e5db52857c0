package steps

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/copilot-sdk-conformance/conformance/internal/driver"
)

// A cancelled call passes only when it ended within the bound with the language's cancellation
// error: a call that returned anyway, raised something else, or ended late fails, naming what.
func TestJudgeCancelled(t *testing.T) {
	after, bound := 200*time.Millisecond, 2*time.Second
	tests := []struct {
		name string
		c    cancelled
		want string // "" passes
	}{
		{name: "cancelled in time", c: cancelled{outcome: driver.Error, took: 210 * time.Millisecond, errType: "deadlineExceededError", flagged: true}},
		{name: "returned a session", c: cancelled{outcome: driver.OK, took: 3 * time.Second}, want: "createSession returned although the application cancelled it after 200ms"},
		{name: "another error", c: cancelled{outcome: driver.Error, took: 300 * time.Millisecond, errType: "RuntimeError", message: "boom"}, want: `with RuntimeError "boom", not the language's cancellation error`},
		{name: "cancelled too late", c: cancelled{outcome: driver.Error, took: 3 * time.Second, errType: "TimeoutError", flagged: true}, want: "beyond the bound of 2s"},
		{name: "unsupported", c: cancelled{outcome: driver.Unsupported}, want: "createSession ended unsupported"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.c.after, tt.c.call = after, "createSession"
			err := judgeCancelled(tt.c, bound)
			if tt.want == "" {
				assert.NoError(t, err)
				return
			}
			if assert.Error(t, err) {
				assert.Contains(t, err.Error(), tt.want)
			}
		})
	}
}
