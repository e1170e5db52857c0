package procgroup

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// deathSignal asks the kernel to send the supervisor SIGTERM when the harness dies. The kernel
// ties it to the thread that started the child; the Go runtime does not end its threads (nothing
// in the harness locks one), so in practice that is the harness's life.
func deathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGTERM }

// waitExited returns once pid has exited (true), without reaping it: while it is a zombie its id
// cannot be given to another process, so killing the group by that id afterwards is safe.
func waitExited(pid int) bool {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != unix.EINTR {
			return err == nil
		}
	}
}

// groupNice is the lowest niceness in the process group pgid: Linux's getpriority system call
// answers 20 - nice (to stay positive), which Go's syscall.Getpriority passes on as it is.
func groupNice(pgid int) (int, error) {
	p, err := syscall.Getpriority(syscall.PRIO_PGRP, pgid)
	return 20 - p, err
}
