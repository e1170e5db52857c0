package surface

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/driver"
	"github.com/copilot-sdk-conformance/conformance/internal/standin"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
)

// Read asks a driver for its SDK's surface (the `surface` command).
func Read(ctx context.Context, c *driver.Client, timeout time.Duration) ([]Entry, error) {
	r, err := c.Call(ctx, "surface", map[string]any{}, timeout)
	if err != nil {
		return nil, err
	}
	if r.Outcome != driver.OK {
		return nil, fmt.Errorf("surface: %s", r.ErrorText())
	}
	var inv struct {
		Entries []Entry `json:"entries"`
	}
	if err := json.Unmarshal(r.Result, &inv); err != nil {
		return nil, fmt.Errorf("surface: %w", err)
	}
	return inv.Entries, nil
}

// Live probes a started driver on a recording runtime of its own (conformance surface); the
// transcript stays in memory.
type Live struct {
	ctx     context.Context
	c       *driver.Client
	timeout time.Duration
	rec     *transcript.Recorder
	addr    string
	clients map[string]string
	n       int
	log     RequestLog
	// Defs generates values of the runtime schema's types (SchemaEnv); nil: none.
	Defs Definitions
	// Callbacks: the driver has capability surface.callbacks (CallbackEnv).
	Callbacks bool
	// SpawnWith: see OpenSpawned.
	SpawnWith []string
	// Providers are the runtime-to-SDK methods of the runtime's schema when the driver registers
	// their handlers (capability rpc.handlers; ProviderEnv); nil: none.
	Providers []string
}

// OpenSpawned implements SpawnEnv: a client that starts the recording runtime (SpawnWith: its
// argv over stdio, conformance runtime --stdio) itself, with the options set, then stopped.
func (l *Live) OpenSpawned(fields map[string]any) (Process, error) {
	if l.SpawnWith == nil {
		return Process{}, fmt.Errorf("no runtime to spawn")
	}
	sp, err := NewSpawner(l.SpawnWith)
	if err != nil {
		return Process{}, err
	}
	l.n++
	c := fmt.Sprintf("sp%d", l.n)
	args := map[string]any{"client": c, "cliPath": sp.CLIPath}
	if fields != nil {
		args["fields"] = fields
	}
	_, err = l.call("connect", args)
	if err == nil {
		_, err = l.call("createSession", map[string]any{"client": c, "session": fmt.Sprintf("p%d", l.n), "tools": []any{}})
		_, _ = l.call("stopClient", map[string]any{"client": c})
	}
	p, readErr := sp.Read()
	if err != nil {
		return p, err
	}
	return p, readErr
}

// FillsCallbacks implements CallbackEnv.
func (l *Live) FillsCallbacks() bool { return l.Callbacks }

// Definition implements SchemaEnv.
func (l *Live) Definition(name string, all bool) (map[string]any, bool) {
	if l.Defs == nil {
		return nil, false
	}
	return l.Defs(name, all)
}

// NewLive starts the recording runtime, answering the schema's methods it does not script with
// answers (generated from the runtime's schema, as in a run; nil: none) so that an option
// registering a provider (a session file system) is answered; Close stops it.
func NewLive(ctx context.Context, c *driver.Client, timeout time.Duration, answers *standin.Answers) (*Live, func(), error) {
	rec := transcript.Memory()
	rt := standin.New(rec, standin.Options{ToolTimeout: timeout, Answers: answers})
	addr, err := rt.Listen("127.0.0.1:0")
	if err != nil {
		return nil, nil, err
	}
	return &Live{ctx: ctx, c: c, timeout: timeout, rec: rec, addr: addr, clients: map[string]string{}}, rt.Close, nil
}

func (l *Live) call(cmd string, args map[string]any) (json.RawMessage, error) {
	r, err := l.c.Call(l.ctx, cmd, args, l.timeout)
	if err != nil {
		return nil, err
	}
	if r.Outcome == driver.Unsupported {
		return nil, fmt.Errorf("%w: %s", ErrCannotHold, r.Reason)
	}
	if r.Outcome != driver.OK {
		return nil, fmt.Errorf("%s", r.ErrorText())
	}
	return r.Result, nil
}

// Open implements Env.
func (l *Live) Open(owner, sessionID string, fields map[string]any) (string, error) {
	c, ok := l.clients[owner]
	if !ok {
		c = fmt.Sprintf("c%d", len(l.clients)+1)
		if _, err := l.call("connect", map[string]any{"client": c, "address": l.addr}); err != nil {
			return "", err
		}
		l.clients[owner] = c
	}
	l.n++
	args := map[string]any{"client": c, "session": fmt.Sprintf("p%d", l.n), "tools": []any{}}
	cmd := "createSession"
	if sessionID != "" {
		cmd, args["sessionId"] = "resumeSession", sessionID
	}
	if fields != nil {
		args["fields"] = fields
	}
	res, err := l.call(cmd, args)
	if err != nil {
		return "", err
	}
	var out struct {
		SessionID string `json:"sessionId"`
	}
	_ = json.Unmarshal(res, &out)
	return out.SessionID, nil
}

// Requests implements Env.
func (l *Live) Requests() []Request { return l.log.Update(l.rec, nil) }

// RequestLog decodes the requests of a growing transcript once each: a probe asks for them after
// every value it sets (hundreds of times a scenario), and decoding the whole transcript each
// time made the probe quadratic; so did copying it (Recorder.Entries) to read the new part.
type RequestLog struct {
	n    int // entries of the recorder read
	reqs []Request
}

// Update returns every request rec recorded, copying and decoding only the entries recorded
// since the last call; keep (nil: every entry) says which entries count, and must keep saying
// so of an entry once it has.
func (l *RequestLog) Update(rec *transcript.Recorder, keep func(transcript.Entry) bool) []Request {
	fresh := rec.EntriesSince(l.n)
	l.n += len(fresh)
	if keep != nil {
		fresh = slices.DeleteFunc(fresh, func(x transcript.Entry) bool { return !keep(x) })
	}
	l.reqs = append(l.reqs, Requests(fresh)...)
	return l.reqs
}

// Requests are the requests of a transcript as Env gives them.
func Requests(entries []transcript.Entry) []Request {
	var out []Request
	for _, r := range transcript.Requests(entries, "") {
		out = append(out, Request{Method: r.Method, Params: ParamsOf(r.Params)})
	}
	return out
}

// OpenClient implements ClientEnv.
func (l *Live) OpenClient(fields map[string]any) error { return l.OpenClientWith(fields, nil) }

// RuntimeMethods implements ProviderEnv.
func (l *Live) RuntimeMethods() []string { return l.Providers }

// OpenClientWith implements ProviderEnv.
func (l *Live) OpenClientWith(fields map[string]any, methods []string) error {
	l.n++
	c := fmt.Sprintf("o%d", l.n)
	args := map[string]any{"client": c, "address": l.addr}
	if fields != nil {
		args["fields"] = fields
	}
	if _, err := l.call("connect", args); err != nil {
		return err
	}
	session := map[string]any{"client": c, "session": fmt.Sprintf("p%d", l.n), "tools": []any{}}
	if len(methods) > 0 {
		session["handlers"] = ProviderHandlers(methods)
	}
	_, err := l.call("createSession", session)
	return err
}

// ProviderHandlers is createSession's "handlers" (drivers/PROTOCOL.md, Runtime→SDK methods)
// registering a handler of each method that nothing calls: no params to expect, no result.
func ProviderHandlers(methods []string) map[string]any {
	h := map[string]any{}
	for _, m := range methods {
		h[m] = map[string]any{"params": []any{}, "result": nil}
	}
	return h
}
