// Command driver is the conformance driver for the Go Copilot SDK
// (github.com/github/copilot-sdk/go). It reads protocol commands from stdin, one JSON
// object per line, runs them through the real SDK and writes responses and events to stdout.
// See ../PROTOCOL.md.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"reflect"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	copilot "github.com/github/copilot-sdk/go"
)

const (
	sdkModule       = "github.com/github/copilot-sdk/go"
	protocolVersion = 1
)

// ---- output -----------------------------------------------------------------------------

// out is the protocol stream. os.Stdout is pointed at stderr in main so that nothing the SDK
// prints (it has a few fmt.Printf calls) can corrupt the protocol.
type writer struct {
	mu sync.Mutex
	w  *bufio.Writer
}

var out *writer

func (o *writer) line(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		log.Printf("driver: cannot encode %T: %v", v, err)
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.w.Write(b)
	o.w.WriteByte('\n')
	o.w.Flush()
}

func event(name string, args map[string]any) {
	out.line(map[string]any{"event": name, "args": args})
}

// ---- protocol types ---------------------------------------------------------------------

type command struct {
	ID   int64           `json:"id"`
	Cmd  string          `json:"cmd"`
	Args json.RawMessage `json:"args"`
}

type toolSpec struct {
	Name                 string         `json:"name"`
	Description          *string        `json:"description"`
	Parameters           map[string]any `json:"parameters"`
	IsTerminal           *bool          `json:"isTerminal"`
	OverridesBuiltInTool *bool          `json:"overridesBuiltInTool"`
	SkipPermission       *bool          `json:"skipPermission"`
	Defer                *string        `json:"defer"`
	Metadata             map[string]any `json:"metadata"`
	OptionOrder          []string       `json:"optionOrder"`
	Handler              handlerSpec    `json:"handler"`
}

type handlerSpec struct {
	Action  string          `json:"action"`
	Text    string          `json:"text"`
	Message string          `json:"message"`
	Prompt  string          `json:"prompt"`
	Label   *string         `json:"label"`
	Value   json.RawMessage `json:"value"`
	Result  json.RawMessage `json:"result"`
	// WaitFor names a tool whose handler must return before this one acts (waitfor.go).
	WaitFor *string `json:"waitFor"`
}

// outcome of one command.
type unsupported struct{ reason string }

func (u unsupported) Error() string { return u.reason }

type driverError struct{ msg string }

func (d driverError) Error() string { return d.msg }

func driverErrorf(format string, a ...any) error { return driverError{fmt.Sprintf(format, a...)} }

// ---- state ------------------------------------------------------------------------------

// sessionRef lets tool handlers, built before the SDK returns the session, reach it later.
type sessionRef struct {
	handle string
	mu     sync.RWMutex
	s      *copilot.Session
}

func (r *sessionRef) get() *copilot.Session {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.s
}

func (r *sessionRef) set(s *copilot.Session) {
	r.mu.Lock()
	r.s = s
	r.mu.Unlock()
}

type driver struct {
	mu       sync.Mutex
	clients  map[string]*copilot.Client
	sessions map[string]*sessionRef
}

func (d *driver) client(handle string) (*copilot.Client, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	c, ok := d.clients[handle]
	if !ok {
		return nil, driverErrorf("unknown client %q", handle)
	}
	return c, nil
}

func (d *driver) session(handle string) (*copilot.Session, *sessionRef, error) {
	d.mu.Lock()
	ref, ok := d.sessions[handle]
	d.mu.Unlock()
	if !ok || ref.get() == nil {
		return nil, nil, driverErrorf("unknown session %q", handle)
	}
	return ref.get(), ref, nil
}

// ---- version ----------------------------------------------------------------------------

// sdkVersion reads the SDK module this binary was built with from its embedded build info.
func sdkVersion() (version, source string) {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown", "go:" + sdkModule
	}
	for _, m := range bi.Deps {
		if m.Path != sdkModule {
			continue
		}
		if r := m.Replace; r != nil {
			if strings.HasPrefix(r.Path, "/") || strings.HasPrefix(r.Path, ".") {
				// Replaced by a local directory (--sdk-source): no release version.
				return "(devel)", "local:" + r.Path
			}
			return r.Version, "go:" + r.Path + "@" + r.Version
		}
		return m.Version, "go:" + m.Path + "@" + m.Version
	}
	return "unknown", "go:" + sdkModule
}

