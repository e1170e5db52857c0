package main

// Session options (PROTOCOL.md "Session options"): each SDK-neutral option name maps to a field
// of copilot.SessionConfig / copilot.ResumeSessionConfig. The fields are looked up by name with
// reflection, not named in code, so the driver compiles against every published SDK version and
// a version without the field answers `unsupported` instead of failing to build. Values are
// decoded from the option's JSON into the field's own type (the SDK's structs carry the wire's
// camelCase json tags), so what the application gave reaches the SDK untouched.

import (
	"encoding/json"
	"fmt"
	"reflect"

	copilot "github.com/github/copilot-sdk/go"
)

type sessionOption struct {
	field      string // the field of SessionConfig / ResumeSessionConfig
	resumeOnly bool
	handler    bool // true installs a handler that answers nothing (zero values)
	decode     func(raw json.RawMessage, t reflect.Type) (reflect.Value, error)
}

var sessionOptions = map[string]sessionOption{
	"model":                          {field: "Model"},
	"reasoningEffort":                {field: "ReasoningEffort"},
	"systemMessage":                  {field: "SystemMessage"},
	"availableTools":                 {field: "AvailableTools"},
	"excludedTools":                  {field: "ExcludedTools"},
	"streaming":                      {field: "Streaming"},
	"includeSubAgentStreamingEvents": {field: "IncludeSubAgentStreamingEvents"},
	"workingDirectory":               {field: "WorkingDirectory"},
	"customAgents":                   {field: "CustomAgents"},
	"mcpServers":                     {field: "MCPServers", decode: decodeMCPServers},
	"configDiscovery":                {field: "EnableConfigDiscovery"},
	"skillDirectories":               {field: "SkillDirectories"},
	"disabledSkills":                 {field: "DisabledSkills"},
	"infiniteSessions":               {field: "InfiniteSessions"},
	"provider":                       {field: "Provider"},
	"userInputHandler":               {field: "OnUserInputRequest", handler: true},
	"elicitationHandler":             {field: "OnElicitationRequest", handler: true},
	"hooks":                          {field: "Hooks", handler: true},
	"continuePendingWork":            {field: "ContinuePendingWork", resumeOnly: true},
	"suppressResumeEvent":            {field: "SuppressResumeEvent", resumeOnly: true},
}

// optionNotes explains where a Go field cannot carry what the protocol can say.
var optionNotes = map[string]string{
	"suppressResumeEvent": "ResumeSessionConfig.SuppressResumeEvent is a plain bool: an explicit false is not sent",
	"model":               "a plain string with omitempty: an empty model is not sent",
	"workingDirectory":    "a plain string with omitempty: an empty directory is not sent",
}

func configType(resume bool) reflect.Type {
	if resume {
		return reflect.TypeOf(copilot.ResumeSessionConfig{})
	}
	return reflect.TypeOf(copilot.SessionConfig{})
}

// optionCapabilities declares session.option.<name> for hello.
func optionCapabilities(version string, caps map[string]bool, notes map[string]string) {
	for name, o := range sessionOptions {
		_, onCreate := configType(false).FieldByName(o.field)
		_, onResume := configType(true).FieldByName(o.field)
		ok := onResume && (o.resumeOnly || onCreate)
		caps["session.option."+name] = ok
		switch {
		case !ok && !onResume:
			notes["session.option."+name] = fmt.Sprintf("%s %s: ResumeSessionConfig has no %s", sdkModule, version, o.field)
		case !ok:
			notes["session.option."+name] = fmt.Sprintf("%s %s: SessionConfig has no %s", sdkModule, version, o.field)
		case optionNotes[name] != "":
			notes["session.option."+name] = optionNotes[name]
		}
	}
}

// applyOptions sets the options on cfg, a pointer to SessionConfig or ResumeSessionConfig.
func applyOptions(cfg any, options map[string]json.RawMessage, resume bool) error {
	v := reflect.ValueOf(cfg).Elem()
	version, _ := sdkVersion()
	kind := "SessionConfig"
	if resume {
		kind = "ResumeSessionConfig"
	}
	for name, raw := range options {
		o, known := sessionOptions[name]
		if !known {
			return unsupported{fmt.Sprintf("the go driver does not know the session option %q", name)}
		}
		f := v.FieldByName(o.field)
		if !f.IsValid() || (o.resumeOnly && !resume) {
			return unsupported{fmt.Sprintf("%s %s: %s has no %s (session option %s)", sdkModule, version, kind, o.field, name)}
		}
		var val reflect.Value
		var err error
		switch {
		case o.handler:
			if string(raw) != "true" {
				return driverErrorf("session option %s takes true (install a handler)", name)
			}
			switch name {
			case "userInputHandler":
				val = firstChoice(f.Type())
			case "elicitationHandler":
				val = cancelElicitation(f.Type())
			default:
				val = noAnswer(f.Type())
			}
		case o.decode != nil:
			val, err = o.decode(raw, f.Type())
		default:
			p := reflect.New(f.Type())
			err = json.Unmarshal(raw, p.Interface())
			val = p.Elem()
		}
		if err != nil {
			return driverErrorf("session option %s: %v", name, err)
		}
		f.Set(val)
	}
	return nil
}

