package main

// The application's surface (PROTOCOL.md "Surface"): every exported field of the SDK's
// configuration structs, read by reflection from the version this driver was built against, so
// no field is named here. Types only some versions have are reached through the fields that
// hold them (SessionConfig.CustomAgents' element type, …), which keeps the driver compiling
// against every version.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	copilot "github.com/github/copilot-sdk/go"
)

type surfaceEntry struct {
	Owner      string   `json:"owner"`
	Name       string   `json:"name"`
	Type       string   `json:"type"`
	Kind       string   `json:"kind"`
	Shape      string   `json:"shape"`
	Values     []string `json:"values,omitempty"`
	Optional   bool     `json:"optional"`
	DeclaredBy string   `json:"declaredBy"`
	// Fields are the members of the struct the field holds (PROTOCOL.md "Surface"), named as
	// encoding/json reads them, which is how applyFields converts a value.
	Fields []surfaceEntry `json:"fields,omitempty"`
}

// surfaceOwners are the structs each owner is declared by.
func surfaceOwners() map[string][]reflect.Type {
	session := reflect.TypeOf(copilot.SessionConfig{})
	out := map[string][]reflect.Type{
		"sessionConfig": {session},
		"resumeConfig":  {reflect.TypeOf(copilot.ResumeSessionConfig{})},
		"clientOptions": {reflect.TypeOf(copilot.ClientOptions{})},
		"tool":          {reflect.TypeOf(copilot.Tool{})},
	}
	held := map[string]string{"customAgent": "CustomAgents", "provider": "Provider", "systemMessage": "SystemMessage", "command": "Commands"}
	for owner, field := range held {
		if f, ok := session.FieldByName(field); ok {
			if t := structOf(f.Type); t != nil {
				out[owner] = []reflect.Type{t}
			}
		}
	}
	for _, typ := range []string{"stdio", "http"} {
		if v, err := mcpServer(typ, json.RawMessage(`{}`)); err == nil {
			out["mcpServer"] = append(out["mcpServer"], v.Type())
		}
	}
	return out
}

// structOf is the struct a field's type holds (through pointers, slices and maps), or nil.
func structOf(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() == reflect.Struct {
		return t
	}
	return nil
}

// shapeOf classifies a Go type for the harness's value generator; optional says whether the
// type can tell "not set" from its zero value.
func shapeOf(t reflect.Type) (shape string, optional bool) {
	if t.Kind() == reflect.Pointer {
		s, _ := shapeOf(t.Elem())
		return s, true
	}
	switch t.Kind() {
	case reflect.Func:
		return "handler", true
	case reflect.String:
		return "string", false
	case reflect.Bool:
		return "boolean", false
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer", false
	case reflect.Float32, reflect.Float64:
		return "number", false
	case reflect.Slice:
		if t.Elem().Kind() == reflect.String {
			return "string[]", true
		}
		return "array", true
	case reflect.Map:
		return "map", true
	case reflect.Struct:
		return "object", false
	case reflect.Interface:
		if t.NumMethod() > 0 && t.Method(0).IsExported() && allExported(t) {
			// An interface the application implements to be called back (CanvasHandler); a
			// sealed one (RuntimeConnection: an unexported method) holds the SDK's own values.
			return "handler", true
		}
		return "other", true
	}
	return "other", false
}

