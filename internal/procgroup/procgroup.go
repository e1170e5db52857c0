// Package procgroup starts the harness's child processes (build steps, drivers) so that nothing
// they start outlives them: each runs in a process group of its own, led by a small supervising
// shell, and the whole group is killed on every way out:
//
//   - the context ends (the harness is interrupted, a step times out): Cmd.Cancel kills the group;
//   - the command exits, cleanly or not: Wait kills what is left of its group before reaping the
//     leader (so the group's id cannot have been reused);
//   - the harness dies without running any code (kill -9): on Linux the supervisor is told by
//     PR_SET_PDEATHSIG and kills its group.
//
// What cannot be covered: a descendant that leaves the group on purpose (setsid, setpgid: a
// daemon such as a Gradle or sccache server) and, off Linux, the harness's own kill -9.
package procgroup

import (
	"bytes"
	"context"
	"os/exec"
	"time"
)

// waitDelay bounds how long Wait waits for the command's output pipes once the group is killed
// (a descendant that left the group may still hold them).
const waitDelay = 10 * time.Second

// Command is exec.CommandContext(ctx, name, args...) whose process runs under a supervisor in a
// group of its own (see the package comment). Start it with Start, then end it with Wait (or use Run,
// Output, CombinedOutput from this package): exec.Cmd's own Wait would leave the group behind.
func Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	supervise(cmd)
	return cmd
}

// Start starts a command from Command with exactly the environment set on it (exec.Cmd's own
// Start would let the supervising shell change it: see envHop).
func Start(cmd *exec.Cmd) error {
	prestart(cmd)
	return cmd.Start()
}

// Run starts cmd and waits for it (Wait).
func Run(cmd *exec.Cmd) error {
	if err := Start(cmd); err != nil {
		return err
	}
	return Wait(cmd)
}

// Output runs cmd and returns its standard output.
func Output(cmd *exec.Cmd) ([]byte, error) {
	var out bytes.Buffer
	cmd.Stdout = &out
	err := Run(cmd)
	return out.Bytes(), err
}

// CombinedOutput runs cmd and returns its standard output and error together.
func CombinedOutput(cmd *exec.Cmd) ([]byte, error) {
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := Run(cmd)
	return out.Bytes(), err
}

// Wait waits for a command started from Command to exit, kills whatever is left of its group,
// then reaps it.
func Wait(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return cmd.Wait()
	}
	if waitExited(cmd.Process.Pid) {
		Kill(cmd)
		return cmd.Wait()
	}
	err := cmd.Wait()
	Kill(cmd)
	return err
}
