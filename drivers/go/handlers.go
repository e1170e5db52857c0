//go:build !copilot_sdk_no_handlers

package main

// Runtime-to-SDK handlers (PROTOCOL.md "Generated RPC layer", Runtime→SDK methods): for each
// clientSession / clientGlobal method the harness names, register the SDK's public handler or
// provider the way an application would, report what it received (rpc.handled) and return the
// result the harness chose. The mapping from a schema method to the SDK's API (a provider
// interface with positional arguments, a CanvasHandler, config callbacks) is this SDK's API and
// is written here per method on purpose. The file builds against SDK versions that declare
// that API (the recipe sets copilot_sdk_no_handlers otherwise; handlers_none.go).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"time"

	copilot "github.com/github/copilot-sdk/go"
	"github.com/github/copilot-sdk/go/rpc"
)

// hooksMapped: hooks.invoke is registered through SessionHooks (capability handler.hooks).
const hooksMapped = true

// handlersGap is why this build registers no runtime->SDK handler ("": it registers them).
const handlersGap = ""

// rpcHandlerSpec is one entry of the "handlers" argument.
type rpcHandlerSpec struct {
	Params []map[string]any `json:"params"`
	Result json.RawMessage  `json:"result"`
}

type handlerAccount struct {
	Handled   []string          `json:"handled"`
	Unhandled map[string]string `json:"unhandled"`
}

func (a *handlerAccount) add(m string)     { a.Handled = append(a.Handled, m) }
func (a *handlerAccount) no(m, why string) { a.Unhandled[m] = why }
func newAccount() *handlerAccount {
	return &handlerAccount{Handled: []string{}, Unhandled: map[string]string{}}
}
func (a *handlerAccount) result() map[string]any {
	return map[string]any{"handled": a.Handled, "unhandled": a.Unhandled}
}

// reportHandled emits rpc.handled: input is what the handler received in the schema's names;
// unrep the pointers into the result its return type could not hold.
func reportHandled(session, client, method string, input any, unrep []string) {
	args := map[string]any{"method": method, "params": input}
	if session != "" {
		args["session"] = session
	}
	if client != "" {
		args["client"] = client
	}
	if len(unrep) > 0 {
		args["unrepresentable"] = unrep
	}
	event("rpc.handled", args)
	// The handler answers once the harness releases its method (holds.go).
	if session != "" {
		awaitHeld(session, method)
	} else {
		awaitHeld(client, method)
	}
}

// into builds the harness's result as the SDK's type T by field name (construct) and reports the
// pointers T cannot carry.
func into[T any](raw json.RawMessage) (T, []string) {
	var v T
	if len(raw) == 0 || string(raw) == "null" {
		return v, nil
	}
	built, unrep, err := construct(reflect.TypeOf(v), raw)
	if err != nil {
		return v, []string{""}
	}
	return built.Interface().(T), unrep
}

// named puts positional arguments back under the schema's names (a nil pointer left out).
func named(kv ...any) map[string]any {
	out := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		v := kv[i+1]
		if rv := reflect.ValueOf(v); v == nil || (rv.Kind() == reflect.Pointer && rv.IsNil()) {
			continue
		}
		if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer {
			v = rv.Elem().Interface()
		}
		out[kv[i].(string)] = v
	}
	return out
}

func jsonOf(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("unmarshalable: %v", err)
	}
	return json.RawMessage(b)
}

