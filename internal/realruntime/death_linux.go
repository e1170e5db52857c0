package realruntime

import "syscall"

// deathSignal has the kernel kill the runtime when the harness dies.
func deathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