// setToolsMethod finds a high-level Session.SetTools(ctx, []Tool) error, which
// github.com/github/copilot-sdk/go v1.0.14 does not have. It is looked up by reflection so that
// the same driver source compiles against the pinned version and lights up on a version (or
// --sdk-source checkout) that adds the documented method.
func setToolsMethod(s *copilot.Session) (reflect.Value, bool) {
	m, ok := reflect.TypeOf(s).MethodByName("SetTools")
	if !ok {
		return reflect.Value{}, false
	}
	t := m.Type // includes the receiver
	ctxType := reflect.TypeOf((*context.Context)(nil)).Elem()
	errType := reflect.TypeOf((*error)(nil)).Elem()
	if t.NumIn() != 3 || t.In(1) != ctxType || t.In(2) != reflect.TypeOf([]copilot.Tool(nil)) ||
		t.NumOut() != 1 || t.Out(0) != errType {
		return reflect.Value{}, false
	}
	if s == nil {
		return reflect.Value{}, true
	}
	return reflect.ValueOf(s).MethodByName("SetTools"), true
}

func (d *driver) hello() (map[string]any, error) {
	version, source := sdkVersion()
	_, hasSetTools := setToolsMethod(nil)
	caps := map[string]bool{
		"transport.tcp":                 true,
		"transport.stdio":               true,
		"session.resume":                true,
		"tool.isTerminal":               true,
		"tool.isTerminal.explicitFalse": false,
		"tool.overridesBuiltInTool":     true,
		"tool.skipPermission":           true,
		"tool.defer":                    true,
		"tool.metadata":                 true,
		"session.setTools":              hasSetTools,
		"session.clearContext":          true,
		"session.rpc.tools.set":         true,
		"session.rpc.tools.set.nil":     true,
		"session.gitHubToken":           hasSessionToken(),
		"events":                        true,
		"tool.result.value":             true,
		"tool.result.object":            true,
		"tool.result.binary":            true,
		"tool.result.sessionLog":        true,
		"tool.result.telemetry":         true,
		"tool.result.binary.metadata":   hasField(reflect.TypeOf(copilot.ToolBinaryResult{}), "Metadata"),
		"tool.handler.waitFor":          true,
		"handler.hold":                  true,                // holds.go
		"handler.cancel.tool":           toolCancelWay != "", // holds.go: ToolInvocation's context
		"call.cancel.createSession":     true,                // cancel.go: every call below takes the context
		"call.cancel.resumeSession":     true,                // Client.ResumeSession(ctx, …)
		"call.cancel.send":              true,                // Session.Send(ctx, …)
		"call.cancel.sendAndWait":       true,                // Session.SendAndWait(ctx, …)
		"call.cancel.rpc":               true,                // every generated wrapper's first parameter (rpc.go wrappers)
		"error.rpc.code":                false,               // noRPCCode
		"handler.permission":            true,
		"surface":                       true,
		"surface.handlers":              true,
		"surface.handlers.called":       true,              // applyHandlers reports each call
		"rpc.handlers":                  handlersGap == "", // unhandled methods named in connect's / createSession's answer
		"handler.hooks":                 hooksMapped,
		"handler.hooks.inputs":          hooksMapped,       // hookinputs.go
		"rpc.requestHandler":            hasRequestHandler, // connect's requestHandler (requests.go)
		"driver.concurrent":             true,              // main runs each command on a goroutine of its own
	}
	notes := map[string]string{
		"tool.isTerminal.explicitFalse": "copilot.Tool.IsTerminal is a plain bool with `json:\"isTerminal,omitempty\"`: " +
			"an explicit false is indistinguishable from unset and is never sent",
		"tool.overridesBuiltInTool": "plain bool with omitempty: an explicit false is not sent",
		"tool.skipPermission":       "plain bool with omitempty: an explicit false is not sent",
		"tool.metadata":             "map with omitempty: an empty metadata object {} is not sent",
		"session.clearContext":      "through the generated RPC Session.RPC.History.ClearContext (experimental)",
		"session.rpc.tools.set":     "Session.RPC.Tools.Set, with the definitions as given (an empty list is an empty slice)",
		"session.rpc.tools.set.nil": "\"tools\": null is passed as a nil []rpc.ProtocolExternalToolDefinition",
		"transport.tcp":             "copilot.ClientOptions{Connection: copilot.URIConnection{URL: address}}",
		"transport.stdio":           "copilot.ClientOptions{Connection: copilot.StdioConnection{Path: cliPath, Env: ...}}",
		"error.rpc.code":            noRPCCode,
		"handler.cancel.tool":       "copilot.ToolInvocation has no context.Context field: a tool handler cannot learn that the runtime resolved its call",
	}
	if toolCancelWay != "" {
		notes["handler.cancel.tool"] = "copilot.ToolInvocation." + toolCancelWay + " (context.Context): done when the runtime resolves the call (external_tool.completed) or the session ends"
	}
	toolCapabilities(version, caps, notes)
	requestCapabilities(caps, notes)
	connectCapabilities(caps)
	optionCapabilities(version, caps, notes)
	rpcCapabilities(version, caps, notes)
	convertCapabilities(version, caps, notes)
	if !hasSetTools {
		notes["session.setTools"] = fmt.Sprintf("%s %s has no high-level Session.SetTools(ctx, []Tool) "+
			"(only the generated RPC Session.RPC.Tools.Set, which does not swap the handlers)", sdkModule, version)
	}
	if !caps["rpc.requestHandler"] {
		notes["rpc.requestHandler"] = fmt.Sprintf("%s %s has no copilot.CopilotRequestHandler (ClientOptions.RequestHandler, RequestContextFrom)", sdkModule, version)
	}
	if !caps["tool.result.binary.metadata"] {
		notes["tool.result.binary.metadata"] = fmt.Sprintf("%s %s: copilot.ToolBinaryResult has no Metadata field", sdkModule, version)
	}
	return map[string]any{
		"protocolVersion": protocolVersion,
		"sdk":             "go",
		"version":         version,
		"source":          source,
		"capabilities":    caps,
		"notes":           notes,
		"missing":         missingSymbols(caps),
	}, nil
}

