//go:build !unix

package main

import "errors"

// execProcess is for the Linux driver images only.
func execProcess(string, []string, []string) error {
	return errors.New("exec-driver runs in Linux driver images only")
}
