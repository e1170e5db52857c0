package main

// The generic `rpc` / `rpcBatch` commands (PROTOCOL.md, "Generated RPC layer"): a schema method
// name is found among the SDK's generated wrappers (Client.RPC *rpc.ServerRPC and
// Session.RPC *rpc.SessionRPC) by reflection, never from a list: the wrapper tree is walked once
// (struct fields and no-argument accessors returning a nested API are namespaces, methods taking a
// context are calls) and each call is keyed by its path, compared case-insensitively with the
// schema's dotted name (Go spells "gitHubAuth" GitHubAuth, "mcp" MCP, "sessionFs" SessionFS).
// The params JSON is decoded into the wrapper's request type with encoding/json, as an
// application holding JSON would, and what that typed request re-encodes to is compared with
// the params to report what it could not carry (`unrepresentable`).

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"

	copilot "github.com/github/copilot-sdk/go"
)

var (
	ctxType = reflect.TypeOf((*context.Context)(nil)).Elem()
	errType = reflect.TypeOf((*error)(nil)).Elem()
)

// wrapper is one generated call: the accessor path from the root API to the method's receiver,
// then the method.
type wrapper struct {
	path   []string // Go names: fields or accessor methods, then the method
	method reflect.Method
}

type wrapperIndex map[string]wrapper // lower-cased dotted path → wrapper

var (
	indexOnce                       sync.Once
	serverWrappers, sessionWrappers wrapperIndex
)

func wrappers() (server, session wrapperIndex) {
	indexOnce.Do(func() {
		serverWrappers = wrapperIndex{}
		sessionWrappers = wrapperIndex{}
		if f, ok := reflect.TypeOf(copilot.Client{}).FieldByName("RPC"); ok && f.IsExported() {
			walkAPI(f.Type, nil, serverWrappers, map[reflect.Type]bool{})
		}
		if f, ok := reflect.TypeOf(copilot.Session{}).FieldByName("RPC"); ok && f.IsExported() {
			walkAPI(f.Type, nil, sessionWrappers, map[reflect.Type]bool{})
		}
	})
	return serverWrappers, sessionWrappers
}

// isAPI says whether t is a generated API group: a pointer to a named type of the SDK's rpc
// package (ServerAccountAPI, SessionRPC, …).
func isAPI(t reflect.Type) bool {
	if t.Kind() != reflect.Pointer {
		return false
	}
	e := t.Elem()
	return strings.HasSuffix(e.PkgPath(), "/rpc") && (strings.HasSuffix(e.Name(), "API") || strings.HasSuffix(e.Name(), "RPC"))
}

func walkAPI(t reflect.Type, path []string, idx wrapperIndex, seen map[reflect.Type]bool) {
	if seen[t] {
		return
	}
	seen[t] = true
	defer delete(seen, t)
	if t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Struct {
		for i := 0; i < t.Elem().NumField(); i++ {
			f := t.Elem().Field(i)
			if f.IsExported() && isAPI(f.Type) {
				walkAPI(f.Type, append(append([]string{}, path...), f.Name), idx, seen)
			}
		}
	}
	for i := 0; i < t.NumMethod(); i++ {
		m := t.Method(i)
		mt := m.Type // receiver first
		switch {
		case mt.NumIn() == 1 && mt.NumOut() == 1 && isAPI(mt.Out(0)):
			walkAPI(mt.Out(0), append(append([]string{}, path...), m.Name+"()"), idx, seen)
		case mt.NumIn() >= 2 && mt.In(1) == ctxType && mt.NumOut() >= 1 && mt.Out(mt.NumOut()-1) == errType:
			p := append(append([]string{}, path...), m.Name)
			idx[key(p)] = wrapper{path: p, method: m}
		}
	}
}

func key(path []string) string {
	parts := make([]string, len(path))
	for i, p := range path {
		parts[i] = strings.ToLower(strings.TrimSuffix(p, "()"))
	}
	return strings.Join(parts, ".")
}