// clientHandlers sets the client options for the client-level handlers (connect).
func clientHandlers(opts *copilot.ClientOptions, specs map[string]rpcHandlerSpec, client string) map[string]any {
	if specs == nil {
		return nil
	}
	acct := newAccount()
	version, _ := sdkVersion()
	for m := range specs {
		switch {
		case m == "gitHubTelemetry.event":
			opts.OnGitHubTelemetry = func(n *rpc.GitHubTelemetryNotification) {
				reportHandled("", client, m, jsonOf(n), nil)
			}
			acct.add(m)
		case strings.HasPrefix(m, "llmInference."):
			acct.no(m, fmt.Sprintf("driver: the %s %s public API for %s is ClientOptions.RequestHandler (a CopilotRequestHandler serving whole HTTP exchanges, whose start/chunk acknowledgements the SDK writes itself), registered by connect's requestHandler (requests.go), not as a per-method handler", sdkModule, version, m))
		case strings.HasPrefix(m, "sessionFs."):
			// The provider answers in POSIX paths; sqlite declared so the sqlite methods reach it.
			opts.SessionFS = &copilot.SessionFSConfig{InitialWorkingDirectory: "/", SessionStatePath: "/session-state",
				Conventions: rpc.SessionFSSetProviderConventionsPosix, Capabilities: &copilot.SessionFSCapabilities{Sqlite: true}}
		}
	}
	return acct.result()
}

