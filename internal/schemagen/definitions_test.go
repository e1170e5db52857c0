package schemagen

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestObjectDefinitions(t *testing.T) {
	d, err := Load("testdata")
	require.NoError(t, err)
	var names []string
	for _, def := range d.ObjectDefinitions() {
		names = append(names, def.Name)
	}
	// Objects with properties of both files, sorted; a union (EnqueueResult, SessionEvent) is none.
	assert.Equal(t, []string{"AbortEvent", "Busy", "Closed", "Handled", "IdleEvent", "ListRequest", "ListResult", "LogPage", "Model", "Refused"}, names)
}

func TestDefinitionShapesValidate(t *testing.T) {
	d, err := Load("testdata")
	require.NoError(t, err)
	for _, def := range d.ObjectDefinitions() {
		for _, s := range []Shape{EveryField, RequiredOnly, Nulls, Unions} {
			values, dropped := d.DefinitionShapes(def, s)
			assert.Empty(t, dropped, "%s %s", def.Name, s)
			for _, v := range values {
				assert.Empty(t, d.Violations(def, v.Value), "%s %s %s", def.Name, s, v.Name)
			}
		}
	}
}

func TestViolations(t *testing.T) {
	d, err := Load("testdata")
	require.NoError(t, err)
	var model ObjectDefinition
	for _, def := range d.ObjectDefinitions() {
		if def.Name == "Model" {
			model = def
		}
	}
	require.Equal(t, "Model", model.Name)
	every, _ := d.DefinitionShapes(model, EveryField)
	require.Len(t, every, 1)
	tests := []struct {
		name  string
		value any
		bad   bool
	}{
		{"the generated value", every[0].Value, false},
		{"not an object", "x", true},
		{"empty", map[string]any{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.bad, len(d.Violations(model, tt.value)) > 0)
		})
	}
}
