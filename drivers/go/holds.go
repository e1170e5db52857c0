package main

import (
	"context"
	"encoding/json"
	"reflect"
	"sync"
	"time"

	copilot "github.com/github/copilot-sdk/go"
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
func awaitHeld(handle, kind string) { awaitHeldTold(handle, kind, nil, nil) }

// awaitHeldTold is awaitHeld for a handler the SDK can tell that its call was resolved (done
// closes): told runs the moment it is, and the handler goes on waiting for its release, so
// that the SDK's dropping of the late answer is judged too.
func awaitHeldTold(handle, kind string, done <-chan struct{}, told func()) {
	gates.Lock()
	ch := gates.m[handle+"\x00"+kind]
	gates.Unlock()
	if ch == nil {
		return
	}
	giveUp := time.After(holdGiveUp)
	for {
		select {
		case <-ch:
			return
		case <-giveUp:
			return
		case <-done:
			told()
			done = nil
		}
	}
}

// toolCancelWay is the field of copilot.ToolInvocation through which the SDK tells a tool
// handler that its call was resolved: the first of type context.Context, read by reflection
// (PROTOCOL.md "Holding a handler", capability handler.cancel.tool); "" when it has none.
var toolCancelWay = func() string {
	t := reflect.TypeOf(copilot.ToolInvocation{})
	ctx := reflect.TypeOf((*context.Context)(nil)).Elem()
	for i := 0; i < t.NumField(); i++ {
		if f := t.Field(i); f.IsExported() && f.Type == ctx {
			return f.Name
		}
	}
	return ""
}()

// toolCancelled is the channel that closes when the SDK tells the tool handler its call was
// resolved (nil when the invocation carries no context).
func toolCancelled(inv copilot.ToolInvocation) <-chan struct{} {
	if toolCancelWay == "" {
		return nil
	}
	if ctx, _ := reflect.ValueOf(inv).FieldByName(toolCancelWay).Interface().(context.Context); ctx != nil {
		return ctx.Done()
	}
	return nil
}

// requestWay is how the SDK could tell the handler of one request event kind that the runtime
// resolved its request (PROTOCOL.md "Holding a handler", capability handler.cancel.<kind>): the
// first context.Context field of the struct the handler receives, read by reflection on the
// handler's own func type (the permission handler's invocation, the elicitation handler's and a
// command handler's context), so that it holds on every SDK version; "" when it has none.
type requestWay struct {
	kind    string // the capability's last word
	holder  string // the func-typed field: Type.Field
	arg     int    // the argument of the func that carries the context
	context string // the struct's type and its context field, "" when none
	missing string // the symbol the audit checks is absent
}

var requestWays = func() []requestWay {
	ctx := reflect.TypeOf((*context.Context)(nil)).Elem()
	var out []requestWay
	for _, w := range []requestWay{
		{kind: "permission", holder: "SessionConfig.OnPermissionRequest", arg: 1},
		{kind: "elicitation", holder: "SessionConfig.OnElicitationRequest", arg: 0},
		{kind: "command", holder: "CommandDefinition.Handler", arg: 0},
	} {
		var holder reflect.Type = reflect.TypeOf(copilot.SessionConfig{})
		if w.holder == "CommandDefinition.Handler" {
			holder = reflect.TypeOf(copilot.CommandDefinition{})
		}
		w.missing = "copilot." + w.holder + " (no context.Context in its arguments)"
		if f, ok := holder.FieldByName(w.holder[len(holder.Name())+1:]); ok && f.Type.Kind() == reflect.Func && f.Type.NumIn() > w.arg {
			in := f.Type.In(w.arg)
			w.missing = "copilot." + in.Name() + ".Context"
			for i := 0; in.Kind() == reflect.Struct && i < in.NumField(); i++ {
				if fi := in.Field(i); fi.IsExported() && fi.Type == ctx {
					w.context = "copilot." + in.Name() + "." + fi.Name
					break
				}
			}
		}
		out = append(out, w)
	}
	return out
}()

// requestCapabilities declares handler.cancel.<kind> per request kind. None of the pinned
// version's handlers receives a context, and the driver holds no request handler yet: a version
// that gives one is a driver gap until the driver watches it.
func requestCapabilities(caps map[string]bool, notes map[string]string) {
	for _, w := range requestWays {
		c := "handler.cancel." + w.kind
		caps[c] = false
		if w.context == "" {
			notes[c] = w.missing + " does not exist: the " + w.kind + " handler's arguments carry no context.Context, so it cannot learn that the runtime resolved its request"
			continue
		}
		notes[c] = w.context + " is a context.Context the driver does not watch yet"
	}
}

// requestMissing is the symbol (or driver gap) behind each handler.cancel.<kind> declared false.
func requestMissing(symbols map[string]string) {
	for _, w := range requestWays {
		symbols["handler.cancel."+w.kind] = w.missing
		if w.context != "" {
			symbols["handler.cancel."+w.kind] = "driver: the held " + w.kind + " handler does not watch " + w.context + " yet"
		}
	}
}
