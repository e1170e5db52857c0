package container

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/driver"
	"github.com/copilot-sdk-conformance/conformance/internal/sdks"
	"github.com/ory/dockertest/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// engine connects to the engine at $DOCKER_HOST; without one the test is skipped, unless
// CONFORMANCE_REQUIRE_DOCKER=1 (CI) makes that a failure.
func engine(t *testing.T) *dockertest.Pool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	pool, err := Connect(ctx)
	if err != nil {
		if os.Getenv("CONFORMANCE_REQUIRE_DOCKER") == "1" {
			t.Fatalf("CONFORMANCE_REQUIRE_DOCKER=1: %v", err)
		}
		t.Skipf("%v (set CONFORMANCE_REQUIRE_DOCKER=1 to fail instead)", err)
	}
	return pool
}

// TestGoDriverInContainer builds the Go driver's image on the local bases (reused when built
// before) and talks the driver protocol with it through the container launcher; then checks that
// a finished and a killed driver leave nothing of their run behind.
func TestGoDriverInContainer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds images")
	}
	pool := engine(t)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	pins, err := sdks.LoadPins(filepath.Join(root, "fixtures", "sdks.yaml"))
	require.NoError(t, err)
	version := pins["go"].Version

	logw := testWriter{t}
	bases := &Bases{RepoRoot: root, WorkDir: filepath.Join(sdks.DefaultCacheRoot(), "docker"), Log: logw}
	require.NoError(t, bases.Ensure(ctx, pool, []string{"go"}))
	args, _ := LocalBuildArgs("go")
	tag, err := DriverImage{SDK: "go", Version: version, RepoRoot: root, BuildArgs: args, Log: logw}.Ensure(ctx, pool)
	require.NoError(t, err)

	runID := fmt.Sprintf("test-%d", time.Now().UnixNano())
	t.Cleanup(func() { _ = Cleanup(pool, runID) })
	l := &Launcher{Pool: pool, Image: tag, SDK: "go", RunID: runID}

	c, err := driver.Start(ctx, l)
	require.NoError(t, err)
	res, err := c.Call(ctx, "hello", map[string]any{"protocolVersion": 1}, time.Minute)
	require.NoError(t, err)
	require.Equal(t, driver.OK, res.Outcome, "hello: %s; stderr: %s", res.Result, c.StderrTail())
	var hello struct {
		SDK     string `json:"sdk"`
		Version string `json:"version"`
	}
	require.NoError(t, json.Unmarshal(res.Result, &hello))
	assert.Equal(t, "go", hello.SDK)
	assert.Equal(t, version, hello.Version)
	c.Close(10 * time.Second)
	assertNoLeftovers(t, pool, runID)

	// A driver killed mid-run (a crash, or the harness giving up on it) is removed too.
	c, err = driver.Start(ctx, l)
	require.NoError(t, err)
	_, err = c.Call(ctx, "hello", map[string]any{"protocolVersion": 1}, time.Minute)
	require.NoError(t, err)
	c.Kill()
	assertNoLeftovers(t, pool, runID)
}

func assertNoLeftovers(t *testing.T, pool *dockertest.Pool, runID string) {
	t.Helper()
	// Removal by the engine's auto-remove is asynchronous.
	var left []Leftover
	for i := 0; i < 50; i++ {
		var err error
		left, err = Leftovers(pool, runID)
		require.NoError(t, err)
		if len(left) == 0 {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("run %s left %v", runID, left)
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(b []byte) (int, error) { w.t.Log(string(b)); return len(b), nil }