func (d *driver) surface(json.RawMessage) (any, error) {
	var entries []surfaceEntry
	owners := surfaceOwners()
	for _, owner := range []string{"sessionConfig", "resumeConfig", "clientOptions", "tool", "customAgent", "mcpServer", "command", "provider", "systemMessage"} {
		seen := map[string]bool{}
		for _, t := range owners[owner] {
			for _, f := range reflect.VisibleFields(t) {
				if !f.IsExported() || f.Anonymous || seen[f.Name] {
					continue
				}
				seen[f.Name] = true
				e := member(owner, f.Name, f.Type, t.String()+" ("+sdkModule+")", 0)
				if _, opts, _ := strings.Cut(f.Tag.Get("json"), ","); strings.Contains(opts, "omitempty") || strings.Contains(opts, "omitzero") {
					e.Optional = true // a definition's member left out when not set
				}
				for _, other := range owners[owner] {
					if _, ok := other.FieldByName(f.Name); !ok {
						// An owner of several types (stdio and HTTP MCP servers): a member
						// only some of them declare is not required of the owner.
						e.Optional = true
					}
				}
				entries = append(entries, e)
			}
		}
	}
	return map[string]any{"entries": entries}, nil
}

// member is one field of a struct as an entry, with the fields of the struct it holds (two
// levels down) under their JSON names.
func member(owner, name string, typ reflect.Type, declaredBy string, depth int) surfaceEntry {
	shape, optional := shapeOf(typ)
	kind := "field"
	if shape == "handler" || (shape == "object" && isHandlers(typ)) {
		kind = "handler"
	}
	e := surfaceEntry{Owner: owner, Name: name, Type: typ.String(), Kind: kind, Shape: shape, Optional: optional, DeclaredBy: declaredBy}
	base := typ
	if base.Kind() == reflect.Pointer {
		base = base.Elem()
	}
	if vals := enumValues(base); len(vals) > 0 {
		e.Shape, e.Values = "enum", vals
	}
	if s := structOf(typ); s != nil && shape != "handler" && depth < 2 {
		for _, f := range reflect.VisibleFields(s) {
			if !f.IsExported() || f.Anonymous {
				continue
			}
			jsonName, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			if jsonName == "-" {
				if f.Type.Kind() != reflect.Func {
					continue // never on the wire and not the application's callback
				}
				jsonName = f.Name
			}
			if jsonName == "" {
				jsonName = f.Name
			}
			m := member(owner, jsonName, f.Type, s.String()+" ("+sdkModule+")", depth+1)
			// A member is left out when not set only through omitempty/omitzero or a nil pointer;
			// any other is always sent (a nil list as null), so the application sets it.
			m.Optional = m.Kind == "handler" || f.Type.Kind() == reflect.Pointer || strings.Contains(opts, "omitempty") || strings.Contains(opts, "omitzero")
			e.Fields = append(e.Fields, m)
		}
		if len(e.Fields) > 0 && allHandlers(e.Fields) {
			e.Kind = "handler" // callbacks only (a RequestHandler's Transport): registered, not a value
		}
	}
	return e
}

func allHandlers(es []surfaceEntry) bool {
	for _, e := range es {
		if e.Kind != "handler" {
			return false
		}
	}
	return true
}

// allExported says whether every method of an interface is exported.
func allExported(t reflect.Type) bool {
	for i := 0; i < t.NumMethod(); i++ {
		if !t.Method(i).IsExported() {
			return false
		}
	}
	return true
}

// isHandlers says whether a struct holds only funcs (SessionHooks): the application registers
// handlers through it.
func isHandlers(t reflect.Type) bool {
	t = structOf(t)
	if t == nil || t.NumField() == 0 {
		return false
	}
	for i := 0; i < t.NumField(); i++ {
		if t.Field(i).Type.Kind() != reflect.Func {
			return false
		}
	}
	return true
}

