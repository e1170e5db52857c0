// Package handlerset holds the application's runtime-to-SDK handlers of one scenario, which the
// plain phrases (a request the runtime sends registers its handler under what it will be
// asked), the handler sweep and the pending sweep all read: what each handler is given to do,
// what the SDK said it registered, and the requests the scenario had the runtime send.
package handlerset

import (
	"encoding/json"
	"reflect"
)

// Spec is what the application's handler for one runtime-to-SDK method is given to do.
type Spec struct {
	Params []map[string]any // the params the runtime will send (identifiers to register under)
	Cases  []string         // the generated case of each params ("required", "all", "edge …")
	Result any              // what the handler returns (JSON; nil: the language's void)
	// Reason is why the SDK has no public handler API for the method ("" when registered).
	Reason     string
	Registered bool
	// Lacking are the cases of a registered method the SDK's handler API has no handler for (a
	// hook type its hooks type does not declare): each names the identifying params and why.
	Lacking  []LackingCase
	Exchange bool // left to the exchange scenario: never sent to the driver
}

// LackingCase is one case of a registered method that the SDK's handler API cannot receive.
type LackingCase struct {
	Params map[string]any `json:"params"`
	Reason string         `json:"reason"`
}

// Lacks returns the lacking case a call of the method matches (nil: none): every param the
// case names has the call's value.
func (h *Spec) Lacks(params map[string]any) *LackingCase {
	for i, l := range h.Lacking {
		match := len(l.Params) > 0
		for k, v := range l.Params {
			match = match && reflect.DeepEqual(params[k], v)
		}
		if match {
			return &h.Lacking[i]
		}
	}
	return nil
}

// Asked is a request the scenario had the runtime send the SDK.
type Asked struct {
	Method string
	Params map[string]any
}

// Set is one scenario's handlers by method (nil until a step registers one) and the requests
// it had the runtime send.
type Set struct {
	Specs map[string]*Spec
	Asked []Asked
}

// Args is the "handlers" argument of connect / createSession / resumeSession
// (scenario.Scenario.Handlers).
func (s *Set) Args() map[string]any {
	if len(s.Specs) == 0 {
		return nil
	}
	out := map[string]any{}
	for m, h := range s.Specs {
		if h.Exchange {
			continue
		}
		params := make([]any, len(h.Params))
		for i, p := range h.Params {
			params[i] = p
		}
		out[m] = map[string]any{"params": params, "result": h.Result}
	}
	return out
}

// Note reads a connect / createSession / resumeSession answer's account of the handlers
// (scenario.Scenario.Opened): "handled" lists what this command registered, "unhandled" names,
// per method, why the SDK has no public handler API for it.
func (s *Set) Note(_ string, res json.RawMessage) {
	var r struct {
		Handled        []string                 `json:"handled"`
		Unhandled      map[string]string        `json:"unhandled"`
		UnhandledCases map[string][]LackingCase `json:"unhandledCases"`
	}
	if len(s.Specs) == 0 || json.Unmarshal(res, &r) != nil {
		return
	}
	for _, m := range r.Handled {
		if h := s.Specs[m]; h != nil {
			h.Registered, h.Reason = true, ""
		}
	}
	for m, why := range r.Unhandled {
		if h := s.Specs[m]; h != nil && !h.Registered {
			h.Reason = why
		}
	}
	for m, l := range r.UnhandledCases {
		if h := s.Specs[m]; h != nil {
			h.Lacking = append(h.Lacking, l...)
		}
	}
}

// Scripted says whether a call of method with params is one the scenario had the runtime send
// (Asked): the same top-level strings as one of them.
func (s *Set) Scripted(method string, params map[string]any) bool {
	for _, a := range s.Asked {
		if a.Method == method && SameStrings(a.Params, params) {
			return true
		}
	}
	return false
}

// SameStrings says whether got has every top-level string of want that it has at all.
func SameStrings(want, got map[string]any) bool {
	for k, v := range want {
		s, isString := v.(string)
		if g, has := got[k]; isString && has && g != s {
			return false
		}
	}
	return true
}
