package main

// Connect options (PROTOCOL.md "Connect options"), set by field name like the session options
// (compat.go), so a version without the field answers unsupported.

import (
	"encoding/json"
	"fmt"
	"reflect"

	copilot "github.com/github/copilot-sdk/go"
)

var connectFields = map[string]string{
	"clientInfo":      "ClientInfo",
	"gitHubTelemetry": "OnGitHubTelemetry",
}

func connectCapabilities(caps map[string]bool) {
	caps["connect.option.connectionToken"] = hasField(reflect.TypeOf(uriConnection{}), "ConnectionToken")
	for name, field := range connectFields {
		caps["connect.option."+name] = hasField(reflect.TypeOf(copilot.ClientOptions{}), field)
	}
}

func connectMissing(what string) error {
	version, _ := sdkVersion()
	return unsupported{fmt.Sprintf("%s %s: %s", sdkModule, version, what)}
}

func applyConnectionToken(uc *uriConnection, options map[string]json.RawMessage) error {
	raw, ok := options["connectionToken"]
	if !ok {
		return nil
	}
	var token string
	if err := json.Unmarshal(raw, &token); err != nil {
		return driverErrorf("connect option connectionToken: %v", err)
	}
	if !setField(uc, "ConnectionToken", token) {
		return connectMissing("copilot.URIConnection has no ConnectionToken")
	}
	return nil
}

func applyConnectOptions(opts *copilot.ClientOptions, options map[string]json.RawMessage) error {
	v := reflect.ValueOf(opts).Elem()
	for name, raw := range options {
		if name == "connectionToken" {
			continue // on the connection (applyConnectionToken)
		}
		field, known := connectFields[name]
		if !known {
			return unsupported{fmt.Sprintf("the go driver does not know the connect option %q", name)}
		}
		f := v.FieldByName(field)
		if !f.IsValid() {
			return connectMissing("copilot.ClientOptions has no " + field)
		}
		if name == "gitHubTelemetry" {
			if string(raw) != "true" {
				return driverErrorf("connect option gitHubTelemetry takes true (install a callback)")
			}
			f.Set(noAnswer(f.Type()))
			continue
		}
		p := reflect.New(f.Type())
		if err := json.Unmarshal(raw, p.Interface()); err != nil {
			return driverErrorf("connect option %s: %v", name, err)
		}
		f.Set(p.Elem())
	}
	return nil
}
