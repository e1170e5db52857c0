//go:build unix

package campaign

import (
	"syscall"
	"time"
)

// selfCPU is this process's user+system CPU time so far (its own threads, not its children's).
func selfCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
