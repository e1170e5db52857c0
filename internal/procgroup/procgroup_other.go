//go:build !unix

package procgroup

import "os/exec"

func supervise(cmd *exec.Cmd) {}

func prestart(cmd *exec.Cmd) {}

// Kill kills the process (no process groups here).
func Kill(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}

func waitExited(int) bool { return false }

// Nice does nothing here (no process groups to reprioritise).
func Nice(*exec.Cmd, int) error { return nil }
