//go:build unix

package main

import "syscall"

// execProcess replaces this process with bin.
func execProcess(bin string, argv, env []string) error { return syscall.Exec(bin, argv, env) }