// applyFields sets each named field of cfg (a pointer to a struct) to its JSON value decoded
// into the field's own type; an unknown name or an undecodable value is unsupported.
func applyFields(cfg any, fields map[string]json.RawMessage) error {
	v := reflect.ValueOf(cfg).Elem()
	version, _ := sdkVersion()
	for name, raw := range fields {
		f := v.FieldByName(name)
		if !f.IsValid() || !f.CanSet() {
			return unsupported{fmt.Sprintf("%s %s: %s has no field %s", sdkModule, version, v.Type(), name)}
		}
		if isMCPServers(f.Type()) {
			// A map of an interface: the concrete type follows each server's "type".
			raw = mcpJSONNames(raw)
			m, err := decodeMCPServers(raw, f.Type())
			if err == nil {
				err = strictMCPServers(raw)
			}
			if err != nil {
				return unsupported{fmt.Sprintf("%s %s: %s.%s (%s) cannot hold %s: %v", sdkModule, version, v.Type(), name, f.Type(), raw, err)}
			}
			f.Set(m)
			continue
		}
		if f.Kind() == reflect.Slice && holdsMCPServers(f.Type().Elem()) {
			// Definitions that hold MCP servers (custom agents): each one field by field, so
			// that its map of servers is decoded by each server's "type" as above.
			var items []map[string]json.RawMessage
			if err := json.Unmarshal(raw, &items); err != nil {
				return unsupported{fmt.Sprintf("%s %s: %s.%s (%s) cannot hold %s: %v", sdkModule, version, v.Type(), name, f.Type(), raw, err)}
			}
			list := reflect.MakeSlice(f.Type(), 0, len(items))
			for _, item := range items {
				el := reflect.New(f.Type().Elem())
				if err := applyFields(el.Interface(), item); err != nil {
					return err
				}
				list = reflect.Append(list, el.Elem())
			}
			f.Set(list)
			continue
		}
		p := reflect.New(f.Type())
		// Strict: a key the SDK's type lacks would be dropped silently and look like the SDK
		// dropping it; the harness reports it as a value this SDK's type cannot hold instead.
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(p.Interface()); err != nil {
			return unsupported{fmt.Sprintf("%s %s: %s.%s (%s) cannot hold %s: %v", sdkModule, version, v.Type(), name, f.Type(), raw, err)}
		}
		f.Set(p.Elem())
	}
	return nil
}

// applyHandlers registers, for each named handler field of cfg (a pointer to a struct), a
// callback of the field's own type that does nothing and returns the zero values (PROTOCOL.md
// "Surface", surfaceHandlers): the harness reads what registering it announces in the request,
// and each call is reported (surface.handler.called) for the session handle. A field the driver
// set already (the permission handler, event forwarding) is kept, and returned in kept.
func applyHandlers(cfg any, names []string, handle string) (kept []string, err error) {
	v := reflect.ValueOf(cfg).Elem()
	version, _ := sdkVersion()
	for _, name := range names {
		f := v.FieldByName(name)
		if !f.IsValid() || !f.CanSet() {
			return nil, unsupported{fmt.Sprintf("%s %s: %s has no handler %s", sdkModule, version, v.Type(), name)}
		}
		if !f.IsZero() {
			kept = append(kept, name)
			continue
		}
		called := func() { event("surface.handler.called", map[string]any{"session": handle, "handler": name}) }
		h, ok := noopHandler(f.Type(), called)
		if !ok {
			return nil, unsupported{fmt.Sprintf("%s %s: %s.%s (%s) is not a func or a struct of funcs", sdkModule, version, v.Type(), name, f.Type())}
		}
		f.Set(h)
	}
	return kept, nil
}

// noopHandler builds a value of type t that registers handlers doing nothing but calling called
// (when set): a func returning its zero values, or a (pointer to a) struct of such funcs
// (SessionHooks).
func noopHandler(t reflect.Type, called func()) (reflect.Value, bool) {
	switch {
	case t.Kind() == reflect.Func:
		return reflect.MakeFunc(t, func([]reflect.Value) []reflect.Value {
			if called != nil {
				called()
			}
			out := make([]reflect.Value, t.NumOut())
			for i := range out {
				out[i] = reflect.Zero(t.Out(i))
			}
			return out
		}), true
	case isHandlers(t):
		s := structOf(t)
		p := reflect.New(s)
		for i := 0; i < s.NumField(); i++ {
			if h, ok := noopHandler(s.Field(i).Type, called); ok && p.Elem().Field(i).CanSet() {
				p.Elem().Field(i).Set(h)
			}
		}
		if t.Kind() == reflect.Pointer {
			return p, true
		}
		return p.Elem(), true
	}
	return reflect.Value{}, false
}

