// Package schema validates recorded requests against the runtime's own published JSON Schema
// (api.schema.json, shipped in the npm platform package @github/copilot-sdk-<platform>; taken
// from the prepared Node driver at setup, never committed).
//
// The schema lists methods under server/session/… groups, each with "rpcMethod" and "params".
// A method it describes is validated whole. session.create and session.resume are not described
// there, but their tools are the schema's ProtocolExternalToolDefinition, so each tool entry of
// those requests is validated against that definition.
package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

var english = message.NewPrinter(language.English)

const resource = "https://copilot-runtime.invalid/api.schema.json"

// ToolDefinition is the definition every tool entry must satisfy.
const ToolDefinition = "ProtocolExternalToolDefinition"

// Validator checks request params.
type Validator struct {
	methods map[string]*jsonschema.Schema
	results map[string]*jsonschema.Schema // each method's result schema, where it has one
	names   []string                      // every rpcMethod the schema lists, with params or without
	tool    *jsonschema.Schema
	Source  string // the file the schema came from
}

// Load compiles every method's params schema from an api.schema.json file.
func Load(path string) (*Validator, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	v, err := Compile(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	v.Source = path
	return v, nil
}

// Compile builds a Validator from the schema document's bytes.
func Compile(doc []byte) (*Validator, error) {
	parsed, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return nil, err
	}
	hoisted := Hoist(parsed)
	c := jsonschema.NewCompiler()
	if err := c.AddResource(resource, parsed); err != nil {
		return nil, err
	}
	var raw map[string]any
	if err := json.Unmarshal(doc, &raw); err != nil {
		return nil, err
	}
	v := &Validator{methods: map[string]*jsonschema.Schema{}, results: map[string]*jsonschema.Schema{}}
	var errs []string
	eachMethod(raw, func(method, ptr string, m map[string]any) {
		v.names = append(v.names, method)
		if p, has := m["params"]; has && p != nil {
			s, err := c.Compile(resource + "#" + hoisted.Of(ptr+"/params"))
			if err != nil {
				errs = append(errs, fmt.Sprintf("%s: %v", method, err))
			} else {
				v.methods[method] = s
			}
		}
		// A result schema that refers into another file (session-events.schema.json) does
		// not compile alone: that method's answers go unchecked (ResultsChecked counts them).
		if r, has := m["result"]; has && r != nil {
			if s, err := c.Compile(resource + "#" + hoisted.Of(ptr+"/result")); err == nil {
				v.results[method] = s
			}
		}
	})
	if len(errs) > 0 {
		sort.Strings(errs)
		return nil, fmt.Errorf("compiling the schema: %s", strings.Join(errs, "; "))
	}
	if defs, ok := raw["definitions"].(map[string]any); ok {
		if _, ok := defs[ToolDefinition]; ok {
			if v.tool, err = c.Compile(resource + "#/definitions/" + ToolDefinition); err != nil {
				return nil, err
			}
		}
	}
	return v, nil
}

// Hoist makes each method's params and result schema in a parsed api.schema.json document
// (jsonschema.UnmarshalJSON's) a subschema the validator library knows from the start, by
// listing the same objects under "$defs" (a keyword of the document's draft 2019-09): the
// library compiles a pointer that is no keyword's subschema by first copying its record of
// every subschema of the document, once per such pointer, which made compiling the ~700 method
// pointers quadratic (measured: a quarter of the harness's CPU time in a run of two SDKs). It
// returns where each method pointer went ("/server/ping/params" -> "/$defs/…"). The schemas are the same objects under
// the same root, so their $refs resolve as before.
func Hoist(doc any) Pointers {
	out := Pointers{}
	root, ok := doc.(map[string]any)
	if !ok {
		return out
	}
	defs, _ := root["$defs"].(map[string]any)
	if defs == nil {
		defs = map[string]any{}
	}
	eachMethod(root, func(_, ptr string, m map[string]any) {
		for _, part := range []string{"params", "result"} {
			if sub, ok := m[part].(map[string]any); ok {
				key := "conformance:" + ptr + "/" + part
				defs[key] = sub
				out[ptr+"/"+part] = "/$defs/" + escape(key)
			}
		}
	})
	if len(defs) > 0 {
		root["$defs"] = defs
	}
	return out
}

// Pointers maps a method pointer to where Hoist listed its schema.
type Pointers map[string]string

// Of is where to compile ptr from: where Hoist listed it, or ptr itself.
func (p Pointers) Of(ptr string) string {
	if to, ok := p[ptr]; ok {
		return to
	}
	return ptr
}

