//go:build unix

package procgroup

import (
	"os/exec"
	"syscall"
)

// script is the supervisor: it runs the command in the background (stdin kept through fd 3:
// a background command's own stdin is /dev/null, and a driver reads it) and waits; told SIGTERM (its parent died: PR_SET_PDEATHSIG on Linux) it kills its whole
// group, itself included. A command killed by a signal is passed on as that signal, so the
// harness reads "signal: killed" and not the shell's 128+n.
//
// A shell, not a Go helper: the harness may run as a test binary or a `go run` build that
// cannot re-execute itself as a supervisor, and every unix has /bin/sh.
const script = `trap 'kill -KILL 0' TERM
exec 3<&0
"$@" <&3 3<&- &
exec 3<&-
wait $!
s=$?
if [ "$s" -gt 128 ]; then trap - TERM; kill -$((s - 128)) $$; fi
exit $s`

func supervise(cmd *exec.Cmd) {
	if cmd.Err != nil { // not found: Start reports it
		return
	}
	cmd.Args = append([]string{"sh", "-c", script, "sh", cmd.Path}, cmd.Args[1:]...)
	cmd.Path = "/bin/sh"
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	deathSignal(cmd.SysProcAttr)
	cmd.Cancel = func() error { Kill(cmd); return nil }
	if cmd.WaitDelay == 0 {
		cmd.WaitDelay = waitDelay
	}
}

// Kill kills cmd's whole process group at once.
func Kill(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	_ = cmd.Process.Kill()
}
