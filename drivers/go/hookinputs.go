//go:build !copilot_sdk_no_handlers

package main

// Hook inputs (PROTOCOL.md "Runtime→SDK methods", hookInputs; capability handler.hooks.inputs):
// each hook's input type is the first parameter of its SessionHooks func, a struct the SDK
// declares. Its members are read from the struct by reflection (the wire key from the json tag,
// the field's name in lowerCamelCase for one the SDK decodes itself, json:"-"), and the hook
// reports its input field by field, as an application reads it.

import (
	"reflect"
	"strings"
	"time"
	"unicode"
)

// hookMember is one declared member of a hook input struct: a surface entry and its wire key.
type hookMember struct {
	surfaceEntry
	Wire string `json:"wire"`
}

// wireKey is the key field f is read from: its json tag's name, else its name in lowerCamelCase
// (Timestamp, json:"-", which the SDK's UnmarshalJSON reads from "timestamp").
func wireKey(f reflect.StructField) string {
	if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name != "" && name != "-" {
		return name
	}
	r := []rune(f.Name)
	r[0] = unicode.ToLower(r[0])
	return string(r)
}

// memberShape is shapeOf's shape, but for the SDK's date type (time.Time: epoch milliseconds on
// the wire) and an interface, which holds any JSON value and cannot tell null from "not set".
func memberShape(t reflect.Type) (string, bool) {
	switch {
	case t == timeType:
		return "date", false
	case t.Kind() == reflect.Pointer && t.Elem() == timeType:
		return "date", true
	case t.Kind() == reflect.Interface:
		return "any", false
	}
	return shapeOf(t)
}

// hookInputType declares the exported fields of a hook's input struct.
func hookInputType(t reflect.Type) map[string]any {
	declaredBy := t.String() + " (" + t.PkgPath() + ")"
	members := []hookMember{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		shape, optional := memberShape(f.Type)
		members = append(members, hookMember{surfaceEntry{Owner: "hookInput", Name: f.Name, Type: f.Type.String(), Kind: "field",
			Shape: shape, Optional: optional, DeclaredBy: declaredBy}, wireKey(f)})
	}
	return map[string]any{"declaredBy": declaredBy, "members": members}
}

// readHookInput is what the application reads from the hook's input, field by field under each
// field's wire key: a nil pointer is "not set", a date is reported as RFC 3339.
func readHookInput(v reflect.Value) any {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		return v.Interface()
	}
	out := map[string]any{}
	for i := 0; i < v.NumField(); i++ {
		f := v.Type().Field(i)
		if !f.IsExported() {
			continue
		}
		fv := v.Field(i)
		if fv.Kind() == reflect.Pointer {
			if fv.IsNil() {
				continue
			}
			fv = fv.Elem()
		}
		if t, ok := fv.Interface().(time.Time); ok {
			out[wireKey(f)] = t.UTC().Format(time.RFC3339Nano)
			continue
		}
		out[wireKey(f)] = fv.Interface()
	}
	return out
}