// missingSymbols names, for each capability this SDK version lacks, the symbol whose absence
// makes it so, as go doc takes it (PROTOCOL.md "Capability audit"); the harness checks that
// each is really absent.
func missingSymbols(caps map[string]bool) map[string]string {
	symbols := map[string]string{
		"tool.isTerminal":                "copilot.Tool.IsTerminal",
		"tool.overridesBuiltInTool":      "copilot.Tool.OverridesBuiltInTool",
		"tool.skipPermission":            "copilot.Tool.SkipPermission",
		"tool.defer":                     "copilot.Tool.Defer",
		"tool.metadata":                  "copilot.Tool.Metadata",
		"session.setTools":               "copilot.Session.SetTools",
		"session.clearContext":           "rpc.HistoryAPI.ClearContext",
		"session.rpc.tools.set":          "rpc.ToolsAPI.Set",
		"session.gitHubToken":            "copilot.SessionConfig.GitHubToken",
		"transport.stdio":                "copilot.StdioConnection.Env",
		"tool.result.binary.metadata":    "copilot.ToolBinaryResult.Metadata",
		"connect.option.connectionToken": "copilot.URIConnection.ConnectionToken",
		"rpc.requestHandler":             "copilot.CopilotRequestHandler",
		"handler.cancel.tool":            "copilot.ToolInvocation.TraceContext",
		// Not the SDK's absence: what the driver does not do.
		"rpc.handlers":         handlersGap,
		"handler.hooks":        "driver: no hooks.invoke handler without the runtime->SDK handlers (rpc.handlers)",
		"handler.hooks.inputs": "driver: no hooks.invoke handler without the runtime->SDK handlers (rpc.handlers)",
		"convert.roundtrip":    "driver: no generated type registry (zgenerated_types.go is written by gentypes before the build)",
		"surface.callbacks": "driver: the go driver gives a definition no callback of its own: a Go func field may be nil, " +
			"and filling one changes the wire (NamedProviderConfig.BearerTokenProvider announces hasBearerTokenProvider)",
	}
	requestMissing(symbols)
	for name, field := range connectFields {
		symbols["connect.option."+name] = "copilot.ClientOptions." + field
	}
	for name, o := range sessionOptions {
		_, onResume := configType(true).FieldByName(o.field)
		where := "SessionConfig"
		if !onResume || o.resumeOnly {
			where = "ResumeSessionConfig"
		}
		symbols["session.option."+name] = "copilot." + where + "." + o.field
	}
	out := map[string]string{}
	for c, s := range symbols {
		if !caps[c] {
			out[c] = s
		}
	}
	return out
}

// ---- tools ------------------------------------------------------------------------------

