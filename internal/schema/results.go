package schema

import (
	"bytes"
	"encoding/json"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Results validates the results a runtime answers against the schema's "result" of each
// method (the schema/runtime skew: a runtime whose answers do not validate against its own
// published schema). Kept apart from Validator, which checks what the SDKs send.
type Results struct {
	methods map[string]*jsonschema.Schema
	listed  map[string]bool // every rpcMethod, with a result schema or without
}

// CompileResults builds a Results from the schema document's bytes; a method whose result
// schema does not compile is left out.
func CompileResults(doc []byte) (*Results, error) {
	parsed, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(resource, parsed); err != nil {
		return nil, err
	}
	var raw map[string]any
	if err := json.Unmarshal(doc, &raw); err != nil {
		return nil, err
	}
	r := &Results{methods: map[string]*jsonschema.Schema{}, listed: map[string]bool{}}
	eachMethod(raw, func(method, ptr string, m map[string]any) {
		r.listed[method] = true
		if res, has := m["result"]; has && res != nil {
			if s, err := c.Compile(resource + "#" + ptr + "/result"); err == nil {
				r.methods[method] = s
			}
		}
	})
	return r, nil
}

// Has says whether the schema describes the method's result.
func (r *Results) Has(method string) bool { return r.methods[method] != nil }

// Check returns where a result breaks the method's result schema (nothing for a method
// whose result the schema does not describe).
func (r *Results) Check(method string, result json.RawMessage) []Violation {
	s := r.methods[method]
	if s == nil {
		return nil
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(result))
	if err != nil {
		return []Violation{{Pointer: "/", Message: "result is not JSON: " + err.Error()}}
	}
	return violations(s.Validate(inst), "")
}

// Listed says whether the schema lists the method.
func (r *Results) Listed(method string) bool { return r.listed[method] }
