package handlers

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/surface"
)

// Hook inputs exactly as sent (issue 38 item 5). The runtime's schema declares hooks.invoke's
// input opaque (HookInvokeRequest.input, x-opaque-json): what a hook type's input holds is
// declared only by each SDK's hook input types. The driver reads them from the installed SDK
// (createSession's "hookInputs", PROTOCOL.md "Runtime→SDK methods") and the handler sweep sends,
// for every hook type the SDK registered, inputs with every declared member under its wire key
// (every member, only the required ones, and each member's every edge value across the cases);
// handlersReceived then compares what the application's hook read with what was sent.

// hookInputMember is one member of a hook type's input as the SDK declares it.
type hookInputMember struct {
	surface.Entry
	// Wire is the key the SDK reads the member from on the wire (Go's json tag, Java's Jackson
	// name); the application's name where the SDK declares no other.
	Wire string `json:"wire"`
}

// hookInputType is one hook type's declared input.
type hookInputType struct {
	DeclaredBy string            `json:"declaredBy"`
	Members    []hookInputMember `json:"members"`
}

// hookEdges are the values a member of a shape is sent with, the first in the every-member case,
// each other in a case of its own (several members' edges in one case: they do not interact).
// A date goes on the wire as epoch milliseconds (the runtime's timestamp; the SDKs' documented
// conversion to their date type compares by instant).
func hookEdges(m hookInputMember) []any {
	text := surface.NonASCII + " " + m.Wire
	switch m.Shape {
	case "string":
		return []any{text, ""}
	case "enum":
		out := make([]any, len(m.Values))
		for i, v := range m.Values {
			out[i] = v
		}
		return out
	case "boolean":
		return []any{true, false}
	case "integer":
		return []any{float64(7), float64(0), float64(1<<53 - 1)}
	case "number":
		return []any{1.5, float64(0), float64(-2)}
	case "date":
		return []any{float64(1764470000123), float64(0)}
	case "string[]":
		return []any{[]any{text}, []any{}}
	case "map", "object":
		return []any{map[string]any{"kéy": text, "n": float64(1)}, map[string]any{}}
	case "array":
		return []any{[]any{text, float64(1)}, []any{}}
	default: // any JSON value (unknown, Any, Object, serde_json::Value): every kind of it
		return []any{map[string]any{"kéy": []any{text, float64(1), true, nil}}, nil, []any{}, text, float64(0), false}
	}
}

// hookInputCases are the hooks.invoke params for one hook type's declared input: every member,
// only the required ones, then one case per further edge value.
func hookInputCases(hookType string, t hookInputType) []map[string]any {
	edges := make([][]any, len(t.Members))
	rounds := 1
	for i, m := range t.Members {
		edges[i] = hookEdges(m)
		rounds = max(rounds, len(edges[i]))
	}
	build := func(round int, requiredOnly bool) map[string]any {
		input := map[string]any{}
		for i, m := range t.Members {
			if requiredOnly && m.Optional {
				continue
			}
			if len(edges[i]) == 0 {
				continue
			}
			v := edges[i][0]
			if round < len(edges[i]) {
				v = edges[i][round]
			}
			input[m.Wire] = v
		}
		// sessionId: the session's, put in by asTheRuntimeSends.
		return map[string]any{"sessionId": "", "hookType": hookType, "input": input}
	}
	out := []map[string]any{build(0, false)}
	if slices.ContainsFunc(t.Members, func(m hookInputMember) bool { return m.Optional }) {
		out = append(out, build(0, true))
	}
	for r := 1; r < rounds; r++ {
		out = append(out, build(r, false))
	}
	return out
}

// noteHookInputs reads createSession's "hookInputs" (the declared input of each hook type).
func (w *engine) noteHookInputs(res json.RawMessage) {
	var r struct {
		HookInputs map[string]hookInputType `json:"hookInputs"`
	}
	if json.Unmarshal(res, &r) == nil && r.HookInputs != nil {
		w.hookInputs = r.HookInputs
	}
}

// addHookInputCases adds, to the sweep's hooks.invoke cases, the declared-input cases of every
// hook type the driver declared an input for, and records how many members went out (a hook
// type the SDK's hooks type has no hook for has no declared input: named in the observation).
func (w *engine) addHookInputCases() error {
	const m = "hooks.invoke"
	h := w.handlers.Specs[m]
	if h == nil || !h.Registered {
		return nil
	}
	var types []string
	for _, p := range h.Params {
		if t, ok := p["hookType"].(string); ok && !slices.Contains(types, t) && h.Lacks(p) == nil {
			types = append(types, t)
		}
	}
	if _, _, lacking := w.Lacks("handler.hooks.inputs"); lacking {
		w.Observe("hook input members sent", "not checked: the driver does not declare its SDK's hook input types (capability handler.hooks.inputs)")
		return nil
	}
	var missing, per []string
	members, cases := 0, 0
	for _, t := range types {
		decl, ok := w.hookInputs[t]
		if !ok {
			missing = append(missing, t)
			continue
		}
		cs := hookInputCases(t, decl)
		h.Params = append(h.Params, cs...)
		members, cases = members+len(decl.Members), cases+len(cs)
		per = append(per, fmt.Sprintf("%s %d (%s)", t, len(decl.Members), decl.DeclaredBy))
	}
	if len(per) == 0 && len(missing) > 0 {
		return fmt.Errorf("driver fault: the %s driver registered hooks.invoke with handler.hooks.inputs but declared no hook's input type (\"hookInputs\")", w.T.SDK())
	}
	v := fmt.Sprintf("%d members of %d hook types in %d cases: %s", members, len(per), cases, strings.Join(per, "; "))
	if len(missing) > 0 {
		sort.Strings(missing)
		v += "; no declared input (no hook of that type): " + strings.Join(missing, ", ")
	}
	w.Observe("hook input members sent", v)
	return nil
}