func (d *driver) buildTools(ref *sessionRef, specs []toolSpec) ([]copilot.Tool, error) {
	tools := make([]copilot.Tool, 0, len(specs))
	for _, spec := range specs {
		if spec.Name == "" {
			return nil, driverErrorf("tool without a name")
		}
		switch spec.Handler.Action {
		case "return", "fail", "clearContext", "returnValue":
		case "returnResult":
			if _, err := returnResult(spec.Handler.Result); err != nil {
				return nil, err // a field this version lacks is unsupported before the session opens
			}
		default:
			return nil, driverErrorf("tool %q: unknown handler action %q", spec.Name, spec.Handler.Action)
		}
		t := copilot.Tool{Name: spec.Name, Handler: d.handler(ref, spec)}
		// A struct literal has no option order; apply options in optionOrder first anyway so the
		// mapping is the same code path for every order.
		order := append([]string{}, spec.OptionOrder...)
		order = append(order, "description", "parameters", "isTerminal", "overridesBuiltInTool",
			"skipPermission", "defer", "metadata")
		done := map[string]bool{}
		for _, opt := range order {
			if done[opt] {
				continue
			}
			done[opt] = true
			switch opt {
			case "description":
				if spec.Description != nil {
					t.Description = *spec.Description
				}
			case "parameters":
				if spec.Parameters != nil {
					t.Parameters = spec.Parameters
				}
			// Options newer than v1.0.0 are set by field name (compat.go): the spec's field of
			// the same name, when given.
			case "isTerminal", "overridesBuiltInTool", "skipPermission", "defer", "metadata":
				field := strings.ToUpper(opt[:1]) + opt[1:]
				v := reflect.ValueOf(spec).FieldByName(field)
				if v.IsNil() {
					continue
				}
				if v.Kind() == reflect.Pointer {
					v = v.Elem()
				}
				if !setField(&t, field, v.Interface()) {
					return nil, toolOptionMissing(field)
				}
			default:
				return nil, driverErrorf("tool %q: unknown option %q in optionOrder", spec.Name, opt)
			}
		}
		tools = append(tools, t)
	}
	return tools, nil
}

func (d *driver) handler(ref *sessionRef, spec toolSpec) copilot.ToolHandler {
	h := spec.Handler
	return func(inv copilot.ToolInvocation) (copilot.ToolResult, error) {
		defer markReturned(ref.handle, spec.Name)
		if h.WaitFor != nil && !awaitReturned(ref.handle, *h.WaitFor) {
			return copilot.ToolResult{TextResultForLLM: "gave up waiting for the tool " + *h.WaitFor}, nil
		}
		args := map[string]any{"session": ref.handle, "tool": inv.ToolName, "arguments": inv.Arguments}
		if inv.Arguments == nil {
			args["arguments"] = map[string]any{}
		}
		if h.Label != nil {
			args["label"] = *h.Label
		}
		event("tool.invoked", args)
		reached := time.Now()
		awaitHeldTold(ref.handle, "tool "+spec.Name, toolCancelled(inv), func() {
			event("tool.cancelled", map[string]any{"session": ref.handle, "tool": inv.ToolName,
				"way":     "copilot.ToolInvocation." + toolCancelWay + " (context.Context) done",
				"afterMs": time.Since(reached).Milliseconds()})
		})

		switch h.Action {
		case "return":
			return copilot.ToolResult{TextResultForLLM: h.Text}, nil
		case "fail":
			return copilot.ToolResult{}, errors.New(h.Message)
		case "returnValue":
			return returnValue(h.Value, inv)
		case "returnResult":
			return returnResult(h.Result)
		case "clearContext":
			s := ref.get()
			if s == nil {
				return copilot.ToolResult{}, fmt.Errorf("driver: session %q not known yet", ref.handle)
			}
			ctx := inv.TraceContext
			if ctx == nil {
				ctx = context.Background()
			}
			cleared, err := clearContextRPC(ctx, s, h.Prompt)
			if err != nil {
				event("tool.clearContext", map[string]any{"session": ref.handle, "tool": inv.ToolName, "error": err.Error()})
				return copilot.ToolResult{}, errors.New(err.Error())
			}
			event("tool.clearContext", map[string]any{"session": ref.handle, "tool": inv.ToolName, "messagesCleared": cleared})
			text := strings.ReplaceAll(h.Text, "{messagesCleared}", strconv.FormatInt(cleared, 10))
			return copilot.ToolResult{TextResultForLLM: text}, nil
		}
		return copilot.ToolResult{}, fmt.Errorf("driver: unknown handler action %q", h.Action)
	}
}

