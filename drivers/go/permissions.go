package main

import (
	"encoding/json"
	"reflect"
)

// reportPermissions wraps the config's permission handler (copilot.PermissionHandler.ApproveAll)
// so that each request is reported as the handler received it before the SDK's own answer is
// returned (PROTOCOL.md "Requests from the runtime"). The wrapper is built by reflection on the
// field's own func type, whose result types changed between SDK versions.
func reportPermissions(cfg any, ref *sessionRef) {
	f := reflect.ValueOf(cfg).Elem().FieldByName("OnPermissionRequest")
	if !f.IsValid() || f.Kind() != reflect.Func || f.IsNil() {
		return
	}
	inner := reflect.ValueOf(f.Interface())
	f.Set(reflect.MakeFunc(f.Type(), func(args []reflect.Value) []reflect.Value {
		var request any = nil
		if len(args) > 0 {
			if raw, err := json.Marshal(args[0].Interface()); err == nil {
				request = json.RawMessage(raw)
			}
		}
		event("permission.requested", map[string]any{"session": ref.handle, "request": request})
		return inner.Call(args)
	}))
}