// noAnswer builds a handler of type t: a func returning zero values, or (for a struct of
// handlers such as SessionHooks) a struct whose OnPreToolUse is such a func.
func noAnswer(t reflect.Type) reflect.Value {
	switch t.Kind() {
	case reflect.Func:
		return reflect.MakeFunc(t, func([]reflect.Value) []reflect.Value {
			outs := make([]reflect.Value, t.NumOut())
			for i := range outs {
				outs[i] = reflect.Zero(t.Out(i))
			}
			return outs
		})
	case reflect.Pointer:
		p := reflect.New(t.Elem())
		p.Elem().Set(noAnswer(t.Elem()))
		return p
	case reflect.Struct:
		s := reflect.New(t).Elem()
		if f := s.FieldByName("OnPreToolUse"); f.IsValid() {
			f.Set(noAnswer(f.Type()))
		}
		return s
	}
	return reflect.Zero(t)
}

// decodeMCPServers builds the SDK's MCP server configs: the field is a map of an interface,
// whose concrete type follows the server's "type" (stdio/local or http/sse).
func decodeMCPServers(raw json.RawMessage, t reflect.Type) (reflect.Value, error) {
	var servers map[string]json.RawMessage
	if err := json.Unmarshal(raw, &servers); err != nil {
		return reflect.Value{}, err
	}
	if servers == nil {
		return reflect.Zero(t), nil
	}
	m := reflect.MakeMapWithSize(t, len(servers))
	for name, s := range servers {
		v, err := mcpServer(mcpType(s), s)
		if err != nil {
			return reflect.Value{}, fmt.Errorf("server %q: %w", name, err)
		}
		if !v.Type().AssignableTo(t.Elem()) {
			return reflect.Value{}, fmt.Errorf("server %q: %s is not a %s", name, v.Type(), t.Elem())
		}
		m.SetMapIndex(reflect.ValueOf(name), v)
	}
	return m, nil
}

// firstChoice builds the user-input handler of PROTOCOL.md for the field's func type: it answers
// the request's first choice, or "ok" as free text when there are none. Fields are reached by
// name (Choices, Answer, WasFreeform) so every version's types fit.
func firstChoice(t reflect.Type) reflect.Value {
	return reflect.MakeFunc(t, func(args []reflect.Value) []reflect.Value {
		outs := make([]reflect.Value, t.NumOut())
		for i := range outs {
			outs[i] = reflect.Zero(t.Out(i))
		}
		if t.NumOut() == 0 || len(args) == 0 {
			return outs
		}
		answer, freeform := "ok", true
		if c := reflect.Indirect(args[0]).FieldByName("Choices"); c.IsValid() && c.Kind() == reflect.Slice && c.Len() > 0 {
			answer, freeform = fmt.Sprint(c.Index(0).Interface()), false
		}
		resp := reflect.New(t.Out(0)).Elem()
		if resp.Kind() == reflect.Struct {
			if f := resp.FieldByName("Answer"); f.IsValid() {
				f.SetString(answer)
			}
			if f := resp.FieldByName("WasFreeform"); f.IsValid() {
				f.SetBool(freeform)
			}
		}
		outs[0] = resp
		return outs
	})
}

// cancelElicitation builds the elicitation handler of PROTOCOL.md: it answers action "cancel".
func cancelElicitation(t reflect.Type) reflect.Value {
	return reflect.MakeFunc(t, func([]reflect.Value) []reflect.Value {
		outs := make([]reflect.Value, t.NumOut())
		for i := range outs {
			outs[i] = reflect.Zero(t.Out(i))
		}
		if t.NumOut() > 0 && t.Out(0).Kind() == reflect.Struct {
			resp := reflect.New(t.Out(0)).Elem()
			if f := resp.FieldByName("Action"); f.IsValid() && f.Kind() == reflect.String {
				f.SetString("cancel")
			}
			outs[0] = resp
		}
		return outs
	})
}