func (d *driver) onEvent(ref *sessionRef) copilot.SessionEventHandler {
	return func(ev copilot.SessionEvent) {
		raw, err := json.Marshal(ev)
		if err != nil {
			log.Printf("driver: cannot encode session event %s: %v", ev.Type(), err)
			return
		}
		var shape struct {
			Type string          `json:"type"`
			Data json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal(raw, &shape); err != nil {
			log.Printf("driver: cannot decode session event %s: %v", ev.Type(), err)
			return
		}
		data := shape.Data
		if len(data) == 0 || string(data) == "null" {
			data = json.RawMessage("{}")
		}
		event("session.event", map[string]any{"session": ref.handle, "type": shape.Type, "data": data})
	}
}

// ---- commands ---------------------------------------------------------------------------

func decode[T any](raw json.RawMessage) (T, error) {
	var v T
	if len(raw) == 0 {
		raw = json.RawMessage("{}")
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return v, driverErrorf("bad args: %v", err)
	}
	return v, nil
}

func (d *driver) connect(raw json.RawMessage) (any, error) {
	a, err := decode[struct {
		Client   string                     `json:"client"`
		Address  string                     `json:"address"`
		CLIPath  string                     `json:"cliPath"`
		Env      map[string]string          `json:"env"`
		Options  map[string]json.RawMessage `json:"options"`
		Fields   map[string]json.RawMessage `json:"fields"`
		Handlers map[string]rpcHandlerSpec  `json:"handlers"`
		// RequestHandler is the application's request handler (requests.go).
		RequestHandler *requestHandlerSpec `json:"requestHandler"`
	}](raw)
	if err != nil {
		return nil, err
	}
	if a.Client == "" {
		return nil, driverErrorf("connect needs a client handle")
	}
	var conn copilot.RuntimeConnection
	switch {
	case a.Address != "":
		uc := uriConnection{URL: a.Address}
		if err := applyConnectionToken(&uc, a.Options); err != nil {
			return nil, err
		}
		conn = uc
	case a.CLIPath != "":
		env := []string{}
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "COPILOT_SDK_DEFAULT_CONNECTION=") {
				env = append(env, kv)
			}
		}
		for k, v := range a.Env {
			env = append(env, k+"="+v)
		}
		sc := copilot.StdioConnection{Path: a.CLIPath}
		// When the application sets the client's own Env (a surface field) and the protocol adds
		// nothing, the connection carries none, so the SDK applies the application's (NewClient
		// rejects both at once; a connection Env would take precedence).
		_, appEnv := a.Fields["Env"]
		if (!appEnv || len(a.Env) > 0) && !setField(&sc, "Env", env) { // Env is newer than v1.0.0 (compat.go)
			version, _ := sdkVersion()
			return nil, unsupported{fmt.Sprintf("%s %s: copilot.StdioConnection has no Env", sdkModule, version)}
		}
		conn = sc
	default:
		return nil, driverErrorf("connect needs address or cliPath")
	}
	opts := &copilot.ClientOptions{Connection: conn}
	if err := applyConnectOptions(opts, a.Options); err != nil {
		return nil, err
	}
	if err := applyFields(opts, a.Fields); err != nil {
		return nil, err
	}
	account := clientHandlers(opts, a.Handlers, a.Client)
	if a.RequestHandler != nil {
		served, err := serveRequests(opts, a.RequestHandler, a.Client)
		if err != nil {
			return nil, err
		}
		account = served
	}
	client, err := newClient(opts)
	if err != nil {
		return nil, err
	}
	if err := client.Start(context.Background()); err != nil {
		return nil, err
	}
	d.mu.Lock()
	d.clients[a.Client] = client
	d.mu.Unlock()
	if account != nil {
		return account, nil
	}
	return map[string]any{}, nil
}

// newClient turns NewClient's panics on invalid options into errors.
func newClient(opts *copilot.ClientOptions) (c *copilot.Client, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("copilot.NewClient panicked: %v", r)
		}
	}()
	return copilot.NewClient(opts), nil
}