// sessionHandlers sets the session config's handlers (create / resume). cfg is
// *copilot.SessionConfig or *copilot.ResumeSessionConfig: the fields are set by name.
func sessionHandlers(cfg any, specs map[string]rpcHandlerSpec, handle string) map[string]any {
	if specs == nil {
		return nil
	}
	acct := newAccount()
	version, _ := sdkVersion()
	var hookInputs map[string]any
	set := func(field string, v any) bool { return setField(cfg, field, v) }
	want := func(m string) bool { _, ok := specs[m]; return ok }
	res := func(m string) json.RawMessage { return specs[m].Result }
	done := func(m string, input any, unrep []string) { reportHandled(handle, "", m, input, unrep) }

	// Session file system: a provider for the session (CreateSessionFSProvider).
	var fs []string
	for m := range specs {
		if strings.HasPrefix(m, "sessionFs.") {
			fs = append(fs, m)
		}
	}
	if len(fs) > 0 {
		p := &fsProvider{res: res, done: done}
		if set("CreateSessionFSProvider", func(*copilot.Session) copilot.SessionFSProvider { return p }) {
			for _, m := range fs {
				acct.add(m)
			}
		} else {
			for _, m := range fs {
				acct.no(m, fmt.Sprintf("%s %s: the session config has no CreateSessionFSProvider", sdkModule, version))
			}
		}
	}

	// Canvases: one declaration per canvas id the runtime will name, one CanvasHandler.
	var canvas []string
	for _, m := range []string{"canvas.open", "canvas.close", "canvas.action.invoke"} {
		if want(m) {
			canvas = append(canvas, m)
		}
	}
	if len(canvas) > 0 {
		actions := map[string][]string{}
		var ids []string
		for _, m := range canvas {
			for _, p := range specs[m].Params {
				id, _ := p["canvasId"].(string)
				if _, seen := actions[id]; !seen {
					ids = append(ids, id)
					actions[id] = nil
				}
				if a, _ := p["actionName"].(string); m == "canvas.action.invoke" && a != "" {
					actions[id] = append(actions[id], a)
				}
			}
		}
		var decls []copilot.CanvasDeclaration
		for _, id := range ids {
			d := copilot.CanvasDeclaration{ID: id, DisplayName: id, Description: "conformance canvas " + id}
			for _, a := range actions[id] {
				desc := "conformance action " + a
				d.Actions = append(d.Actions, rpc.CanvasAction{Name: a, Description: &desc})
			}
			decls = append(decls, d)
		}
		if set("Canvases", decls) && set("CanvasHandler", copilot.CanvasHandler(&canvasHandler{res: res, done: done})) {
			for _, m := range canvas {
				acct.add(m)
			}
		} else {
			for _, m := range canvas {
				acct.no(m, fmt.Sprintf("%s %s: the session config has no Canvases / CanvasHandler", sdkModule, version))
			}
		}
	}

	// BYOK bearer tokens: a named provider per provider name the runtime will ask for.
	if m := "providerToken.getToken"; want(m) {
		var providers []copilot.NamedProviderConfig
		seen := map[string]bool{}
		for _, p := range specs[m].Params {
			name, _ := p["providerName"].(string)
			if seen[name] {
				continue
			}
			seen[name] = true
			providers = append(providers, copilot.NamedProviderConfig{Name: name, Type: "openai", BaseURL: "http://127.0.0.1:9/v1",
				BearerTokenProvider: func(args copilot.ProviderTokenArgs) (string, error) {
					var r struct {
						Token string `json:"token"`
					}
					_ = json.Unmarshal(res(m), &r)
					held, _ := json.Marshal(r)
					done(m, named("providerName", args.ProviderName, "sessionId", args.SessionID), lost(res(m), held))
					return r.Token, nil
				}})
		}
		if set("Providers", providers) {
			acct.add(m)
		} else {
			acct.no(m, fmt.Sprintf("%s %s: the session config has no Providers", sdkModule, version))
		}
	}

	// GitHub token per session (GitHubTokenProvider).
	if m := "gitHubToken.getToken"; want(m) {
		provider := copilot.GitHubTokenProvider(func(args copilot.GitHubTokenProviderArgs) (*copilot.GitHubTokenProviderResult, error) {
			var r struct {
				Kind        string  `json:"kind"`
				AccessToken string  `json:"accessToken"`
				TokenType   *string `json:"tokenType,omitempty"`
				ExpiresIn   int64   `json:"expiresIn"`
			}
			_ = json.Unmarshal(res(m), &r)
			var out *copilot.GitHubTokenProviderResult
			var held any
			if r.Kind == "cancelled" {
				out, held = copilot.GitHubTokenCancelled(), map[string]any{"kind": "cancelled"}
			} else {
				out = copilot.GitHubTokenResult(&copilot.GitHubToken{AccessToken: r.AccessToken, TokenType: r.TokenType, ExpiresIn: r.ExpiresIn})
				held = r
			}
			b, _ := json.Marshal(held)
			done(m, named("host", args.Host, "sessionId", args.SessionID, "reason", string(args.Reason)), lost(res(m), b))
			return out, nil
		})
		if set("GitHubTokenProvider", provider) {
			acct.add(m)
		} else {
			acct.no(m, fmt.Sprintf("%s %s: the session config has no GitHubTokenProvider", sdkModule, version))
		}
	}

	// Hooks: the SessionHooks field named for each hook type the runtime will invoke
	// (preToolUse -> OnPreToolUse), built on the field's own func type.
	if m := "hooks.invoke"; want(m) {
		hooks := &copilot.SessionHooks{}
		hv := reflect.ValueOf(hooks).Elem()
		inputs := map[string]any{}
		for _, p := range specs[m].Params {
			typ, _ := p["hookType"].(string)
			f := hv.FieldByNameFunc(func(n string) bool { return strings.EqualFold(n, "On"+typ) })
			if typ == "" || !f.IsValid() || f.Kind() != reflect.Func {
				continue
			}
			if in := f.Type().In(0); in.Kind() == reflect.Struct {
				inputs[typ] = hookInputType(in)
			}
			f.Set(reflect.MakeFunc(f.Type(), func(args []reflect.Value) []reflect.Value {
				input := map[string]any{"hookType": typ, "input": readHookInput(args[0])}
				if inv, ok := args[1].Interface().(copilot.HookInvocation); ok {
					input["sessionId"] = inv.SessionID
				}
				var r struct {
					Output json.RawMessage `json:"output"`
				}
				_ = json.Unmarshal(res(m), &r)
				out := reflect.New(f.Type().Out(0).Elem())
				var unrep []string
				if len(r.Output) > 0 && string(r.Output) != "null" {
					built, lostPtrs, err := construct(out.Type().Elem(), r.Output)
					if err != nil {
						unrep = []string{"/output"}
					} else {
						out.Elem().Set(built)
						for _, p := range lostPtrs {
							unrep = append(unrep, "/output"+p)
						}
					}
				} else {
					out = reflect.Zero(f.Type().Out(0))
				}
				done(m, input, unrep)
				return []reflect.Value{out, reflect.Zero(f.Type().Out(1))}
			}))
		}
		if set("Hooks", hooks) {
			acct.add(m)
			hookInputs = inputs
		} else {
			acct.no(m, fmt.Sprintf("%s %s: the session config has no Hooks", sdkModule, version))
		}
	}

	// What no public API of this SDK registers a handler for: the generated
	// rpc.ClientSessionAPIHandlers / ClientGlobalAPIHandlers have the slot, but the SDK fills it
	// only internally (Session.clientSessionAPIs is unexported) and no config field takes one.
	for m := range specs {
		if strings.HasPrefix(m, "llmInference.") || m == "gitHubTelemetry.event" {
			continue // client level
		}
		if _, ok := acct.Unhandled[m]; ok || contains(acct.Handled, m) {
			continue
		}
		ns := m[:strings.LastIndex(m, ".")]
		acct.no(m, fmt.Sprintf("%s %s: no public API registers a %s handler (no %s field in SessionConfig or ClientOptions; the rpc.ClientSessionAPIHandlers / ClientGlobalAPIHandlers slot is filled only inside the SDK)", sdkModule, version, m, ns))
	}
	out := acct.result()
	if hookInputs != nil {
		out["hookInputs"] = hookInputs
	}
	return out
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// fsProvider is the application's session file system (copilot.SessionFSProvider and its
// SQLite interfaces): each call reports its positional arguments under the schema's names and
// returns the harness's result, or returns it as an error where the provider API has one (a
// SessionFSError result: the SDK turns an os.ErrNotExist into ENOENT, every other error into
// UNKNOWN).
type fsProvider struct {
	res  func(string) json.RawMessage
	done func(string, any, []string)
}

func (p *fsProvider) r(m string) json.RawMessage { return p.res("sessionFs." + m) }

// fail is the error for a void method's SessionFSError result, nil for a null one.
func (p *fsProvider) fail(m string) error {
	var e struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	}
	raw := p.r(m)
	if len(raw) == 0 || string(raw) == "null" || json.Unmarshal(raw, &e) != nil {
		return nil
	}
	if e.Code == "ENOENT" {
		return notExist(e.Message)
	}
	return errors.New(e.Message)
}

