//go:build unix

package procgroup

import (
	"os/exec"
	"strings"
	"syscall"
	"time"
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

// prestart puts the env(1) hop before the command once its environment is known (callers set
// cmd.Env after Command).
func prestart(cmd *exec.Cmd) {
	if cmd.Path != "/bin/sh" || len(cmd.Args) < 5 || cmd.Args[2] != script {
		return
	}
	if hop := envHop(cmd); hop != nil {
		cmd.Args = append(append(append([]string{}, cmd.Args[:4]...), hop...), cmd.Args[4:]...)
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

// envHop gives the command exactly the environment it was given, through the supervising shell:
// a POSIX shell drops variables whose names are not shell identifiers (the surface probe's
// "α-one", "kéy-env") and adds PWD when it is missing, so the command is started through env(1)
// with those variables put back (and PWD taken out). Only such variables' values pass through
// env's arguments, for the moment before it execs the command; the usual environment does not.
// nil when the shell changes nothing (the common case) or there is no env(1).
func envHop(cmd *exec.Cmd) []string {
	var odd []string
	hasPWD := false
	for _, kv := range cmd.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if name == "PWD" {
			hasPWD = true
		}
		if !shellName(name) {
			odd = append(odd, kv)
		}
	}
	if len(odd) == 0 && hasPWD {
		return nil
	}
	env, err := exec.LookPath("env")
	if err != nil {
		return nil
	}
	hop := []string{env}
	if !hasPWD {
		hop = append(hop, "-u", "PWD")
	}
	return append(append(hop, "--"), odd...)
}

// shellName says whether a POSIX shell keeps a variable of this name in its environment.
func shellName(name string) bool {
	if name == "" || (name[0] >= '0' && name[0] <= '9') {
		return false
	}
	for _, c := range name {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// Nice sets the CPU niceness of a started command's whole process group to n (its children, and
// theirs, inherit it): a preparation that yields the cores to a longer one. An error (a harness
// already running nicer, which only root may undo) leaves the group as it was.
//
// One setpriority can miss a process the group is forking at that moment (the kernel copies the
// parent's niceness before the child joins the group's list), and that child's own children then
// inherit the old niceness: seen once in CI. So it is set again until the group's highest
// priority (getpriority over a group) is n, a few rounds at most.
func Nice(cmd *exec.Cmd, n int) error {
	if cmd.Process == nil {
		return nil
	}
	pid := cmd.Process.Pid
	for range 20 {
		if err := syscall.Setpriority(syscall.PRIO_PGRP, pid, n); err != nil {
			return err
		}
		if got, err := groupNice(pid); err != nil || got == n {
			return nil
		}
		time.Sleep(5 * time.Millisecond)
	}
	return nil
}
