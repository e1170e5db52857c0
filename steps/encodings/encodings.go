// Package encodings holds every legal encoding of a value (package jsonform) as the sweeps use
// it: the result, event and handler sweeps send their every-field values again with every
// integral number written as a float (5.0), every number in exponent form (5e0), and every
// string escaped with its object's keys reversed. The application must get the same value: the
// checks are the sweeps' own (what the application received equals what the runtime sent,
// decoded), nothing dropped or raised. A sweep keeps a Tally of what it sent in its form.
package encodings

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/jsonform"
)

// Forms are the forms by their wording in the features.
var Forms = map[string]jsonform.Form{
	"with every integer written as a float":           jsonform.Floats,
	"with every number in exponent form":              jsonform.Exponents,
	"with every string escaped and its keys reversed": jsonform.Escapes,
}

// Tally is one scenario's encodings: the form runtime-to-SDK params are written in (Params, ""
// for as they are), and what the scenario sent in its form: the values (results, events,
// params) the form changed, and the members it wrote differently.
type Tally struct {
	Params jsonform.Form
	form   jsonform.Form
	values int
	n      jsonform.Tally
}

// Encode writes v in form and counts it; ok is false when the form changes nothing in it (a
// value without numbers is not sent again as floats: there is nothing to judge; one whose
// objects have two keys or more is sent again escaped, its keys reversed). A form other than
// the one counted so far starts the count again.
func (t *Tally) Encode(form jsonform.Form, v any) (json.RawMessage, bool, error) {
	raw, n, err := jsonform.Encode(v, form)
	if err != nil {
		return nil, false, err
	}
	if n.Fields()+n.Objects == 0 {
		return nil, false, nil
	}
	if t.form != form {
		*t = Tally{Params: t.Params, form: form}
	}
	t.values++
	t.n = t.n.Add(n)
	return raw, true, nil
}

// Observer is where the count is recorded: the scenario's observations (scenario.Scenario).
type Observer interface{ Observe(key, value string) }

// Observe records how many fields the scenario tried in its form (the scenario's output counts
// them per SDK); what names the values sent ("results").
func (t *Tally) Observe(o Observer, what string) {
	if t.form == "" {
		o.Observe("legal encodings tried", "none: no member of the "+what+" sent is written differently in this form")
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
	o.Observe("legal encodings tried", fmt.Sprintf("%s: %s in %d %s", t.form, strings.Join(parts, ", "), t.values, what))
}

// Wire are a runtime-to-SDK call's params as the runtime writes them: in Params when the
// scenario has one, else as they are.
func (t *Tally) Wire(params map[string]any) any {
	if t.Params == "" {
		return params
	}
	raw, ok, err := t.Encode(t.Params, params)
	if err != nil || !ok {
		return params
	}
	return raw
}
