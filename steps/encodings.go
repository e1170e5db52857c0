package steps

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/jsonform"
)

// Every legal encoding of a value (package jsonform): the sweeps send the every-field values of
// results, events and runtime-to-SDK requests again with every integral number written as a
// float (5.0), every number in exponent form (5e0), and every string escaped with its object's
// keys reversed. The application must get the same value: the checks are the sweeps' own (what
// the application received equals what the runtime sent, decoded), nothing dropped or raised.

// encodingForms are the forms by their wording in the features.
var encodingForms = map[string]jsonform.Form{
	"with every integer written as a float":           jsonform.Floats,
	"with every number in exponent form":              jsonform.Exponents,
	"with every string escaped and its keys reversed": jsonform.Escapes,
}

// encodingTally is what one scenario sent in its form: the values (results, events, params)
// the form changed, and the members it wrote differently.
type encodingTally struct {
	form   jsonform.Form
	values int
	n      jsonform.Tally
}

// encode writes v in the scenario's form; ok is false when the form changes nothing in it (a
// value without numbers is not sent again as floats: there is nothing to judge; one whose
// objects have two keys or more is sent again escaped, its keys reversed).
func (w *world) encode(form jsonform.Form, v any) (json.RawMessage, bool, error) {
	raw, n, err := jsonform.Encode(v, form)
	if err != nil {
		return nil, false, err
	}
	if n.Fields()+n.Objects == 0 {
		return nil, false, nil
	}
	if w.encoded == nil || w.encoded.form != form {
		w.encoded = &encodingTally{form: form}
	}
	w.encoded.values++
	w.encoded.n = w.encoded.n.Add(n)
	return raw, true, nil
}

// observeEncoding records how many fields the scenario tried in its form (the scenario's output
// counts them per SDK).
func (w *world) observeEncoding(what string) {
	t := w.encoded
	if t == nil {
		w.Observe("legal encodings tried", "none: no member of the "+what+" sent is written differently in this form")
		return
	}
	var parts []string
	if t.n.Numbers > 0 {
		parts = append(parts, fmt.Sprintf("%d numbers", t.n.Numbers))
	}
	if t.n.Strings > 0 {
		parts = append(parts, fmt.Sprintf("%d strings", t.n.Strings))
	}
	if t.n.Objects > 0 {
		parts = append(parts, fmt.Sprintf("%d objects' keys reversed", t.n.Objects))
	}
	w.Observe("legal encodings tried", fmt.Sprintf("%s: %s in %d %s", t.form, strings.Join(parts, ", "), t.values, what))
}

// callEveryHandlerEncoded is callEveryHandler with every call's params written in a form.
func (w *world) callEveryHandlerEncoded(variant string) error {
	form, ok := encodingForms[variant]
	if !ok {
		return fmt.Errorf("no encoding %q", variant)
	}
	w.paramsForm = form
	defer func() { w.paramsForm = "" }()
	err := w.callEveryHandler()
	w.observeEncoding("runtime-to-SDK requests")
	return err
}

// wireParams are a runtime-to-SDK call's params as the runtime writes them: in the scenario's
// form when it has one (callEveryHandlerEncoded), else as they are.
func (w *world) wireParams(params map[string]any) any {
	if w.paramsForm == "" {
		return params
	}
	raw, ok, err := w.encode(w.paramsForm, params)
	if err != nil || !ok {
		return params
	}
	return raw
}
