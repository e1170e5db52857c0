package main

// The `convert` command (PROTOCOL.md "Generated RPC layer", Converters): a value of one of the
// SDK's generated types, built by name (construct), written with json.Marshal and read back with
// json.Unmarshal, the public converters a Go application calls on the rpc package's types.

import (
	"encoding/json"
	"fmt"
	"reflect"
)

// generatedTypes are the rpc package's struct types by name, filled by zgenerated_types.go, which
// gentypes writes from the SDK's source before the driver is built (conformance prepare and the
// container build run it); nil in a build without it.
var generatedTypes map[string]reflect.Type

type convertValue struct {
	Type  string          `json:"type"`
	Value json.RawMessage `json:"value"`
}

func (d *driver) convert(raw json.RawMessage) (any, error) {
	a, err := decode[struct {
		Values []convertValue `json:"values"`
	}](raw)
	if err != nil {
		return nil, err
	}
	outcomes := make([]map[string]any, 0, len(a.Values))
	for _, v := range a.Values {
		outcomes = append(outcomes, convertOne(v))
	}
	return map[string]any{"outcomes": outcomes}, nil
}

func errorOf(err error) map[string]any {
	return map[string]any{"type": fmt.Sprintf("%T", err), "message": err.Error()}
}

// convertOne builds v by name, marshals it, unmarshals that JSON into a new value of the type
// and marshals what it read again.
func convertOne(v convertValue) (out map[string]any) {
	defer func() {
		if r := recover(); r != nil {
			out = map[string]any{"outcome": "error", "error": map[string]any{"type": "DriverError", "message": fmt.Sprintf("panic: %v", r)}}
		}
	}()
	t, ok := generatedTypes[v.Type]
	if !ok {
		version, _ := sdkVersion()
		return map[string]any{"outcome": "unsupported", "reason": fmt.Sprintf("%s %s: the rpc package declares no struct type %s", sdkModule, version, v.Type)}
	}
	built, unrep, err := construct(t, v.Value)
	if err != nil {
		return map[string]any{"outcome": "error", "error": map[string]any{"type": "DriverError", "message": err.Error()}}
	}
	val := reflect.New(t)
	val.Elem().Set(built)
	written, err := json.Marshal(val.Interface())
	if err != nil {
		return map[string]any{"outcome": "error", "error": errorOf(err)}
	}
	if unrep == nil {
		unrep = []string{}
	}
	out = map[string]any{"outcome": "ok", "json": json.RawMessage(written), "unrepresentable": unrep}
	back := reflect.New(t)
	if err := json.Unmarshal(written, back.Interface()); err != nil {
		out["readError"] = errorOf(err)
		return out
	}
	again, err := json.Marshal(back.Interface())
	if err != nil {
		out["readError"] = errorOf(err)
		return out
	}
	out["back"] = json.RawMessage(again)
	return out
}

// convertCapabilities declares convert.roundtrip when prepare registered the generated types.
func convertCapabilities(version string, caps map[string]bool, notes map[string]string) {
	caps["convert.roundtrip"] = len(generatedTypes) > 0
	if caps["convert.roundtrip"] {
		notes["convert.roundtrip"] = fmt.Sprintf("%s %s: %d struct types of the rpc package (read from its source at prepare), "+
			"built by name, written with json.Marshal and read back with json.Unmarshal", sdkModule, version, len(generatedTypes))
	} else {
		notes["convert.roundtrip"] = "the driver was built without its generated type registry (zgenerated_types.go, written by gentypes before the build)"
	}
}
