package harness

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/copilot-sdk-conformance/conformance/internal/driver"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
)

// TestClockSplitsSDKCalls: a scenario's commands split into connect, body and stop, and the
// drivers' start-up and CPU time summed from their usage.
func TestClockSplitsSDKCalls(t *testing.T) {
	dir := t.TempDir()
	var lines []string
	add := func(seq int, dir string, tms float64, frame string) {
		b, err := json.Marshal(transcript.Entry{Seq: seq, Dir: dir, Conn: "driver", TMS: tms, Frame: json.RawMessage(frame)})
		require.NoError(t, err)
		lines = append(lines, string(b))
	}
	cmd := func(seq, id int, name string, from, to float64) {
		add(seq, transcript.HarnessToDriver, from, `{"id":`+itoa(id)+`,"cmd":"`+name+`"}`)
		add(seq+1, transcript.DriverToHarness, to, `{"id":`+itoa(id)+`,"outcome":"ok"}`)
	}
	cmd(1, 1, "connect", 0, 30)
	cmd(3, 2, "createSession", 30, 40)
	cmd(5, 3, "send", 40, 45)
	cmd(7, 4, "stopClient", 45, 1045)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "s.ndjson"), []byte(strings.Join(lines, "\n")+"\n"), 0o644))

	c := &clock{sdk: "x", dir: dir, store: transcript.NewStore(dir)}
	c.scenario(time.Now(), 0, "s.ndjson")
	c.usage = []driver.Usage{
		{Startup: 400 * time.Millisecond, Life: 10 * time.Second, CPU: time.Second, HasCPU: true},
		{Startup: 600 * time.Millisecond}, // still running: no CPU time
	}
	got := c.summary(2)
	assert.Equal(t, 1045.0, got.SDKCallsMS)
	assert.Equal(t, []float64{30, 15, 1000}, []float64{got.ConnectMS, got.BodyMS, got.StopMS})
	assert.Equal(t, report.Stats{N: 2, P50: 400, P95: 600, Max: 600}, got.DriverStart)
	assert.Equal(t, 1, got.CPUDrivers)
	assert.Equal(t, 10000.0, got.DriverLifeMS)
	assert.Equal(t, 1000.0, got.DriverCPUMS)
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }
