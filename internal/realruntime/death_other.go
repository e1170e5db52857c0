//go:build !linux

package realruntime

import "syscall"

// deathSignal: only Linux has PR_SET_PDEATHSIG; elsewhere a runtime left by a killed harness
// ends when its connections close.
func deathSignal(*syscall.SysProcAttr) {}
