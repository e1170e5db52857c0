package schemagen

import (
	"maps"
	"slices"
)

// ObjectDefinition is one object type a schema defines by name: the types every SDK's generated
// layer declares one of its own for (Go's struct, Python's dataclass, Rust's struct, Java's
// record, .NET's class).
type ObjectDefinition struct {
	Name   string // the definition's name, e.g. "SessionModelSwitchToRequest"
	Schema string // the file defining it: api.schema.json or session-events.schema.json
	ref    string
}

// ObjectDefinitions are the definitions of api.schema.json and session-events.schema.json that
// are objects with properties, sorted by name; a name both files define is api.schema.json's
// (the SDKs generate one type per name).
func (d *Doc) ObjectDefinitions() []ObjectDefinition {
	byName := map[string]ObjectDefinition{}
	for _, f := range []string{eventsFile, apiFile} { // api's last: it wins a shared name
		defs, _ := d.raw[f]["definitions"].(map[string]any)
		for name, n := range defs {
			m, _ := n.(map[string]any)
			props, _ := m["properties"].(map[string]any)
			if m["type"] != "object" || len(props) == 0 {
				continue
			}
			byName[name] = ObjectDefinition{Name: name, Schema: f, ref: f + "#/definitions/" + escape(name)}
		}
	}
	out := make([]ObjectDefinition, 0, len(byName))
	for _, k := range slices.Sorted(maps.Keys(byName)) {
		out = append(out, byName[k])
	}
	return out
}

// DefinitionShapes generates values of the definition in shape s, seeded by its name (so every
// SDK gets the same values); as ResultShapes, a shape that gives the every-field value again
// gives no case, and the second result names values left out because they do not validate.
func (d *Doc) DefinitionShapes(def ObjectDefinition, s Shape) ([]Shaped, []string) {
	return d.shapes(def.ref, "definition "+def.Name, s)
}

// Violations are what makes v invalid against the definition, one "pointer: message" per leaf
// cause, sorted and without repeats; none when it validates.
func (d *Doc) Violations(def ObjectDefinition, v any) []string {
	s, err := d.compile(def.ref)
	if err != nil {
		return []string{err.Error()}
	}
	inst, err := instance(v)
	if err != nil {
		return []string{err.Error()}
	}
	if err := s.Validate(inst); err != nil {
		return leafList(err)
	}
	return nil
}
