package main

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestLost(t *testing.T) {
	for _, tc := range []struct {
		name        string
		given, held string
		want        []string
	}{
		{"same", `{"a":1,"b":[true,"x"],"c":{"d":null}}`, `{"a":1.0,"b":[true,"x"],"c":{"d":null}}`, nil},
		{"null dropped", `{"a":null,"b":2}`, `{"b":2}`, []string{"/a"}},
		{"unknown key", `{"x~y/z":{"q":1}}`, `{}`, []string{"/x~0y~1z"}},
		{"nested change", `{"l":[{"k":"v"},{"k":"w"}]}`, `{"l":[{"k":"v"},{"k":""}]}`, []string{"/l/1/k"}},
		{"list shortened", `{"l":[1,2]}`, `{"l":[1]}`, []string{"/l"}},
		{"added key is not a params pointer", `{}`, `{"extra":0}`, nil},
		{"big integers exact", `{"n":9007199254740993}`, `{"n":9007199254740992}`, []string{"/n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := lost(json.RawMessage(tc.given), json.RawMessage(tc.held))
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("lost(%s, %s) = %v, want %v", tc.given, tc.held, got, tc.want)
			}
		})
	}
}

func TestWrappersFoundByReflection(t *testing.T) {
	server, session := wrappers()
	for _, k := range []string{"ping", "models.list", "plugins.marketplaces.list"} {
		if _, ok := server[k]; !ok {
			t.Errorf("client wrapper %q not found among %d", k, len(server))
		}
	}
	for _, k := range []string{"model.switchto", "tools.set", "githubauth.getstatus"} {
		if _, ok := session[k]; !ok {
			t.Errorf("session wrapper %q not found among %d", k, len(session))
		}
	}
}
