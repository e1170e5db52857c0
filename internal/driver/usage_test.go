package driver

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestUsageAfterExit: a local driver's CPU time is known once it exited, not before; a driver
// that never answered hello has no start-up time.
func TestUsageAfterExit(t *testing.T) {
	c, err := Start(context.Background(), Local{Argv: []string{"sh", "-c", "read line; i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done"}})
	require.NoError(t, err)
	assert.False(t, c.Usage(0).HasCPU, "running: no CPU time yet")
	_, err = c.proc.Stdin().Write([]byte("go\n"))
	require.NoError(t, err)
	u := c.Usage(30 * time.Second)
	require.True(t, u.HasCPU)
	assert.Positive(t, u.CPU, "the busy loop used some CPU")
	assert.GreaterOrEqual(t, u.Life, u.CPU/2, "one single-threaded process: CPU time cannot exceed wall time by much")
	assert.Zero(t, u.Startup)
}
