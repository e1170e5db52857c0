package main

import (
	"encoding/json"
	"sync"
	"time"
)

// Held handlers (PROTOCOL.md "Holding a handler"): hold arms a gate per (handle, kind), a kind
// being a runtime-to-SDK method or "tool NAME"; a handler reached under an armed gate reports as
// usual, then waits until release closes it, as an application waiting on something slow does.
// holdGiveUp bounds the wait should the release never come.
const holdGiveUp = 30 * time.Second

var gates = struct {
	sync.Mutex
	m map[string]chan struct{}
}{m: map[string]chan struct{}{}}

type holdArgs struct {
	Session string `json:"session"`
	Client  string `json:"client"`
	Method  string `json:"method"`
	Tool    string `json:"tool"`
}

func (a holdArgs) keys() []string {
	kind := a.Method
	if kind == "" {
		kind = "tool " + a.Tool
	}
	var out []string
	for _, h := range []string{a.Session, a.Client} {
		if h != "" {
			out = append(out, h+"\x00"+kind)
		}
	}
	return out
}

func hold(raw json.RawMessage) (any, error) {
	a, err := decode[holdArgs](raw)
	if err != nil {
		return nil, err
	}
	gates.Lock()
	defer gates.Unlock()
	for _, k := range a.keys() {
		if gates.m[k] == nil {
			gates.m[k] = make(chan struct{})
		}
	}
	return map[string]any{}, nil
}

func release(raw json.RawMessage) (any, error) {
	a, err := decode[holdArgs](raw)
	if err != nil {
		return nil, err
	}
	gates.Lock()
	defer gates.Unlock()
	for _, k := range a.keys() {
		if ch := gates.m[k]; ch != nil {
			close(ch)
			delete(gates.m, k)
		}
	}
	return map[string]any{}, nil
}

// awaitHeld waits while a gate is armed for the handle and kind (not at all when none is).
func awaitHeld(handle, kind string) {
	gates.Lock()
	ch := gates.m[handle+"\x00"+kind]
	gates.Unlock()
	if ch == nil {
		return
	}
	select {
	case <-ch:
	case <-time.After(holdGiveUp):
	}
}
