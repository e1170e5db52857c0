//go:build linux

package driver

import (
	"context"
	"testing"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/procgroup/subreaper"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// leavingDriver is a driver that starts a child of its own (as a JVM or a spawned runtime
// would), answers every command ok and exits cleanly when its stdin closes, or, "stubborn",
// ignores the end of its stdin and never exits.
const leavingDriver = `sleep 300 >/dev/null 2>&1 &
while read -r line; do
  id=$(printf '%s' "$line" | sed 's/.*"id":\([0-9]*\).*/\1/')
  printf '{"id":%s,"outcome":"ok","result":{}}\n' "$id"
done
[ "$1" = stubborn ] && sleep 300
exit 0`

// TestNothingLeftByADriver: whether the driver shuts down cleanly or must be killed, nothing it
// started survives Close (the test process is a subreaper, so an orphan would be found).
func TestNothingLeftByADriver(t *testing.T) {
	require.NoError(t, subreaper.Become())
	for _, mode := range []string{"clean", "stubborn"} {
		t.Run(mode, func(t *testing.T) {
			c, err := Start(context.Background(), Local{Argv: []string{"sh", "-c", leavingDriver, "driver", mode}, Dir: t.TempDir()})
			require.NoError(t, err)
			_, err = c.Call(context.Background(), "hello", nil, 10*time.Second)
			require.NoError(t, err)
			require.NotEmpty(t, subreaper.Alive())
			c.Close(time.Second)
			<-c.Done()
			assert.Empty(t, subreaper.Settled(5*time.Second), "processes left behind by the driver")
		})
	}
}
