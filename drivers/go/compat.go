package main

// What differs between published SDK versions is reached through reflection, never named in
// code: a tool option field, a generated RPC method and its request type, a connection field.
// The driver then compiles against every version from v1.0.0 on, and a version without the
// field or method answers `unsupported` (naming the version and what is missing) instead of
// failing to build. Generated request types carry the wire's json tags, so a request is built
// by decoding the protocol's JSON into it: values pass through untouched.

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	copilot "github.com/github/copilot-sdk/go"
)

// hasField reports whether struct type t has an exported field name.
func hasField(t reflect.Type, name string) bool {
	_, ok := t.FieldByName(name)
	return ok
}

// setField sets a field of the struct p points to, converting v to the field's type (a named
// string type such as ToolDefer, a bool, a map). It reports false when the field is missing.
func setField(p any, name string, v any) bool {
	f := reflect.ValueOf(p).Elem().FieldByName(name)
	if !f.IsValid() {
		return false
	}
	val := reflect.ValueOf(v)
	if !val.Type().AssignableTo(f.Type()) {
		val = val.Convert(f.Type())
	}
	f.Set(val)
	return true
}

// rpcMethod finds Session.RPC.<group>.<method> on the type level (no session needed).
func rpcMethod(group, method string) (reflect.Method, bool) {
	rpcField, ok := reflect.TypeOf(copilot.Session{}).FieldByName("RPC")
	if !ok {
		return reflect.Method{}, false
	}
	t := rpcField.Type
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	g, ok := t.FieldByName(group)
	if !ok {
		return reflect.Method{}, false
	}
	return g.Type.MethodByName(method)
}

// callRPC calls s.RPC.<group>.<method>(ctx, &Request{…params}) and returns its result as JSON.
func callRPC(ctx context.Context, s *copilot.Session, group, method string, params any) (json.RawMessage, error) {
	version, _ := sdkVersion()
	missing := unsupported{fmt.Sprintf("%s %s has no generated Session.RPC.%s.%s", sdkModule, version, group, method)}
	rpcVal := reflect.ValueOf(s).Elem().FieldByName("RPC")
	if !rpcVal.IsValid() || (rpcVal.Kind() == reflect.Pointer && rpcVal.IsNil()) {
		return nil, missing
	}
	g := reflect.Indirect(rpcVal).FieldByName(group)
	if !g.IsValid() {
		return nil, missing
	}
	m := g.MethodByName(method)
	if !m.IsValid() || m.Type().NumIn() != 2 || m.Type().In(1).Kind() != reflect.Pointer {
		return nil, missing
	}
	req := reflect.New(m.Type().In(1).Elem())
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	built, unrep, err := construct(req.Type().Elem(), raw)
	if err != nil || len(unrep) > 0 {
		return nil, driverErrorf("%s.%s request: %v cannot carry %v", group, method, req.Type().Elem(), unrep)
	}
	req.Elem().Set(built)
	out := m.Call([]reflect.Value{reflect.ValueOf(ctx), req})
	if e, _ := out[len(out)-1].Interface().(error); e != nil {
		return nil, e
	}
	if len(out) < 2 {
		return json.RawMessage("{}"), nil
	}
	return json.Marshal(out[0].Interface())
}

// clearContextRPC calls the generated History.ClearContext and returns messagesCleared.
func clearContextRPC(ctx context.Context, s *copilot.Session, prompt string) (int64, error) {
	raw, err := callRPC(ctx, s, "History", "ClearContext", map[string]any{"prompt": prompt})
	if err != nil {
		return 0, err
	}
	var r struct {
		MessagesCleared int64 `json:"messagesCleared"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return 0, err
	}
	return r.MessagesCleared, nil
}

var toolType = reflect.TypeOf(copilot.Tool{})

// toolCapabilities declares the tool options this version's copilot.Tool has.
func toolCapabilities(version string, caps map[string]bool, notes map[string]string) {
	for capName, field := range map[string]string{
		"tool.isTerminal": "IsTerminal", "tool.overridesBuiltInTool": "OverridesBuiltInTool",
		"tool.skipPermission": "SkipPermission", "tool.defer": "Defer", "tool.metadata": "Metadata",
	} {
		caps[capName] = hasField(toolType, field)
		if !caps[capName] {
			notes[capName] = fmt.Sprintf("%s %s: copilot.Tool has no %s field", sdkModule, version, field)
		}
	}
	_, caps["session.clearContext"] = rpcMethod("History", "ClearContext")
	_, caps["session.rpc.tools.set"] = rpcMethod("Tools", "Set")
	if !caps["session.clearContext"] {
		notes["session.clearContext"] = fmt.Sprintf("%s %s has no generated Session.RPC.History.ClearContext", sdkModule, version)
	}
	if !caps["session.rpc.tools.set"] {
		notes["session.rpc.tools.set"] = fmt.Sprintf("%s %s has no generated Session.RPC.Tools.Set", sdkModule, version)
	}
	caps["transport.stdio"] = hasField(reflect.TypeOf(copilot.StdioConnection{}), "Env")
	if !caps["transport.stdio"] {
		notes["transport.stdio"] = fmt.Sprintf("%s %s: copilot.StdioConnection has no Env, so the spawned runtime cannot be given its environment", sdkModule, version)
	}
}

func toolOptionMissing(field string) error {
	version, _ := sdkVersion()
	return unsupported{fmt.Sprintf("%s %s: copilot.Tool has no %s field", sdkModule, version, field)}
}
