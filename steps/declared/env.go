package declared

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/driver"
	"github.com/copilot-sdk-conformance/conformance/internal/suite"
	"github.com/copilot-sdk-conformance/conformance/internal/surface"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/copilot-sdk-conformance/conformance/steps/scenario"
)

// Env runs the surface probes (package surface's Env) through the scenario's driver and
// transcript: the fields sweep's, and the order sweep's generated definitions.
type Env struct {
	w       *scenario.Scenario
	spawned int
	clients map[string]string // owner -> client handle
	log     surface.RequestLog
	// held are the clients of the last OpenClientWith calls, with their runtime connections: the
	// probe is done with each once the next opens, and they are stopped together once
	// surfaceHeld are held (a stop costs about a second in some SDKs, and together they cost one),
	// so the probe holds at most that many, not one per case; cut is each stopped connection's
	// first transcript seq after its stop, whose requests (the client's shutdown) are no case's.
	held []heldClient
	cut  map[string]int
}

type heldClient struct {
	client string
	conns  []string
}

// surfaceHeld is how many finished probe clients are held before they are stopped together.
const surfaceHeld = 8

// stopHeld stops the held probe clients once there are at least n; only a lost driver is an
// error (a client that would not stop is left to the scenario's end, which reports it).
func (e *Env) stopHeld(n int) error {
	if len(e.held) == 0 || len(e.held) < n {
		return nil
	}
	if e.cut == nil {
		e.cut = map[string]int{}
	}
	cut := e.w.Rec.Len() + 1
	var stop []string // the sessions on the held clients: StopClientsOf's unit
	for _, h := range e.held {
		for _, conn := range h.conns {
			e.cut[conn] = cut
		}
		for _, ss := range e.w.Sessions {
			if ss.Client == h.client {
				stop = append(stop, ss.Handle)
				break
			}
		}
	}
	e.held = nil
	return e.w.StopClientsOf(stop)
}

// newConns are the runtime connections first seen in entries (the transcript from a point on).
func newConns(entries, before []transcript.Entry) []string {
	seen := map[string]bool{}
	for _, e := range before {
		seen[e.Conn] = true
	}
	var out []string
	for _, e := range entries {
		if e.Dir == transcript.SDKToRuntime && !seen[e.Conn] {
			seen[e.Conn] = true
			out = append(out, e.Conn)
		}
	}
	return out
}

func (e *Env) Open(owner, sessionID string, fields map[string]any) (string, error) {
	return e.open(owner, sessionID, fields, nil)
}

// open is Open whose session also registers a handler of each runtime-to-SDK method given.
func (e *Env) open(owner, sessionID string, fields map[string]any, methods []string) (string, error) {
	c, ok := e.clients[owner]
	if !ok {
		var err error
		if c, err = e.w.Connect(); err != nil {
			return "", err
		}
		e.clients[owner] = c
	}
	cmd, args := "createSession", map[string]any{"tools": []any{}}
	if sessionID != "" {
		cmd, args["sessionId"] = "resumeSession", sessionID
	}
	if fields != nil {
		args["fields"] = fields
	}
	if len(methods) > 0 {
		args["handlers"] = surface.ProviderHandlers(methods)
	}
	if !strings.HasPrefix(owner, "clientOptions ") { // a client's case is named at its connect
		request := "session.create"
		if sessionID != "" {
			request = "session.resume"
		}
		e.caseStarts(request, fields, methods)
	}
	r, err := e.w.Call(cmd, scenario.MergeHandle(args, c, fmt.Sprintf("p%d", len(e.w.Sessions)+1)))
	e.w.Sessions = append(e.w.Sessions, scenario.Session{Handle: args["session"].(string), Client: c})
	if err != nil {
		return "", err
	}
	if r.Outcome == driver.Unsupported {
		return "", fmt.Errorf("%w: %s", surface.ErrCannotHold, r.Reason)
	}
	if r.Outcome != driver.OK {
		return "", fmt.Errorf("%s", r.ErrorText())
	}
	var res struct {
		SessionID string `json:"sessionId"`
	}
	_ = json.Unmarshal(r.Result, &res)
	return res.SessionID, nil
}

// caseStarts notes that the requests from here on are the case of the fields and handlers set
// (the probe runs one case at a time), so that a diff pairs them with the same case of another
// run wherever it came in the sweep (a version that declares one more field probes it in the
// middle).
func (e *Env) caseStarts(request string, fields map[string]any, methods []string) {
	names := make([]string, 0, len(fields))
	for k := range fields {
		names = append(names, k)
	}
	sort.Strings(names)
	key := request + " " + strings.Join(names, ", ")
	if len(names) == 0 {
		key = request + " (no option)"
	}
	if len(methods) > 0 {
		key += fmt.Sprintf(" with %d handlers", len(methods))
	}
	e.w.Rec.Case("", e.w.Rec.Len()+1, key)
}

// caseEnds ends the probe's cases: what follows is no case's.
func (e *Env) caseEnds() { e.w.Rec.Case("", e.w.Rec.Len()+1, "") }

// OpenClient implements surface.ClientEnv: a client of its own with the options set, and a
// session on it.
func (e *Env) OpenClient(fields map[string]any) error { return e.OpenClientWith(fields, nil) }

// RuntimeMethods implements surface.ProviderEnv: the schema's runtime-to-SDK methods, when the
// driver registers their handlers.
func (e *Env) RuntimeMethods() []string {
	if _, _, lacking := e.w.Lacks("rpc.handlers"); lacking {
		return nil
	}
	doc, err := e.w.Schemas()
	if err != nil {
		return nil
	}
	return doc.RuntimeMethods()
}