type sessionArgs struct {
	Client    string                     `json:"client"`
	Session   string                     `json:"session"`
	SessionID string                     `json:"sessionId"`
	Tools     []toolSpec                 `json:"tools"`
	Options   map[string]json.RawMessage `json:"options"`
	// Fields are SDK config fields by their Go name (PROTOCOL.md "Surface").
	Fields map[string]json.RawMessage `json:"fields"`
	// SurfaceHandlers are SDK config handlers by their Go name (PROTOCOL.md "Surface").
	SurfaceHandlers []string `json:"surfaceHandlers"`
	// GitHubToken is the application's per-session token option, passed as given.
	GitHubToken *string `json:"gitHubToken"`
	// Handlers are the runtime-to-SDK handlers to register (handlers.go).
	Handlers map[string]rpcHandlerSpec `json:"handlers"`
	// CancelAfterMs: the application gives up on the opening after that long, through the
	// context it passes (PROTOCOL.md "The application cancels a call").
	CancelAfterMs *int64 `json:"cancelAfterMs"`
}

// hasSessionToken says whether this SDK version's SessionConfig has a GitHubToken string field
// (looked up by reflection so that the driver builds against versions without it).
func hasSessionToken() bool {
	f, ok := reflect.TypeOf(copilot.SessionConfig{}).FieldByName("GitHubToken")
	return ok && f.Type.Kind() == reflect.String
}

// configure applies what createSession and resumeSession share to the SDK's config (cfg is a
// *copilot.SessionConfig or *copilot.ResumeSessionConfig): the permission reports, the session
// options, the surface fields and handlers; it returns the handler names the driver kept.
func configure(cfg any, a sessionArgs, ref *sessionRef, resume bool) ([]string, error) {
	reportPermissions(cfg, ref)
	if err := applyOptions(cfg, a.Options, resume); err != nil {
		return nil, err
	}
	if err := applyFields(cfg, a.Fields); err != nil {
		return nil, err
	}
	return applyHandlers(cfg, a.SurfaceHandlers, a.Session)
}

func (d *driver) openSession(raw json.RawMessage, resume bool) (any, error) {
	a, err := decode[sessionArgs](raw)
	if err != nil {
		return nil, err
	}
	client, err := d.client(a.Client)
	if err != nil {
		return nil, err
	}
	if a.Session == "" {
		return nil, driverErrorf("missing session handle")
	}
	ref := &sessionRef{handle: a.Session}
	tools, err := d.buildTools(ref, a.Tools)
	if err != nil {
		return nil, err
	}
	ctx, cancel := cancelAfter(context.Background(), a.CancelAfterMs)
	defer cancel()
	var s *copilot.Session
	var account map[string]any
	var kept []string
	if resume {
		if a.SessionID == "" {
			return nil, driverErrorf("resumeSession needs sessionId")
		}
		cfg := &copilot.ResumeSessionConfig{
			Tools:               tools,
			OnPermissionRequest: copilot.PermissionHandler.ApproveAll,
			OnEvent:             d.onEvent(ref),
		}
		if kept, err = configure(cfg, a, ref, true); err != nil {
			return nil, err
		}
		account = sessionHandlers(cfg, a.Handlers, a.Session)
		s, err = client.ResumeSession(ctx, a.SessionID, cfg)
	} else {
		cfg := &copilot.SessionConfig{
			Tools:               tools,
			OnPermissionRequest: copilot.PermissionHandler.ApproveAll,
			OnEvent:             d.onEvent(ref),
		}
		if kept, err = configure(cfg, a, ref, false); err != nil {
			return nil, err
		}
		if a.GitHubToken != nil {
			if !hasSessionToken() {
				return nil, unsupported{"this SDK version's SessionConfig has no GitHubToken"}
			}
			reflect.ValueOf(cfg).Elem().FieldByName("GitHubToken").SetString(*a.GitHubToken)
		}
		account = sessionHandlers(cfg, a.Handlers, a.Session)
		s, err = client.CreateSession(ctx, cfg)
	}
	if err != nil {
		return nil, cancelledIf(ctx, err, a.CancelAfterMs)
	}
	ref.set(s)
	d.mu.Lock()
	d.sessions[a.Session] = ref
	d.mu.Unlock()
	out := map[string]any{"sessionId": s.SessionID}
	if len(kept) > 0 {
		out["kept"] = kept
	}
	for k, v := range account {
		out[k] = v
	}
	return out, nil
}