type rpcCall struct {
	Client  string          `json:"client"`
	Session string          `json:"session"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
	// CancelAfterMs (rpc only): the application gives up after that long (cancel.go).
	CancelAfterMs *int64 `json:"cancelAfterMs"`
}

type rpcOutcome struct {
	Result          json.RawMessage
	Unrepresentable []string
}

func (d *driver) rpc(raw json.RawMessage) (any, error) {
	c, err := decode[rpcCall](raw)
	if err != nil {
		return nil, err
	}
	ctx, cancel := cancelAfter(context.Background(), c.CancelAfterMs)
	defer cancel()
	o, err := d.call(ctx, c)
	if err != nil {
		return nil, cancelledIf(ctx, err, c.CancelAfterMs)
	}
	return map[string]any{"result": o.Result, "unrepresentable": o.Unrepresentable}, nil
}

func (d *driver) rpcBatch(raw json.RawMessage) (any, error) {
	a, err := decode[struct {
		Calls []rpcCall `json:"calls"`
	}](raw)
	if err != nil {
		return nil, err
	}
	outcomes := make([]map[string]any, 0, len(a.Calls))
	for _, c := range a.Calls {
		o, err := d.callSafe(context.Background(), c)
		switch e := err.(type) {
		case nil:
			outcomes = append(outcomes, map[string]any{"outcome": "ok", "result": o.Result, "unrepresentable": o.Unrepresentable})
		case unsupported:
			outcomes = append(outcomes, map[string]any{"outcome": "unsupported", "reason": e.reason})
		default:
			outcomes = append(outcomes, map[string]any{"outcome": "error", "error": errorObject(err)})
		}
	}
	return map[string]any{"outcomes": outcomes}, nil
}

func errorObject(err error) map[string]any {
	if de, ok := err.(driverError); ok {
		return map[string]any{"type": "DriverError", "message": de.msg}
	}
	return map[string]any{"type": fmt.Sprintf("%T", err), "message": err.Error()}
}

// callSafe turns a panic inside one wrapper into that call's error, so the batch goes on.
func (d *driver) callSafe(ctx context.Context, c rpcCall) (o rpcOutcome, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic in %s: %v", c.Method, r)
		}
	}()
	return d.call(ctx, c)
}

func (d *driver) call(ctx context.Context, c rpcCall) (rpcOutcome, error) {
	server, session := wrappers()
	var root reflect.Value
	var idx wrapperIndex
	name := c.Method
	switch {
	case c.Client != "" && c.Session != "":
		return rpcOutcome{}, driverErrorf("rpc %s: give client or session, not both", c.Method)
	case c.Session != "":
		s, _, err := d.session(c.Session)
		if err != nil {
			return rpcOutcome{}, err
		}
		root, idx = reflect.ValueOf(s).Elem().FieldByName("RPC"), session
		name = strings.TrimPrefix(name, "session.")
	case c.Client != "":
		cl, err := d.client(c.Client)
		if err != nil {
			return rpcOutcome{}, err
		}
		root, idx = reflect.ValueOf(cl).Elem().FieldByName("RPC"), server
		// The schema files server methods under "server" while their wire names have no prefix;
		// both spellings are accepted.
		name = strings.TrimPrefix(name, "server.")
	default:
		return rpcOutcome{}, driverErrorf("rpc %s needs a client or a session handle", c.Method)
	}
	version, _ := sdkVersion()
	w, ok := idx[strings.ToLower(name)]
	if !ok || !root.IsValid() || root.IsNil() {
		return rpcOutcome{}, unsupported{fmt.Sprintf("%s %s: %s is not in this SDK's generated layer", sdkModule, version, c.Method)}
	}
	recv := root
	for _, step := range w.path[:len(w.path)-1] {
		if strings.HasSuffix(step, "()") {
			recv = recv.MethodByName(strings.TrimSuffix(step, "()")).Call(nil)[0]
		} else {
			recv = recv.Elem().FieldByName(step)
		}
		if recv.IsNil() {
			return rpcOutcome{}, unsupported{fmt.Sprintf("%s %s: %s has a nil API group %s", sdkModule, version, c.Method, step)}
		}
	}
	fn := recv.MethodByName(w.method.Name)
	ft := fn.Type()
	args := []reflect.Value{reflect.ValueOf(ctx)}
	var unrepresentable []string
	params := c.Params
	if len(bytes.TrimSpace(params)) == 0 || string(bytes.TrimSpace(params)) == "null" {
		params = json.RawMessage("{}")
	}
	if ft.NumIn() >= 2 {
		reqType := ft.In(1)
		if ft.IsVariadic() {
			reqType = reqType.Elem()
		}
		if reqType.Kind() != reflect.Pointer {
			return rpcOutcome{}, driverErrorf("%s: request type %s is not a pointer", c.Method, reqType)
		}
		if reqType.Elem().Kind() == reflect.Interface {
			// A union request (e.g. rpc.SessionOpenParams): an application builds one concrete
			// variant type, which reflection cannot enumerate from the interface, and the SDK's
			// discriminator decoder for it is unexported.
			return rpcOutcome{}, unsupported{fmt.Sprintf("%s %s: %s takes the union interface %s; the driver cannot "+
				"choose its concrete variant type by reflection", sdkModule, version, c.Method, reqType.Elem())}
		}
		// Built by field name as an application writes it (construct), never decoded: a wrong
		// json tag in the SDK then shows on the wire instead of being undone on the way back.
		built, unrep, err := construct(reqType.Elem(), params)
		if err != nil {
			return rpcOutcome{}, driverErrorf("%s: params are not JSON: %v", c.Method, err)
		}
		req := reflect.New(reqType.Elem())
		req.Elem().Set(built)
		unrepresentable = unrep
		args = append(args, req)
	} else {
		// A wrapper without a request type sends no params: every given key is lost.
		unrepresentable = lost(params, json.RawMessage("{}"))
	}
	out := fn.Call(args)
	if e, _ := out[len(out)-1].Interface().(error); e != nil {
		return rpcOutcome{}, e
	}
	o := rpcOutcome{Result: json.RawMessage("null"), Unrepresentable: unrepresentable}
	if len(out) == 2 {
		b, err := json.Marshal(out[0].Interface())
		if err != nil {
			return rpcOutcome{}, fmt.Errorf("%s: the typed result does not encode: %v", c.Method, err)
		}
		o.Result = b
	}
	if o.Unrepresentable == nil {
		o.Unrepresentable = []string{}
	}
	return o, nil
}

// lost lists JSON pointers into given whose value held (the typed request re-encoded) does not
// carry as given: a key missing (an unknown key, an explicit null under omitempty) or a value
// that changed. Keys the type adds are not params pointers; the harness sees them on the wire.
func lost(given, held json.RawMessage) []string {
	g, err1 := decodeNumbers(given)
	h, err2 := decodeNumbers(held)
	if err1 != nil || err2 != nil {
		return []string{""}
	}
	var out []string
	diffValue("", g, h, true, &out)
	sort.Strings(out)
	return out
}

func decodeNumbers(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

func diffValue(ptr string, g, h any, present bool, out *[]string) {
	if !present {
		*out = append(*out, ptr)
		return
	}
	switch gv := g.(type) {
	case map[string]any:
		hv, ok := h.(map[string]any)
		if !ok {
			*out = append(*out, ptr)
			return
		}
		for k, v := range gv {
			hk, ok := hv[k]
			diffValue(ptr+"/"+escape(k), v, hk, ok, out)
		}
	case []any:
		hv, ok := h.([]any)
		if !ok || len(hv) != len(gv) {
			*out = append(*out, ptr)
			return
		}
		for i := range gv {
			diffValue(ptr+"/"+strconv.Itoa(i), gv[i], hv[i], true, out)
		}
	case json.Number:
		hv, ok := h.(json.Number)
		if !ok || !sameNumber(gv, hv) {
			*out = append(*out, ptr)
		}
	default:
		if !reflect.DeepEqual(g, h) {
			*out = append(*out, ptr)
		}
	}
}

// sameNumber compares JSON numbers by value (1 and 1.0 are the same number), exactly for
// integers and through float64 otherwise.
func sameNumber(a, b json.Number) bool {
	if a == b {
		return true
	}
	if ai, err := a.Int64(); err == nil {
		if bi, err := b.Int64(); err == nil {
			return ai == bi
		}
	}
	af, err1 := a.Float64()
	bf, err2 := b.Float64()
	return err1 == nil && err2 == nil && af == bf
}

func escape(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

// rpcCapabilities declares rpc.generated when this version exposes a generated layer on both the
// client and the session.
func rpcCapabilities(version string, caps map[string]bool, notes map[string]string) {
	server, session := wrappers()
	caps["rpc.generated"] = len(server) > 0 && len(session) > 0
	notes["rpc.generated"] = fmt.Sprintf("%s %s: %d client (Client.RPC) and %d session (Session.RPC) generated wrappers, "+
		"found by reflection; params built into the wrapper's request type by Go field name (never decoded by the SDK); a params value "+
		"the request struct does not carry (a key no field is named for; a value its omitempty encoding leaves out, "+
		"such as an explicit null in a single pointer) is reported unrepresentable", sdkModule, version, len(server), len(session))
	byName, decoded := decodeTally()
	notes["driver.builtBy"] = fmt.Sprintf("%d SDK types built by name; %d through the SDK's deserializer: %s",
		byName, len(decoded), strings.Join(decoded, "; "))
}
