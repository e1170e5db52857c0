//go:build unix && !linux

package procgroup

import "syscall"

// deathSignal: only Linux has PR_SET_PDEATHSIG; elsewhere a kill -9 of the harness leaves the
// group to end on its own (a driver ends when its stdin closes).
func deathSignal(*syscall.SysProcAttr) {}

// waitExited: without waitid's WNOWAIT the group is killed once exec.Cmd has reaped the leader.
func waitExited(int) bool { return false }

// groupNice is the lowest niceness in the process group pgid (getpriority answers it as is here).
func groupNice(pgid int) (int, error) { return syscall.Getpriority(syscall.PRIO_PGRP, pgid) }
