//go:build unix

package driver

import (
	"os/exec"
	"syscall"
)

// ownGroup puts the driver in its own process group so that killing it also ends the processes
// it started (a JVM, a spawned runtime) which would otherwise keep its stdout open.
func ownGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Process.Kill()
	}
}
