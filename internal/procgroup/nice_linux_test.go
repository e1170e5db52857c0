package procgroup

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNice: the niceness reaches the command itself, not only its supervising shell, and a child
// it starts afterwards inherits it.
func TestNice(t *testing.T) {
	dir := t.TempDir()
	cmd := Command(context.Background(), "sh", "-c", `sleep 0.3; sh -c 'echo $$ > child; sleep 5'`)
	cmd.Dir = dir
	require.NoError(t, Start(cmd))
	defer func() { Kill(cmd); _ = Wait(cmd) }()
	require.NoError(t, Nice(cmd, 7))
	got, err := groupNice(cmd.Process.Pid)
	require.NoError(t, err)
	assert.Equal(t, 7, got, "the group's lowest niceness, as Nice reads it to know it is done")
	var child []byte
	require.Eventually(t, func() bool {
		b, err := os.ReadFile(dir + "/child")
		child = b
		return err == nil && len(strings.TrimSpace(string(b))) > 0
	}, 5*time.Second, 20*time.Millisecond)
	for _, pid := range []string{strconv.Itoa(cmd.Process.Pid), strings.TrimSpace(string(child))} {
		stat, err := os.ReadFile("/proc/" + pid + "/stat")
		require.NoError(t, err)
		fields := strings.Fields(string(stat)[strings.LastIndexByte(string(stat), ')')+2:])
		assert.Equal(t, "7", fields[16], "nice of pid %s", pid) // field 19 of stat: nice
	}
}
