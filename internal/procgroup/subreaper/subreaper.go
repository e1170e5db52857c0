//go:build linux

// Package subreaper lets a test see every process a run left behind: the test process becomes a
// child subreaper (Linux's PR_SET_CHILD_SUBREAPER), so an orphaned descendant is re-parented to
// it instead of to init, and Alive lists every live descendant by walking /proc.
package subreaper

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Become makes the calling process a child subreaper.
func Become() error {
	return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
}

// Alive lists the calling process's live descendants (zombies, which are dead, excepted) as
// "pid: command line".
func Alive() []string {
	type proc struct {
		ppid  int
		state string
	}
	procs := map[int]proc{}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, f := range stats {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...; comm may hold spaces and parentheses.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(s[i+1:])
		if len(fields) < 2 {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(f)))
		ppid, _ := strconv.Atoi(fields[1])
		procs[pid] = proc{ppid: ppid, state: fields[0]}
	}
	self := os.Getpid()
	var out []string
	for pid, p := range procs {
		if p.state == "Z" || pid == self {
			continue
		}
		for up, seen := p.ppid, 0; up > 1 && seen < 64; up, seen = procs[up].ppid, seen+1 {
			if up == self {
				cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
				out = append(out, fmt.Sprintf("%d: %s", pid, strings.TrimSpace(strings.ReplaceAll(string(cmdline), "\x00", " "))))
				break
			}
		}
	}
	return out
}

// Settled is Alive once it is empty, or after wait: a group killed by a signal takes a moment
// to be gone from /proc.
func Settled(wait time.Duration) []string {
	deadline := time.Now().Add(wait)
	for {
		left := Alive()
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(50 * time.Millisecond)
	}
}