func (d *driver) setTools(raw json.RawMessage) (any, error) {
	a, err := decode[sessionArgs](raw)
	if err != nil {
		return nil, err
	}
	if _, ok := setToolsMethod(nil); !ok {
		version, _ := sdkVersion()
		return nil, unsupported{fmt.Sprintf("%s %s has no high-level Session.SetTools(ctx, []Tool); "+
			"only the generated RPC Session.RPC.Tools.Set exists, which does not replace the handlers", sdkModule, version)}
	}
	s, ref, err := d.session(a.Session)
	if err != nil {
		return nil, err
	}
	method, _ := setToolsMethod(s)
	tools, err := d.buildTools(ref, a.Tools)
	if err != nil {
		return nil, err
	}
	res := method.Call([]reflect.Value{reflect.ValueOf(context.Background()), reflect.ValueOf(tools)})
	if e, _ := res[0].Interface().(error); e != nil {
		return nil, e
	}
	return map[string]any{}, nil
}

// setToolsRpc calls the generated Session.RPC.Tools.Set with the application's definitions as
// given (no handlers): an empty list stays an empty slice, a null or absent list a nil one.
func (d *driver) setToolsRpc(raw json.RawMessage) (any, error) {
	a, err := decode[struct {
		Session string            `json:"session"`
		Tools   []json.RawMessage `json:"tools"`
	}](raw)
	if err != nil {
		return nil, err
	}
	s, _, err := d.session(a.Session)
	if err != nil {
		return nil, err
	}
	// The generated request type is reached by reflection (compat.go); the list goes through as
	// given: [] stays an empty list, null a nil slice.
	if _, err := callRPC(context.Background(), s, "Tools", "Set", map[string]any{"tools": a.Tools}); err != nil {
		return nil, err
	}
	return map[string]any{}, nil
}

func (d *driver) clearContext(raw json.RawMessage) (any, error) {
	a, err := decode[struct {
		Session string `json:"session"`
		Prompt  string `json:"prompt"`
	}](raw)
	if err != nil {
		return nil, err
	}
	s, _, err := d.session(a.Session)
	if err != nil {
		return nil, err
	}
	cleared, err := clearContextRPC(context.Background(), s, a.Prompt)
	if err != nil {
		return nil, err
	}
	return map[string]any{"messagesCleared": cleared}, nil
}

func (d *driver) send(raw json.RawMessage) (any, error) {
	a, err := decode[struct {
		Session   string `json:"session"`
		Prompt    string `json:"prompt"`
		Wait      bool   `json:"wait"`
		TimeoutMs *int64 `json:"timeoutMs"`
		// CancelAfterMs: the application gives up after that long (cancel.go).
		CancelAfterMs *int64 `json:"cancelAfterMs"`
	}](raw)
	if err != nil {
		return nil, err
	}
	s, _, err := d.session(a.Session)
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	if a.TimeoutMs != nil && *a.TimeoutMs > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(*a.TimeoutMs)*time.Millisecond)
		defer cancel()
	}
	ctx, cancelled := cancelAfter(ctx, a.CancelAfterMs)
	defer cancelled()
	opts := copilot.MessageOptions{Prompt: a.Prompt}
	if !a.Wait {
		id, err := s.Send(ctx, opts)
		if err != nil {
			return nil, cancelledIf(ctx, err, a.CancelAfterMs)
		}
		return map[string]any{"messageId": id}, nil
	}
	ev, err := s.SendAndWait(ctx, opts)
	if err != nil {
		return nil, cancelledIf(ctx, err, a.CancelAfterMs)
	}
	result := map[string]any{}
	if ev != nil {
		if m, ok := ev.Data.(*copilot.AssistantMessageData); ok {
			result["messageId"] = m.MessageID
			result["content"] = m.Content
		}
	}
	return result, nil
}

func (d *driver) disconnect(raw json.RawMessage) (any, error) {
	a, err := decode[struct {
		Session string `json:"session"`
	}](raw)
	if err != nil {
		return nil, err
	}
	s, _, err := d.session(a.Session)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	delete(d.sessions, a.Session)
	d.mu.Unlock()
	if err := s.Disconnect(); err != nil {
		return nil, err
	}
	return map[string]any{}, nil
}

func (d *driver) stopClient(raw json.RawMessage) (any, error) {
	a, err := decode[struct {
		Client string `json:"client"`
	}](raw)
	if err != nil {
		return nil, err
	}
	c, err := d.client(a.Client)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	delete(d.clients, a.Client)
	d.mu.Unlock()
	if err := c.Stop(); err != nil {
		return nil, err
	}
	return map[string]any{}, nil
}