// notExist is an error with exactly the harness's message that is os.ErrNotExist (the SDK
// tells ENOENT by errors.Is and sends err.Error() as the message).
type notExist string

func (e notExist) Error() string        { return string(e) }
func (e notExist) Is(target error) bool { return target == os.ErrNotExist }

func (p *fsProvider) ReadFile(path string) (string, error) {
	v, unrep := into[struct {
		Content string `json:"content"`
	}](p.r("readFile"))
	p.done("sessionFs.readFile", named("path", path), unrep)
	return v.Content, nil
}

func (p *fsProvider) WriteFile(path, content string, mode *int) error {
	p.done("sessionFs.writeFile", named("path", path, "content", content, "mode", mode), nil)
	return p.fail("writeFile")
}

func (p *fsProvider) AppendFile(path, content string, mode *int) error {
	p.done("sessionFs.appendFile", named("path", path, "content", content, "mode", mode), nil)
	return p.fail("appendFile")
}

func (p *fsProvider) Exists(path string) (bool, error) {
	v, unrep := into[struct {
		Exists bool `json:"exists"`
	}](p.r("exists"))
	p.done("sessionFs.exists", named("path", path), unrep)
	return v.Exists, nil
}

func (p *fsProvider) Stat(path string) (*copilot.SessionFSFileInfo, error) {
	v, unrep := into[struct {
		IsFile      bool      `json:"isFile"`
		IsDirectory bool      `json:"isDirectory"`
		Size        int64     `json:"size"`
		Mtime       time.Time `json:"mtime"`
		Birthtime   time.Time `json:"birthtime"`
	}](p.r("stat"))
	p.done("sessionFs.stat", named("path", path), unrep)
	return &copilot.SessionFSFileInfo{IsFile: v.IsFile, IsDirectory: v.IsDirectory, Size: v.Size, Mtime: v.Mtime, Birthtime: v.Birthtime}, nil
}