func escape(k string) string { return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1") }

// Names lists every method the schema describes (sorted), including those without params.
func (v *Validator) Names() []string {
	out := append([]string(nil), v.names...)
	sort.Strings(out)
	return slices.Compact(out)
}

// Methods is the number of methods the schema describes.
func (v *Validator) Methods() int { return len(v.methods) }

// Violation is one place where a request's params (or an answer's result) break the schema.
type Violation struct {
	Pointer string // JSON pointer into the params, "/" for the whole
	Message string
	Keyword string // the schema keyword that failed (required, type, enum, additionalProperties, …)
}

func (v Violation) String() string { return v.Pointer + ": " + v.Message }

// Check returns the violations in the params of a request, sorted as "pointer: message".
// A method the schema does not describe returns nothing (except the tools rule above).
func (v *Validator) Check(method string, params json.RawMessage) []Violation {
	if len(params) == 0 {
		params = json.RawMessage("{}")
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(params))
	if err != nil {
		return []Violation{{Pointer: "/", Message: "params are not JSON: " + err.Error()}}
	}
	if s := v.methods[method]; s != nil {
		return violations(s.Validate(inst), "")
	}
	if v.tool == nil || (method != "session.create" && method != "session.resume") {
		return nil
	}
	obj, _ := inst.(map[string]any)
	tools, _ := obj["tools"].([]any)
	var out []Violation
	for i, t := range tools {
		out = append(out, violations(v.tool.Validate(t), fmt.Sprintf("/tools/%d", i))...)
	}
	sortViolations(out)
	return out
}

// CheckResult returns the violations in the result the SDK answered a call of method with (the
// runtime-to-SDK methods: the SDK's handler's answer), its pointers under "/result". A method
// whose result the schema does not describe returns nothing.
func (v *Validator) CheckResult(method string, result json.RawMessage) []Violation {
	s := v.results[method]
	if s == nil {
		return nil
	}
	if len(result) == 0 {
		result = json.RawMessage("null")
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(result))
	if err != nil {
		return []Violation{{Pointer: "/result", Message: "the result is not JSON: " + err.Error()}}
	}
	return violations(s.Validate(inst), "/result")
}

// violations flattens a validation error into its leaf causes, each with its instance pointer.
func violations(err error, prefix string) []Violation {
	if err == nil {
		return nil
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return []Violation{{Pointer: prefix + "/", Message: err.Error()}}
	}
	var out []Violation
	var leaves func(e *jsonschema.ValidationError)
	leaves = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			ptr := prefix + "/" + strings.Join(escapeAll(e.InstanceLocation), "/")
			if len(e.InstanceLocation) == 0 {
				ptr = prefix
				if ptr == "" {
					ptr = "/"
				}
			}
			out = append(out, Violation{Pointer: ptr, Message: Ordered(e.ErrorKind).LocalizedString(english), Keyword: strings.Join(e.ErrorKind.KeywordPath(), "/")})
			return
		}
		for _, c := range e.Causes {
			leaves(c)
		}
	}
	leaves(ve)
	sortViolations(out)
	return out
}

// Ordered sorts the property names a validation error lists (missing, additional), which the
// validator collects in map order, so that one failure's message reads the same in every run
// (shards, replays and diffs compare messages).
func Ordered(k jsonschema.ErrorKind) jsonschema.ErrorKind {
	switch k := k.(type) {
	case *kind.Required:
		sort.Strings(k.Missing)
	case *kind.Dependency:
		sort.Strings(k.Missing)
	case *kind.DependentRequired:
		sort.Strings(k.Missing)
	case *kind.AdditionalProperties:
		sort.Strings(k.Properties)
	}
	return k
}

// sortViolations orders violations by their text, as reports list them.
func sortViolations(vs []Violation) {
	sort.Slice(vs, func(i, j int) bool { return vs[i].String() < vs[j].String() })
}

func escapeAll(parts []string) []string {
	out := make([]string, len(parts))
	for i, p := range parts {
		out[i] = escape(p)
	}
	return out
}

// eachMethod calls fn for each method of an API schema document (an object with rpcMethod, at
// the JSON pointer ptr); the definitions are not methods and are not walked.
func eachMethod(raw map[string]any, fn func(method, ptr string, m map[string]any)) {
	var walk func(node any, ptr string)
	walk = func(node any, ptr string) {
		m, ok := node.(map[string]any)
		if !ok {
			return
		}
		if method, ok := m["rpcMethod"].(string); ok {
			fn(method, ptr, m)
			return
		}
		for k, child := range m {
			if k == "definitions" || k == "$defs" {
				continue
			}
			walk(child, ptr+"/"+escape(k))
		}
	}
	walk(raw, "")
}