// forceStopAll releases what is left on exit: it kills runtimes the SDK spawned and closes
// connections, without the graceful RPCs of Client.Stop.
func (d *driver) forceStopAll() {
	d.mu.Lock()
	clients := d.clients
	d.clients = map[string]*copilot.Client{}
	d.mu.Unlock()
	for _, c := range clients {
		c.ForceStop()
	}
}

func (d *driver) dispatch(c command) (result any, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic in %s: %v", c.Cmd, r)
		}
	}()
	switch c.Cmd {
	case "hello":
		return d.hello()
	case "connect":
		return d.connect(c.Args)
	case "createSession":
		return d.openSession(c.Args, false)
	case "resumeSession":
		return d.openSession(c.Args, true)
	case "setTools":
		return d.setTools(c.Args)
	case "setToolsRpc":
		return d.setToolsRpc(c.Args)
	case "clearContext":
		return d.clearContext(c.Args)
	case "send":
		return d.send(c.Args)
	case "disconnect":
		return d.disconnect(c.Args)
	case "stopClient":
		return d.stopClient(c.Args)
	case "surface":
		return d.surface(c.Args)
	case "rpc":
		return d.rpc(c.Args)
	case "rpcBatch":
		return d.rpcBatch(c.Args)
	case "convert":
		return d.convert(c.Args)
	case "hold":
		return hold(c.Args)
	case "release":
		return release(c.Args)
	case "shutdown":
		return map[string]any{}, nil
	}
	// A newer protocol command this driver does not know: the SDK cannot be asked to do it.
	return nil, unsupported{fmt.Sprintf("the go driver has no command %q", c.Cmd)}
}

func respond(id int64, result any, err error) {
	switch e := err.(type) {
	case nil:
		out.line(map[string]any{"id": id, "outcome": "ok", "result": result})
	case unsupported:
		out.line(map[string]any{"id": id, "outcome": "unsupported", "reason": e.reason})
	case driverError:
		out.line(map[string]any{"id": id, "outcome": "error", "error": map[string]any{"type": "DriverError", "message": e.msg}})
	case cancelledError:
		out.line(map[string]any{"id": id, "outcome": "error", "error": map[string]any{"type": fmt.Sprintf("%T", e.err), "message": e.err.Error(), "cancelled": true, "afterCancelMs": e.afterCancel.Milliseconds()}})
	default:
		out.line(map[string]any{"id": id, "outcome": "error", "error": map[string]any{"type": fmt.Sprintf("%T", err), "message": err.Error()}})
	}
}

// noRPCCode is why an application cannot read a JSON-RPC error's code or data from the SDK's
// error (capability error.rpc.code): the type lives in an internal package.
const noRPCCode = "the Go SDK returns a JSON-RPC error as *jsonrpc2.Error of its internal package " +
	"github.com/github/copilot-sdk/go/internal/jsonrpc2 (internal/jsonrpc2/jsonrpc2.go:28 at v1.0.14 and on main), " +
	"which an application cannot import, so errors.As cannot reach its Code and Data (they show only in the message text)"

func main() {
	// Keep the real stdout for the protocol; everything else that writes to os.Stdout (the SDK
	// has stray fmt.Printf calls) or to the log package goes to stderr.
	out = &writer{w: bufio.NewWriter(os.Stdout)}
	os.Stdout = os.Stderr
	log.SetOutput(os.Stderr)
	log.SetFlags(log.Ltime | log.Lmicroseconds)

	d := &driver{clients: map[string]*copilot.Client{}, sessions: map[string]*sessionRef{}}
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	for {
		line, err := in.ReadBytes('\n')
		if len(strings.TrimSpace(string(line))) > 0 {
			var c command
			if jerr := json.Unmarshal(line, &c); jerr != nil {
				log.Printf("driver: unreadable command line: %v", jerr)
				event("log", map[string]any{"message": "unreadable command line: " + jerr.Error()})
			} else if c.Cmd == "shutdown" {
				respond(c.ID, map[string]any{}, nil)
				d.forceStopAll()
				os.Exit(0)
			} else {
				// driver.concurrent: each command runs on its own goroutine, so that one
				// scenario's waiting SDK call does not hold up the others on this process.
				go func() {
					result, cerr := d.dispatch(c)
					respond(c.ID, result, cerr)
				}()
			}
		}
		if err == io.EOF {
			d.forceStopAll()
			os.Exit(0)
		}
		if err != nil {
			log.Printf("driver: reading stdin: %v", err)
			os.Exit(1)
		}
	}
}