func (p *fsProvider) MakeDirectory(path string, recursive bool, mode *int) error {
	p.done("sessionFs.mkdir", named("path", path, "recursive", recursive, "mode", mode), nil)
	return p.fail("mkdir")
}

func (p *fsProvider) ReadDirectory(path string) ([]string, error) {
	v, unrep := into[struct {
		Entries []string `json:"entries"`
	}](p.r("readdir"))
	p.done("sessionFs.readdir", named("path", path), unrep)
	return v.Entries, nil
}

func (p *fsProvider) ReadDirectoryWithTypes(path string) ([]rpc.SessionFSReaddirWithTypesEntry, error) {
	v, unrep := into[struct {
		Entries []rpc.SessionFSReaddirWithTypesEntry `json:"entries"`
	}](p.r("readdirWithTypes"))
	p.done("sessionFs.readdirWithTypes", named("path", path), unrep)
	return v.Entries, nil
}

func (p *fsProvider) Remove(path string, recursive, force bool) error {
	p.done("sessionFs.rm", named("path", path, "recursive", recursive, "force", force), nil)
	return p.fail("rm")
}

func (p *fsProvider) Rename(src, dest string) error {
	p.done("sessionFs.rename", named("src", src, "dest", dest), nil)
	return p.fail("rename")
}

func (p *fsProvider) SqliteQuery(queryType rpc.SessionFSSqliteQueryType, query string, params map[string]any) (*copilot.SessionFSSqliteQueryResult, error) {
	v, unrep := into[copilot.SessionFSSqliteQueryResult](p.r("sqliteQuery"))
	input := named("queryType", string(queryType), "query", query)
	if params != nil {
		input["params"] = params
	}
	p.done("sessionFs.sqliteQuery", input, unrep)
	return &v, nil
}

func (p *fsProvider) SqliteExists() (bool, error) {
	v, unrep := into[struct {
		Exists bool `json:"exists"`
	}](p.r("sqliteExists"))
	p.done("sessionFs.sqliteExists", map[string]any{}, unrep)
	return v.Exists, nil
}

func (p *fsProvider) SqliteTransaction(statements []rpc.SessionFSSqliteTransactionStatement) ([]copilot.SessionFSSqliteQueryResult, error) {
	v, unrep := into[struct {
		Results []copilot.SessionFSSqliteQueryResult `json:"results"`
	}](p.r("sqliteTransaction"))
	p.done("sessionFs.sqliteTransaction", map[string]any{"statements": jsonOf(statements)}, unrep)
	return v.Results, nil
}

// canvasHandler is the application's copilot.CanvasHandler: the requests are the generated rpc
// types, reported as the SDK decoded them.
type canvasHandler struct {
	res  func(string) json.RawMessage
	done func(string, any, []string)
}

func (h *canvasHandler) OnOpen(_ context.Context, c rpc.CanvasProviderOpenRequest) (rpc.CanvasProviderOpenResult, error) {
	v, unrep := into[rpc.CanvasProviderOpenResult](h.res("canvas.open"))
	h.done("canvas.open", jsonOf(c), unrep)
	return v, nil
}

func (h *canvasHandler) OnClose(_ context.Context, c rpc.CanvasProviderCloseRequest) error {
	h.done("canvas.close", jsonOf(c), nil)
	return nil
}

func (h *canvasHandler) OnAction(_ context.Context, c rpc.CanvasProviderInvokeActionRequest) (any, error) {
	var v any
	_ = json.Unmarshal(h.res("canvas.action.invoke"), &v)
	h.done("canvas.action.invoke", jsonOf(c), nil)
	return v, nil
}
