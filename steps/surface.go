package steps

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/driver"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/suite"
	"github.com/copilot-sdk-conformance/conformance/internal/surface"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/copilot-sdk-conformance/conformance/steps/scenario"
)

// The application's surface (drivers/PROTOCOL.md "Surface"): every field the SDK declares is set
// alone with generated values and found on the wire (package surface). The field list is the
// SDK's own, read by its driver; nothing here names a field.

func (w *world) registerSurface(sc scenario.Binder) {
	scenario.Needing(sc, scenario.Needs("surface", "session.resume")).Step(`^every session config field the SDK declares is set alone, on create and on resume, with values generated from its type$`, w.probeSurface)
	sc.Step(`^each value reaches its request under one key, unchanged, and nothing else in the request changes$`, w.surfaceClean)
}

// surfaceEnv runs the probes through the scenario's driver and transcript.
type surfaceEnv struct {
	w       *world
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
func (e *surfaceEnv) stopHeld(n int) error {
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

func (e *surfaceEnv) Open(owner, sessionID string, fields map[string]any) (string, error) {
	return e.open(owner, sessionID, fields, nil)
}

// open is Open whose session also registers a handler of each runtime-to-SDK method given.
func (e *surfaceEnv) open(owner, sessionID string, fields map[string]any, methods []string) (string, error) {
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
func (e *surfaceEnv) caseStarts(request string, fields map[string]any, methods []string) {
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
func (e *surfaceEnv) caseEnds() { e.w.Rec.Case("", e.w.Rec.Len()+1, "") }

// OpenClient implements surface.ClientEnv: a client of its own with the options set, and a
// session on it.
func (e *surfaceEnv) OpenClient(fields map[string]any) error { return e.OpenClientWith(fields, nil) }

// RuntimeMethods implements surface.ProviderEnv: the schema's runtime-to-SDK methods, when the
// driver registers their handlers.
func (e *surfaceEnv) RuntimeMethods() []string {
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
func (e *surfaceEnv) OpenClientWith(fields map[string]any, methods []string) error {
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
func (e *surfaceEnv) Definition(name string, all bool) (map[string]any, bool) {
	doc, err := e.w.Schemas()
	if err != nil {
		return nil, false
	}
	return doc.Definition(name, all)
}

// OpenTimeOptions implements surface.OpenTimeEnv: the properties of the run's schema's
// definitions.SessionOpenOptions (none when the schema is not loaded: not judged).
func (e *surfaceEnv) OpenTimeOptions() []string {
	doc, err := e.w.Schemas()
	if err != nil {
		return nil
	}
	return doc.Properties(surface.OpenTimeDefinition)
}

// OpenSpawned implements surface.SpawnEnv: a client of its own that starts the recording runtime
// itself (connect with cliPath), with the options set, a session on it, then stopped.
func (e *surfaceEnv) OpenSpawned(fields map[string]any) (surface.Process, error) {
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

// spawns says whether the surface probe can have the SDK start its runtime: the driver connects
// over stdio. The process it starts is the recording runtime on the real runtime's runs too:
// what the probe measures is what the SDK passes the process it spawns (its arguments,
// environment, working directory and first requests, recorded beside it), which no runtime
// takes part in; without it every client option that only reaches that process failed there as
// carried by no request (measured on 1.0.85: 7 to 12 per SDK, Node, Go, Python and Rust).
func (w *world) spawns() bool {
	has, _ := w.T.Capability("transport.stdio")
	return has
}

// FillsCallbacks implements surface.CallbackEnv from the driver's capability.
func (e *surfaceEnv) FillsCallbacks() bool {
	has, _ := e.w.T.Capability("surface.callbacks")
	return has
}

func (e *surfaceEnv) Requests() []surface.Request {
	entries := e.w.Rec.Entries()
	if len(e.cut) > 0 {
		// Append-only still (RequestLog reads only what is new): a cut is set before its
		// connection's shutdown is recorded.
		entries = slices.DeleteFunc(entries, func(x transcript.Entry) bool { cut, ok := e.cut[x.Conn]; return ok && x.Seq >= cut })
	}
	return e.log.Update(entries)
}

func (w *world) probeSurface() error {
	raw, err := w.Do("surface", map[string]any{})
	if err != nil {
		return err
	}
	var inv struct {
		Entries []surface.Entry `json:"entries"`
	}
	if err := json.Unmarshal(raw, &inv); err != nil {
		return fmt.Errorf("the %s driver's surface answer: %w", w.T.SDK(), err)
	}
	if len(inv.Entries) == 0 {
		return fmt.Errorf("the %s driver reported an empty surface", w.T.SDK())
	}
	env := &surfaceEnv{w: w, clients: map[string]string{}}
	w.Expect(surface.Values(env, inv.Entries))
	defer env.caseEnds()
	res, err := surface.Probe(env, inv.Entries)
	if err != nil {
		return err
	}
	client, err := surface.ProbeClient(env, inv.Entries)
	if err != nil {
		return err
	}
	if w.spawns() {
		if err := surface.ProbeSpawned(env, inv.Entries, &client); err != nil {
			return err
		}
	}
	res.Findings = append(res.Findings, client.Findings...)
	res.Unchecked = append(res.Unchecked, client.Unchecked...)
	var listed []surface.ClientSide
	if c, ok := w.T.(suite.ClientSideFields); ok {
		listed = c.ClientSideFields()
	}
	res.JudgeNeverSent(w.T.SDK(), listed)
	w.surface = &res
	if w.Observations == nil {
		w.Observations = map[string]string{}
	}
	for k, v := range res.WireKeys() {
		w.Observations[surface.ObservationPrefix+k] = v
	}
	for _, a := range surface.Actions {
		w.Checked = append(w.Checked, report.Check{Method: a.Request})
	}
	w.Checked = append(w.Checked, report.Check{Method: "connect"})
	var lines []string
	fields, checked := 0, 0
	for _, t := range res.Tally(inv.Entries) {
		fields, checked = fields+t.Fields, checked+t.Checked
		lines = append(lines, fmt.Sprintf("%s: %d of %d fields checked", t.Owner, t.Checked, t.Fields))
		for _, u := range t.Unchecked {
			lines = append(lines, fmt.Sprintf("  %s (%s): %s", u.Entry.Name, u.Entry.Shape, u.Reason))
		}
	}
	// Beside the surface matrix, so a reader sees per SDK how much of its inventory is checked
	// (the transcript's note says why each other field is not).
	w.Observations[surfaceTallyObservation] = fmt.Sprintf("%d of %d", checked, fields)
	w.Rec.Notef("", "surface: %d field values probed; inventoried fields with a generated check, per owner:\n%s", len(res.Findings), strings.Join(lines, "\n"))
	n := res.Nested()
	w.Rec.Notef("", "surface: inside definitions, %d values judged on %d nested member paths (per request), %d of them an edge value ([] / {} / null)", n.Values, n.Fields, n.Edges)
	if opts := env.OpenTimeOptions(); len(opts) > 0 {
		w.Rec.Notef("", "surface: %d options a session opens with (the schema's definitions.%s), each due in session.create / session.resume itself: %s", len(opts), surface.OpenTimeDefinition, strings.Join(opts, ", "))
	} else {
		w.Rec.Notef("", "surface: the schema defines no %s here: where an open-time option arrives is not judged", surface.OpenTimeDefinition)
	}
	return nil
}

// surfaceTallyObservation is the observation holding "checked of inventoried" fields.
const surfaceTallyObservation = "inventoried fields with a generated check (features/surface)"

func (w *world) surfaceClean() error {
	if w.surface == nil {
		return fmt.Errorf("no surface was probed in this scenario")
	}
	ps := w.surface.Problems()
	if len(ps) == 0 {
		return nil
	}
	head := fmt.Sprintf("%d of %d field values did not reach the wire as set", len(ps)-len(w.surface.Judged), len(w.surface.Findings))
	if n := len(w.surface.Judged); n > 0 {
		head += fmt.Sprintf("; %d fields no request carries, or listed as client-side though sent", n)
	}
	return &suite.Divergences{Text: head + ":\n  " + strings.Join(ps, "\n  "), Items: ps}
}

// Nullable implements surface.NullEnv from the run's schema: the member at inner of the session
// option named like field (definitions.SessionOpenOptions), names matched as the surface
// matches them (surface.Normalize).
func (e *surfaceEnv) Nullable(field string, inner []string) (bool, bool) {
	doc, err := e.w.Schemas()
	if err != nil {
		return false, false
	}
	match := func(prop, seg string) bool { return surface.Normalize(prop) == surface.Normalize(seg) }
	return doc.Nullable(surface.OpenTimeDefinition, append([]string{field}, inner...), match)
}
