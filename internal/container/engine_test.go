package container

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/driver"
	"github.com/copilot-sdk-conformance/conformance/internal/sdks"
	"github.com/copilot-sdk-conformance/conformance/internal/standin"
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

// TestDriversInContainers builds driver images on the local bases (reused when built before) and
// talks the driver protocol with each through the container launcher; then checks that a finished
// and a killed driver leave nothing of their run behind. $CONFORMANCE_DOCKER_SDKS picks the SDKs
// (default go: its image builds in seconds; the Rust one takes minutes cold).
func TestDriversInContainers(t *testing.T) {
	if testing.Short() {
		t.Skip("builds images")
	}
	pool := engine(t)
	langs := []string{"go"}
	if v := os.Getenv("CONFORMANCE_DOCKER_SDKS"); v != "" {
		langs = strings.Split(v, ",")
	}
	for _, lang := range langs {
		t.Run(lang, func(t *testing.T) { driverInContainer(t, pool, lang) })
	}
}

func driverInContainer(t *testing.T, pool *dockertest.Pool, lang string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	pins, err := sdks.LoadPins(filepath.Join(root, "fixtures", "sdks.yaml"))
	require.NoError(t, err)
	version := pins[lang].Version

	logw := testWriter{t}
	bases := &Bases{RepoRoot: root, WorkDir: filepath.Join(sdks.DefaultCacheRoot(), "docker"), Log: logw}
	require.NoError(t, bases.Ensure(ctx, pool, []string{lang}))
	args, ok := LocalBuildArgs(lang)
	require.True(t, ok, "%s has no local base", lang)
	tag, err := DriverImage{SDK: lang, Version: version, RepoRoot: root, BuildArgs: args, Log: logw}.Ensure(ctx, pool)
	require.NoError(t, err)

	runID := fmt.Sprintf("test-%s-%d", lang, time.Now().UnixNano())
	t.Cleanup(func() { _ = Cleanup(pool, runID) })
	l := &Launcher{Pool: pool, Image: tag, SDK: lang, RunID: runID}

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
	assert.Equal(t, lang, hello.SDK)
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

// TestStdioRuntimeInContainer goes the way the harness does (NewRun, Launcher, Close): the Go SDK
// in its container spawns the harness's runtime over stdio as in the stdio scenarios. The wrapper
// script and its transcript live in a host folder mounted at the same path, and a static build of
// the harness is mounted at the path the script names (here one that exists only in the container).
// Close leaves nothing of the run; an SDK without a local base is unavailable.
func TestStdioRuntimeInContainer(t *testing.T) {
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
	bases := &Bases{RepoRoot: root, WorkDir: filepath.Join(sdks.DefaultCacheRoot(), "docker"), Log: testWriter{t}}
	require.NoError(t, bases.Ensure(ctx, pool, []string{"go"}))

	tmp := t.TempDir()
	self := []string{"/opt/harness/conformance", "runtime", "--stdio"} // not static here: NewRun builds one
	run, err := NewRun(ctx, RunConfig{RepoRoot: root, LocalBases: true, Self: self, StdioDir: tmp,
		CacheDir: t.TempDir(), Log: testWriter{t}})
	require.NoError(t, err)
	defer run.Close()

	_, err = run.Launcher(ctx, "dotnet", pins["dotnet"].Version, "", nil)
	var unavailable *sdks.Unavailable
	require.ErrorAs(t, err, &unavailable)
	assert.Contains(t, unavailable.Reason, "no local base image")

	l, err := run.Launcher(ctx, "go", pins["go"].Version, "", nil)
	require.NoError(t, err)
	script, transcript := filepath.Join(tmp, "copilot"), filepath.Join(tmp, "stdio-transcript.ndjson")
	require.NoError(t, standin.WriteStdioScript(script, self, transcript))
	c, err := driver.Start(ctx, l)
	require.NoError(t, err)
	res, err := c.Call(ctx, "connect", map[string]any{"client": "c1", "cliPath": script}, time.Minute)
	require.NoError(t, err)
	require.Equal(t, driver.OK, res.Outcome, "connect over stdio: %s %+v; stderr: %s", res.Result, res.Error, c.StderrTail())
	res, err = c.Call(ctx, "createSession", map[string]any{"client": "c1", "session": "s1", "tools": []any{}}, time.Minute)
	require.NoError(t, err)
	require.Equal(t, driver.OK, res.Outcome, "createSession over stdio: %+v; stderr: %s", res.Error, c.StderrTail())
	frames, err := os.ReadFile(transcript)
	require.NoError(t, err, "the runtime in the container writes its transcript to the host folder")
	assert.Contains(t, string(frames), "session.create")

	// Ends the run with the driver still up, as an interrupted run does.
	require.NoError(t, run.Close())
	assertNoLeftovers(t, pool, run.ID)
	c.Kill()
}

// TestCleanupRemovesTemporaryImages: an image built for one run only (a local SDK source) is
// removed with the run's containers.
func TestCleanupRemovesTemporaryImages(t *testing.T) {
	pool := engine(t)
	ctx := context.Background()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	bases := &Bases{RepoRoot: root, WorkDir: filepath.Join(sdks.DefaultCacheRoot(), "docker"), Log: testWriter{t}}
	require.NoError(t, bases.debian(ctx, pool))

	runID := fmt.Sprintf("test-tmp-%d", time.Now().UnixNano())
	tag := "conformance-test/" + runID + ":1"
	_, err = Ensure(ctx, pool, Build{Tag: tag, Text: "FROM " + DebianImage + "\nLABEL purpose=test\n", Key: runID, Kind: "test", RunID: runID})
	require.NoError(t, err)
	left, err := Leftovers(pool, runID)
	require.NoError(t, err)
	require.Len(t, left, 1)
	assert.Equal(t, "image", left[0].Kind)
	assert.Equal(t, tag, left[0].Name)

	require.NoError(t, Cleanup(pool, runID))
	_, err = pool.Client.InspectImage(tag)
	assert.Error(t, err, "the run's image is gone")
	_, err = pool.Client.InspectImage(DebianImage)
	assert.NoError(t, err, "its base stays")
}

// TestContainerGoesWhenTheHarnessDies: a harness killed outright (SIGKILL, no cleanup) leaves no
// container: its end closes the driver's stdin, the driver exits on EOF and the engine removes it.
func TestContainerGoesWhenTheHarnessDies(t *testing.T) {
	if os.Getenv("CONFORMANCE_TEST_HARNESS_CHILD") != "" {
		harnessChild()
		return
	}
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
	require.NoError(t, (&Bases{RepoRoot: root, WorkDir: filepath.Join(sdks.DefaultCacheRoot(), "docker"), Log: testWriter{t}}).Ensure(ctx, pool, []string{"go"}))
	args, _ := LocalBuildArgs("go")
	tag, err := DriverImage{SDK: "go", Version: pins["go"].Version, RepoRoot: root, BuildArgs: args, Log: testWriter{t}}.Ensure(ctx, pool)
	require.NoError(t, err)

	runID := fmt.Sprintf("test-kill-%d", time.Now().UnixNano())
	t.Cleanup(func() { _ = Cleanup(pool, runID) })
	child := exec.Command(os.Args[0], "-test.run", "^TestContainerGoesWhenTheHarnessDies$")
	child.Env = append(os.Environ(), "CONFORMANCE_TEST_HARNESS_CHILD="+tag, "CONFORMANCE_TEST_RUN_ID="+runID)
	stdout, err := child.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, child.Start())
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "driver up\n", line)
	left, err := Leftovers(pool, runID)
	require.NoError(t, err)
	require.Len(t, left, 1, "the driver's container runs")

	require.NoError(t, child.Process.Kill())
	_ = child.Wait()
	assertNoLeftovers(t, pool, runID)
}

// harnessChild starts a driver container, says so, and waits to be killed.
func harnessChild() {
	pool, err := Connect(context.Background())
	if err != nil {
		panic(err)
	}
	l := &Launcher{Pool: pool, Image: os.Getenv("CONFORMANCE_TEST_HARNESS_CHILD"), SDK: "go", RunID: os.Getenv("CONFORMANCE_TEST_RUN_ID")}
	c, err := driver.Start(context.Background(), l)
	if err != nil {
		panic(err)
	}
	if _, err := c.Call(context.Background(), "hello", map[string]any{"protocolVersion": 1}, time.Minute); err != nil {
		panic(err)
	}
	fmt.Println("driver up")
	time.Sleep(time.Hour)
}