// OpenClientWith implements surface.ProviderEnv: OpenClient whose session registers a handler
// of each method.
func (e *Env) OpenClientWith(fields map[string]any, methods []string) error {
	if err := e.stopHeld(surfaceHeld); err != nil {
		return err
	}
	c := fmt.Sprintf("c%d", len(e.w.Clients)+e.w.Stopped+1)
	from := e.w.Rec.Len()
	defer func() {
		all := e.w.Rec.Entries()
		e.held = append(e.held, heldClient{c, newConns(all[from:], all[:from])})
	}()
	e.caseStarts("client", fields, methods)
	args := e.w.WithHandlers(map[string]any{"client": c, "address": e.w.Addr})
	if fields != nil {
		args["fields"] = fields
	}
	r, err := e.w.Call("connect", args)
	if err != nil {
		return err
	}
	switch r.Outcome {
	case driver.Unsupported:
		return fmt.Errorf("%w: %s", surface.ErrCannotHold, r.Reason)
	case driver.OK:
	default:
		return fmt.Errorf("connect: %s", r.ErrorText())
	}
	e.w.Clients = append(e.w.Clients, c)
	key := "clientOptions " + c
	e.clients[key] = c // a session on this very client (Open keeps one client per key)
	_, err = e.open(key, "", nil, methods)
	return err
}

// Definition implements surface.SchemaEnv from the run's loaded schemas (none: no such values).
func (e *Env) Definition(name string, all bool) (map[string]any, bool) {
	doc, err := e.w.Schemas()
	if err != nil {
		return nil, false
	}
	return doc.Definition(name, all)
}

// OpenTimeOptions implements surface.OpenTimeEnv: the properties of the run's schema's
// definitions.SessionOpenOptions (none when the schema is not loaded: not judged).
func (e *Env) OpenTimeOptions() []string {
	doc, err := e.w.Schemas()
	if err != nil {
		return nil
	}
	return doc.Properties(surface.OpenTimeDefinition)
}

// OpenSpawned implements surface.SpawnEnv: a client of its own that starts the recording runtime
// itself (connect with cliPath), with the options set, a session on it, then stopped.
func (e *Env) OpenSpawned(fields map[string]any) (surface.Process, error) {
	var sp surface.ProcessSource
	var err error
	if s, ok := e.w.T.(suite.Spawns); ok {
		sp, err = s.Spawner(e.w.T.StdioRuntime())
	} else {
		sp, err = surface.NewSpawner(e.w.T.StdioRuntime())
	}
	if err != nil {
		return surface.Process{}, err
	}
	e.spawned++
	c := fmt.Sprintf("sp%d", e.spawned)
	args := map[string]any{"client": c, "cliPath": sp.Path()}
	if fields != nil {
		args["fields"] = fields
	}
	r, err := e.w.Call("connect", args)
	if err == nil {
		switch r.Outcome {
		case driver.Unsupported:
			err = fmt.Errorf("%w: %s", surface.ErrCannotHold, r.Reason)
		case driver.OK:
			e.clients["spawned "+c] = c
			_, err = e.Open("spawned "+c, "", nil)
		default:
			err = fmt.Errorf("connect: %s", r.ErrorText())
		}
	}
	// Stopped now: a spawned runtime is a process of its own (a client that would not stop is
	// left to the scenario's end, which reports it).
	if r != nil && r.Outcome == driver.OK {
		if _, stopErr := e.w.Call("stopClient", map[string]any{"client": c}); stopErr != nil {
			e.w.Clients = append(e.w.Clients, c)
		}
	}
	// The facts a replay reads again, in order (no process starts there), and why there were
	// none; the harness's own environment values only as fingerprints.
	p, readErr := sp.Read()
	fact := p.Fact(os.Environ())
	if readErr != nil {
		fact.Error = readErr.Error()
	}
	e.w.Rec.Spawned(fact)
	if err != nil {
		return p, err
	}
	return p, readErr
}

// FillsCallbacks implements surface.CallbackEnv from the driver's capability.
func (e *Env) FillsCallbacks() bool {
	has, _ := e.w.T.Capability("surface.callbacks")
	return has
}

func (e *Env) Requests() []surface.Request {
	var keep func(transcript.Entry) bool
	if len(e.cut) > 0 {
		// An entry kept stays kept (RequestLog reads only what is new): a cut is set before
		// its connection's shutdown is recorded.
		keep = func(x transcript.Entry) bool { cut, ok := e.cut[x.Conn]; return !ok || x.Seq < cut }
	}
	return e.log.Update(e.w.Rec, keep)
}

// Nullable implements surface.NullEnv from the run's schema: the member at inner of the session
// option named like field (definitions.SessionOpenOptions), names matched as the surface
// matches them (surface.Normalize).
func (e *Env) Nullable(field string, inner []string) (bool, bool) {
	doc, err := e.w.Schemas()
	if err != nil {
		return false, false
	}
	match := func(prop, seg string) bool { return surface.Normalize(prop) == surface.Normalize(seg) }
	return doc.Nullable(surface.OpenTimeDefinition, append([]string{field}, inner...), match)
}

// NewEnv is the surface probes' Env on the scenario s.
func NewEnv(s *scenario.Scenario) *Env { return &Env{w: s, clients: map[string]string{}} }

// CaseEnds ends the last probe case: what follows is no case's.
func (e *Env) CaseEnds() { e.caseEnds() }
