//go:build linux

package procgroup

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/procgroup/subreaper"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// helperEnv makes the test binary act as a harness that starts a build step and blocks (for the
// kill -9 case).
const helperEnv = "PROCGROUP_TEST_HARNESS"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) != "" {
		cmd := Command(context.Background(), "sh", "-c", "sleep 300 & sleep 300")
		if err := cmd.Start(); err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		fmt.Println("started")
		_ = Wait(cmd)
		os.Exit(0)
	}
	// Every test here looks for processes left behind: orphans must come to this process.
	if err := subreaper.Become(); err != nil {
		fmt.Println("PR_SET_CHILD_SUBREAPER:", err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// TestNothingLeftBehind: a build step that starts children which outlive it leaves none running,
// whichever way it ends.
func TestNothingLeftBehind(t *testing.T) {
	for _, tc := range []struct {
		name   string
		script string
		cancel bool // the context ends (the harness is interrupted, a time-out) while it runs
		want   func(t *testing.T, err error)
	}{
		{name: "clean exit", script: "sleep 300 & sleep 300 & echo started", want: func(t *testing.T, err error) { assert.NoError(t, err) }},
		{name: "failed step", script: "sleep 300 & exit 3", want: func(t *testing.T, err error) {
			var ee *exec.ExitError
			require.True(t, errors.As(err, &ee), "%v", err)
			assert.Equal(t, 3, ee.ExitCode())
		}},
		{name: "interrupted", script: "sh -c 'sleep 300 & sleep 300' & sleep 300", cancel: true, want: func(t *testing.T, err error) { assert.Error(t, err) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			cmd := Command(ctx, "sh", "-c", tc.script)
			require.NoError(t, cmd.Start())
			if tc.cancel {
				time.Sleep(200 * time.Millisecond) // its children have started
				require.NotEmpty(t, subreaper.Alive())
				cancel()
			}
			tc.want(t, Wait(cmd))
			assert.Empty(t, subreaper.Settled(5*time.Second), "processes left behind")
		})
	}
}

// TestHarnessKilled: kill -9 of the harness during a build step ends the step and its children
// (the supervisor is told by PR_SET_PDEATHSIG).
func TestHarnessKilled(t *testing.T) {
	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"=1")
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	line, _ := bufio.NewReader(out).ReadString('\n')
	require.Equal(t, "started", strings.TrimSpace(line))
	time.Sleep(200 * time.Millisecond)
	require.GreaterOrEqual(t, len(subreaper.Alive()), 4, "the harness, the supervisor, the step and its child")
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	_ = cmd.Wait()
	assert.Empty(t, subreaper.Settled(5*time.Second), "processes left behind by a killed harness")
}

// TestTransparent: the supervisor passes stdin, output and the exit (status or signal) through.
func TestTransparent(t *testing.T) {
	cmd := Command(context.Background(), "cat")
	cmd.Stdin = strings.NewReader("through stdin")
	out, err := Output(cmd)
	require.NoError(t, err)
	assert.Equal(t, "through stdin", string(out))

	err = Run(Command(context.Background(), "sh", "-c", "kill -KILL $$"))
	assert.EqualError(t, err, "signal: killed")

	err = Run(Command(context.Background(), "no-such-command-procgroup"))
	assert.ErrorIs(t, err, exec.ErrNotFound)
}

// TestEnvironmentKeptExactly: the supervising shell neither drops a variable whose name is not a
// shell identifier nor adds PWD: the command sees exactly the environment it was given.
func TestEnvironmentKeptExactly(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  []string
	}{
		{name: "identifiers only", env: []string{"A=1", "PWD=/"}},
		{name: "names a shell drops", env: []string{"A=1", "α-one=Grüße", "kéy-env=x y", "-two=3", "1x=4"}},
		{name: "no PWD", env: []string{"B=2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := Command(context.Background(), "env", "-0")
			cmd.Env = tc.env
			cmd.Dir = "/"
			out, err := Output(cmd)
			require.NoError(t, err)
			got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
			assert.ElementsMatch(t, tc.env, got)
		})
	}
}
