package main

import (
	"sync"
	"time"
)

// Handlers that wait for another tool's handler to return (PROTOCOL.md "Tool", waitFor): one
// channel per (session, tool), closed when that tool's handler returns.

// waitGiveUp bounds a wait, so that an SDK serving one call at a time still gets an answer (the
// harness reads the order of the answers on the wire, never this time).
const waitGiveUp = 5 * time.Second

var returned = struct {
	sync.Mutex
	m map[string]chan struct{}
}{m: map[string]chan struct{}{}}

func returnedGate(session, tool string) chan struct{} {
	returned.Lock()
	defer returned.Unlock()
	k := session + "\x00" + tool
	if returned.m[k] == nil {
		returned.m[k] = make(chan struct{})
	}
	return returned.m[k]
}

// markReturned records that the handler of tool has returned in session.
func markReturned(session, tool string) {
	ch := returnedGate(session, tool)
	returned.Lock()
	defer returned.Unlock()
	select {
	case <-ch:
	default:
		close(ch)
	}
}

// awaitReturned waits until the handler of tool has returned in session; false after waitGiveUp.
func awaitReturned(session, tool string) bool {
	select {
	case <-returnedGate(session, tool):
		return true
	case <-time.After(waitGiveUp):
		return false
	}
}
