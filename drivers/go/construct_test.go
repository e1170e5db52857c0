package main

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

// A stand-in for an SDK's generated types, with the mistakes construct must not hide.
type shape interface{ isShape() }

type circle struct {
	Radius int `json:"radius"`
}

func (circle) isShape() {}

type wrongTag struct {
	ToolName  string   `json:"toolname"` // the SDK's mistake: the wire wants toolName
	SessionID string   `json:"sessionId"`
	Note      *string  `json:"note,omitempty"`
	Nullable  **string `json:"nullable,omitempty"`
	Flag      bool     `json:"flag,omitempty"`
	Tags      []string `json:"tags"`
	Extra     any      `json:"extra,omitempty"`
}

type withUnion struct {
	Name  string `json:"name"`
	Shape shape  `json:"shape"`
}

func (w *withUnion) UnmarshalJSON(b []byte) error {
	var raw struct {
		Name  string          `json:"name"`
		Shape json.RawMessage `json:"shape"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	w.Name = raw.Name
	if raw.Shape != nil {
		var c circle
		if err := json.Unmarshal(raw.Shape, &c); err != nil {
			return errors.New("not a circle")
		}
		w.Shape = c
	}
	return nil
}

func TestConstruct(t *testing.T) {
	for _, tc := range []struct {
		name    string
		into    any
		given   string
		wire    string   // what the SDK's encoder sends for the built value
		unrep   []string // what the driver reports it cannot carry
		decoded string   // a tally entry the build adds
	}{
		{name: "a wrong json tag shows on the wire (decoding would have dropped the value and called it unrepresentable)",
			into: wrongTag{}, given: `{"toolName":"t","sessionId":"s","tags":[]}`,
			wire: `{"toolname":"t","sessionId":"s","tags":[]}`},
		{name: "a key no field is named for", into: wrongTag{}, given: `{"toolName":"t","other":1,"tags":null}`,
			wire: `{"toolname":"t","sessionId":"","tags":null}`, unrep: []string{"/other"}},
		{name: "values omitempty leaves out", into: wrongTag{}, given: `{"note":null,"flag":false,"tags":["a"]}`,
			wire: `{"toolname":"","sessionId":"","tags":["a"]}`, unrep: []string{"/flag", "/note"}},
		{name: "a **T keeps an explicit null apart from absent", into: wrongTag{}, given: `{"nullable":null,"tags":[]}`,
			wire: `{"toolname":"","sessionId":"","nullable":null,"tags":[]}`},
		{name: "a value of another JSON type", into: wrongTag{}, given: `{"toolName":3,"tags":[1]}`,
			wire: `{"toolname":"","sessionId":"","tags":[""]}`, unrep: []string{"/tags/0", "/toolName"}},
		{name: "any keeps what was given", into: wrongTag{}, given: `{"extra":{"a":[1,2.5,"x",null]},"tags":[]}`,
			wire: `{"toolname":"","sessionId":"","tags":[],"extra":{"a":[1,2.5,"x",null]}}`},
		{name: "a union interface field is decoded by the SDK, that field alone, and tallied", into: withUnion{},
			given: `{"name":"n","shape":{"radius":2}}`, wire: `{"name":"n","shape":{"radius":2}}`,
			decoded: "main.withUnion.Shape (main.shape): the SDK decodes the union interface"},
		{name: "a key the decoded union's variant has no field for is lost (an older SDK's type), not dropped unseen",
			into: withUnion{}, given: `{"name":"n","shape":{"radius":2,"color":"red"}}`, wire: `{"name":"n","shape":{"radius":2}}`,
			unrep: []string{"/shape/color"}},
		{name: "a key no field is named for, in a struct its own decoder builds", into: withUnion{},
			given: `{"name":"n","shape":{"radius":2},"since":1}`, wire: `{"name":"n","shape":{"radius":2}}`,
			unrep: []string{"/since"}, decoded: "main.withUnion: the SDK's UnmarshalJSON chooses its variant"},
		{name: "a union the SDK cannot decode either", into: withUnion{}, given: `{"name":"n","shape":[1]}`,
			wire: `{"name":"n","shape":null}`, unrep: []string{"/shape"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, unrep, err := construct(reflect.TypeOf(tc.into), json.RawMessage(tc.given))
			if err != nil {
				t.Fatal(err)
			}
			got, _ := json.Marshal(v.Interface())
			if string(got) != tc.wire {
				t.Errorf("wire %s, want %s", got, tc.wire)
			}
			if !reflect.DeepEqual(unrep, tc.unrep) {
				t.Errorf("unrepresentable %q, want %q", unrep, tc.unrep)
			}
			if tc.decoded != "" {
				found := false
				for _, d := range decodedSoFar() {
					found = found || d == tc.decoded
				}
				if !found {
					t.Errorf("the tally %q lacks %q", decodedSoFar(), tc.decoded)
				}
			}
		})
	}
}