// holdsMCPServers says whether t is a struct with a field of MCP servers (CustomAgentConfig).
func holdsMCPServers(t reflect.Type) bool {
	if t.Kind() != reflect.Struct {
		return false
	}
	for i := 0; i < t.NumField(); i++ {
		if isMCPServers(t.Field(i).Type) {
			return true
		}
	}
	return false
}

// isMCPServers says whether t is a map of the interface the SDK's MCP server configs implement.
func isMCPServers(t reflect.Type) bool {
	// A map of `any` (a tool's Metadata) is not one: every type implements the empty interface.
	if t.Kind() != reflect.Map || t.Elem().Kind() != reflect.Interface || t.Elem().NumMethod() == 0 {
		return false
	}
	v, err := mcpServer("stdio", json.RawMessage(`{}`))
	return err == nil && v.Type().Implements(t.Elem())
}

// mcpJSONNames renames, in each server config of a map, a key that is a Go field name of a
// concrete MCP server type to that field's JSON name (WorkingDirectory to cwd): the harness
// writes a definition with the SDK's own field names (PROTOCOL.md "Surface"), and
// encoding/json matches only the JSON name, case-insensitively.
func mcpJSONNames(raw json.RawMessage) json.RawMessage {
	var servers map[string]map[string]json.RawMessage
	if json.Unmarshal(raw, &servers) != nil {
		return raw
	}
	for _, cfg := range servers {
		for _, typ := range []string{"stdio", "http"} {
			v, err := mcpServer(typ, json.RawMessage(`{}`))
			if err != nil {
				continue
			}
			for _, f := range reflect.VisibleFields(v.Type()) {
				name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
				if val, ok := cfg[f.Name]; ok && name != "" && name != "-" && !strings.EqualFold(name, f.Name) {
					delete(cfg, f.Name)
					cfg[name] = val
				}
			}
		}
	}
	out, err := json.Marshal(servers)
	if err != nil {
		return raw
	}
	return out
}

// mcpType is an MCP server config's "type", or the type whose config holds its keys when it
// names none (mcpTypeHolding).
func mcpType(s json.RawMessage) string {
	var head struct {
		Type string `json:"type"`
	}
	_ = json.Unmarshal(s, &head)
	if head.Type == "" {
		return mcpTypeHolding(s)
	}
	return head.Type
}

// mcpTypeHolding is the server type whose concrete config declares every key of a config given
// without "type" (the SDK's types carry none: each injects its own when marshalled): stdio when
// none does, which strictMCPServers then refuses.
func mcpTypeHolding(s json.RawMessage) string {
	for _, typ := range []string{"stdio", "http"} {
		v, err := mcpServer(typ, json.RawMessage(`{}`))
		if err != nil {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(s))
		dec.DisallowUnknownFields()
		if dec.Decode(reflect.New(v.Type()).Interface()) == nil {
			return typ
		}
	}
	return "stdio"
}

// strictMCPServers refuses a server config with a key its concrete type lacks (decodeMCPServers
// drops such keys silently, as encoding/json does).
func strictMCPServers(raw json.RawMessage) error {
	var servers map[string]json.RawMessage
	if err := json.Unmarshal(raw, &servers); err != nil {
		return err
	}
	for name, s := range servers {
		v, err := mcpServer(mcpType(s), json.RawMessage(`{}`))
		if err != nil {
			return err
		}
		dec := json.NewDecoder(bytes.NewReader(s))
		dec.DisallowUnknownFields()
		if err := dec.Decode(reflect.New(v.Type()).Interface()); err != nil {
			return fmt.Errorf("server %q: %w", name, err)
		}
	}
	return nil
}
