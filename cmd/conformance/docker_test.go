package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/container"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/ory/dockertest/v3"
	dc "github.com/ory/dockertest/v3/docker"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// dockerEngine connects to the engine at $DOCKER_HOST (.ci/run starts one); without one the test
// is skipped, unless CONFORMANCE_REQUIRE_DOCKER=1 makes that a failure.
func dockerEngine(t *testing.T) *dockertest.Pool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	pool, err := container.Connect(ctx)
	if err != nil {
		if os.Getenv("CONFORMANCE_REQUIRE_DOCKER") == "1" {
			t.Fatalf("CONFORMANCE_REQUIRE_DOCKER=1: %v", err)
		}
		t.Skipf("--runner docker not tested: %v (docker/engine.sh start; eval \"$(docker/engine.sh env)\"; or set CONFORMANCE_REQUIRE_DOCKER=1 to fail instead)", err)
	}
	return pool
}

var runIDLine = regexp.MustCompile(`runner docker: run (\S+)`)

// dockerRunID is the run id --runner docker prints (its containers carry it as a label).
func dockerRunID(t *testing.T, out string) string {
	m := runIDLine.FindStringSubmatch(out)
	require.NotNil(t, m, "the docker runner names its run:\n%s", out)
	return m[1]
}

// danglingProjectImages lists the dangling images of one run (its temporary images carry
// LabelRun). A shared driver image rebuilt under the same tag by another test package running at
// the same time (go test ./... runs packages in parallel) leaves the old one dangling too; that
// one is no leftover of the run under test, so images without the run's label are not counted.
func danglingProjectImages(t *testing.T, pool *dockertest.Pool, runID string) []string {
	imgs, err := pool.Client.ListImages(dc.ListImagesOptions{Filters: map[string][]string{"label": {container.LabelRun + "=" + runID}, "dangling": {"true"}}})
	require.NoError(t, err)
	var out []string
	for _, i := range imgs {
		out = append(out, i.ID)
	}
	return out
}

func assertRunLeftNothing(t *testing.T, pool *dockertest.Pool, runID string) {
	t.Helper()
	left, err := container.Leftovers(pool, runID)
	require.NoError(t, err)
	assert.Empty(t, left, "run %s left containers, networks or images", runID)
	assert.Empty(t, danglingProjectImages(t, pool, runID), "run %s left dangling images", runID)
}

// dockerSDKs are the SDKs the docker comparison runs: $CONFORMANCE_DOCKER_SDKS or go,python,node.
func dockerSDKs() string {
	if v := os.Getenv("CONFORMANCE_DOCKER_SDKS"); v != "" {
		return v
	}
	return "go,python,node"
}

// TestDockerRunnerMatchesLocal runs the suite with the drivers in containers (on the local base
// images: no registry here) and with local processes, and checks every (SDK, feature, scenario)
// has the same status, that the container runner really ran (an image per SDK), and that the run
// left no container, network or dangling image. Then it interrupts a docker run with SIGINT and
// checks that this run, too, leaves nothing.
func TestDockerRunnerMatchesLocal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds images and runs SDKs: not in -short mode")
	}
	pool := dockerEngine(t)
	bin := buildCLI(t)
	sdkList := dockerSDKs()
	code, out := runCLI(t, bin, "images", "--local-bases", "--sdk", sdkList)
	require.Equal(t, 0, code, "%s", out)

	local, docker := t.TempDir(), t.TempDir()
	localCode, localOut := runCLI(t, bin, "run", "--sdk", sdkList, "--report-dir", local)
	require.Less(t, localCode, 2, "%s", localOut)
	start := time.Now()
	dockerCode, dockerOut := runCLI(t, bin, "run", "--runner", "docker", "--local-bases", "--sdk", sdkList, "--report-dir", docker)
	t.Logf("--runner docker on %s took %s:\n%s", sdkList, time.Since(start).Round(time.Second), dockerOut)
	assert.Equal(t, localCode, dockerCode, "both runners exit alike")
	assertRunLeftNothing(t, pool, dockerRunID(t, dockerOut))

	want, err := report.ReadResults(filepath.Join(local, "results.json"))
	require.NoError(t, err)
	got, err := report.ReadResults(filepath.Join(docker, "results.json"))
	require.NoError(t, err)
	assert.Equal(t, "docker", got.Harness.Runner)
	for _, s := range got.SDKs {
		require.Equal(t, report.Available, s.Status, "%s in a container: %s", s.Name, s.Reason)
		require.NotEmpty(t, s.Toolchain, "%s names its image", s.Name)
		assert.True(t, strings.HasPrefix(s.Toolchain[0], "image conformance-driver/"+s.Name+":"), "%s ran from its driver image: %v", s.Name, s.Toolchain)
	}
	statuses := func(res *report.Results) map[string]string {
		m := map[string]string{}
		for _, r := range res.Results {
			m[r.SDK+": "+r.Feature+": "+r.Scenario] = r.Status
		}
		return m
	}
	assert.Equal(t, statuses(want), statuses(got), "the same status for every (SDK, feature, scenario)")
	assert.NotEmpty(t, got.Results)
	// CI shows what the container runner did (go test prints nothing of a passing test).
	if p := os.Getenv("CONFORMANCE_DOCKER_LOG"); p != "" && !t.Failed() {
		summary := fmt.Sprintf("--runner docker on %s: %d results, each with the local runner's status; took %s\n%s",
			sdkList, len(got.Results), time.Since(start).Round(time.Second), dockerOut)
		require.NoError(t, os.WriteFile(p, []byte(summary), 0o644))
	}

	t.Run("SIGINT", func(t *testing.T) {
		cmd := exec.Command(bin, "run", "--runner", "docker", "--local-bases", "--sdk", "go", "--report-dir", t.TempDir())
		cmd.Dir = repoDir(t)
		stdout, err := cmd.StdoutPipe()
		require.NoError(t, err)
		cmd.Stderr = cmd.Stdout
		require.NoError(t, cmd.Start())
		var lines []string
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines = append(lines, sc.Text())
			// Interrupt while the driver container runs scenarios.
			if strings.HasPrefix(sc.Text(), "[go] passed") {
				require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
				break
			}
		}
		for sc.Scan() {
			lines = append(lines, sc.Text())
		}
		_ = cmd.Wait()
		out := strings.Join(lines, "\n")
		assertRunLeftNothing(t, pool, dockerRunID(t, out))
	})
}
