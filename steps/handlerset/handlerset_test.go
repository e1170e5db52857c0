package handlerset

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The driver's "handlers" argument names every handler but the exchange's, and the SDK's answer
// marks what it registered, why it has no API for another, and the cases its API lacks.
func TestArgsAndNote(t *testing.T) {
	s := &Set{}
	assert.Nil(t, s.Args(), "no handler: no argument")
	s.Note("connect", json.RawMessage(`{"handled":["a"]}`)) // nothing registered yet: nothing to note
	s.Specs = map[string]*Spec{
		"a": {Params: []map[string]any{{"x": "1"}}, Result: map[string]any{"ok": true}},
		"b": {},
		"c": {Exchange: true},
	}
	assert.Equal(t, map[string]any{
		"a": map[string]any{"params": []any{map[string]any{"x": "1"}}, "result": map[string]any{"ok": true}},
		"b": map[string]any{"params": []any{}, "result": nil},
	}, s.Args())
	s.Note("createSession", json.RawMessage(`{"handled":["a"],"unhandled":{"a":"ignored once handled","b":"no API"},"unhandledCases":{"a":[{"params":{"x":"2"},"reason":"no hook"}]}}`))
	assert.True(t, s.Specs["a"].Registered)
	assert.Empty(t, s.Specs["a"].Reason)
	assert.Equal(t, "no API", s.Specs["b"].Reason)
	assert.False(t, s.Specs["b"].Registered)
	assert.Nil(t, s.Specs["a"].Lacks(map[string]any{"x": "1"}))
	if l := s.Specs["a"].Lacks(map[string]any{"x": "2", "y": 3}); assert.NotNil(t, l) {
		assert.Equal(t, "no hook", l.Reason)
	}
}

// A call is the scenario's when it agrees with one it had the runtime send on every top-level
// string both hold.
func TestScripted(t *testing.T) {
	s := &Set{Asked: []Asked{{Method: "hooks.invoke", Params: map[string]any{"hookType": "preToolUse", "n": 1}}}}
	tests := []struct {
		name   string
		method string
		params map[string]any
		want   bool
	}{
		{"the same strings", "hooks.invoke", map[string]any{"hookType": "preToolUse", "input": map[string]any{}}, true},
		{"a string left out", "hooks.invoke", map[string]any{}, true},
		{"another string", "hooks.invoke", map[string]any{"hookType": "postToolUse"}, false},
		{"another method", "userInput.request", map[string]any{"hookType": "preToolUse"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, s.Scripted(tt.method, tt.params))
		})
	}
}
