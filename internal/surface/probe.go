package surface

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
)

// endsProbe says whether an env's error ends the whole probe: its driver is gone (a crash, a
// hang, a protocol break), so every later value would only fail the same way. Env errors say
// so themselves (driver.Failure's EndsScenario), so this package stays free of the driver's.
func endsProbe(err error) bool {
	var e interface{ EndsScenario() bool }
	return errors.As(err, &e) && e.EndsScenario()
}

// Values is how many field values the probes set for entries (each a case of the scenario's
// deadline): every generated value of a session config owner's field on its action, of a
// client option on a client of its own.
func Values(env any, entries []Entry) int {
	n := 0
	for _, e := range entries {
		vs, _ := generateFor(env, entries, e)
		n += len(vs)
	}
	return n
}

// ErrCannotHold marks an Open whose fields the driver could not convert into the SDK's declared
// type (drivers/PROTOCOL.md "Surface": the outcome unsupported): the value is not for this SDK.
var ErrCannotHold = errors.New("the SDK's type cannot hold the value")

// Env is what Probe needs from whoever runs it (a scenario's world, the surface command): the
// driver, and the requests the recording runtime received so far.
type Env interface {
	// Open creates (sessionId "") or resumes a session with the SDK fields set, on a client of
	// its own for the action, and returns the session id; an SDK error or unsupported is err.
	Open(owner, sessionID string, fields map[string]any) (string, error)
	// Requests are every request the runtime received so far, in order.
	Requests() []Request
}

// Request is one request the runtime received.
type Request struct {
	Method string
	Params map[string]any
}

// params are the params of every request of method among rs.
func params(rs []Request, method string) []map[string]any {
	var out []map[string]any
	for _, r := range rs {
		if r.Method == method {
			out = append(out, r.Params)
		}
	}
	return out
}

// ObservationPrefix starts the observation keys Probe's findings are reported under
// ("surface session.create availabletools" -> "availableTools"): the cross-SDK comparison and
// the report's field × SDK matrix read them.
const ObservationPrefix = "surface "

// HandlerPrefix starts the field part of a surface observation about a handler
// ("surface session.create handler onuserinputrequest" -> "requestUserInput=true"): what
// registering it announced in the request (features/surface/handlers.feature).
const HandlerPrefix = "handler "

// Action is one request a config owner's fields belong in.
type Action struct {
	Owner   string // sessionConfig or resumeConfig
	Request string // session.create or session.resume
}

// Actions are the requests Probe checks.
var Actions = []Action{{"sessionConfig", "session.create"}, {"resumeConfig", "session.resume"}}

// Result is everything Probe found for one SDK.
type Result struct {
	Findings  []Finding
	Unchecked []Unchecked // fields without a generated value (or handlers), listed with why
	// Judged are the problems of whole fields rather than of one value (JudgeNeverSent): a
	// declared data field no request carries, an entry saying one is client-side that is stale.
	Judged []string
}

// Unchecked is a field Probe did not set, and why.
type Unchecked struct {
	Entry  Entry
	Reason string
}

// Problems are the findings that fail the SDK, one line each, naming field, value and request.
func (r Result) Problems() []string {
	var out []string
	for _, f := range r.Findings {
		if f.Problem != "" {
			out = append(out, fmt.Sprintf("%s.%s = %s: %s: %s", f.Entry.Owner, f.Entry.Name, f.Variant, f.Request, f.Problem))
		}
	}
	return append(out, r.Judged...)
}

// WireKeys maps each probed field (by Key) and request to where its values went: the path, or
// "not sent", or the paths of the variants when they differ.
func (r Result) WireKeys() map[string]string {
	paths := map[string][]string{}
	var order []string
	failed := map[string]bool{}
	for _, f := range r.Findings {
		if f.Problem != "" && f.Path == "" {
			failed[f.Request+" "+f.Key()] = true
		}
	}
	for _, f := range r.Findings {
		if f.Path == "" && failed[f.Request+" "+f.Key()] {
			continue // failed on its own SDK (Problems); "not sent" would misstate it
		}
		k := f.Request + " " + f.Key()
		if paths[k] == nil {
			order = append(order, k)
		}
		p := f.Path
		if p == "" {
			p = "not sent"
		}
		if !slices.Contains(paths[k], p) {
			paths[k] = append(paths[k], p)
		}
	}
	out := map[string]string{}
	for _, k := range order {
		out[k] = strings.Join(paths[k], " | ")
	}
	return out
}

// Probe sets every field of the actions' owners alone, once per generated variant, and finds
// where each value went. Each request is compared with a baseline of the same request sent
// without any field (twice, to tell volatile keys such as generated ids). A value that reaches
// the request under one path, unchanged, with nothing else changing, is fine; a value sent for
// one variant and not for another (an empty list or an explicit false dropped) is a problem; a
// field sent by no variant is recorded as "not sent" (Result.JudgeNeverSent judges it, once
// every probe ran). A value sent only in a later request is a problem when the runtime's schema
// (OpenTimeEnv) says the session opens with that option.
func Probe(env Env, entries []Entry) (Result, error) {
	var res Result
	created, err := env.Open("sessionConfig", "", nil)
	if err != nil {
		return res, fmt.Errorf("creating the baseline session: %w", err)
	}
	for _, a := range Actions {
		sid := ""
		if a.Request == "session.resume" {
			sid = created
		}
		var bases []map[string]any
		for i := 0; i < 2; i++ {
			if a.Request == "session.create" && i == 0 {
				bases = append(bases, last(params(env.Requests(), a.Request)))
				continue
			}
			if _, err := env.Open(a.Owner, sid, nil); err != nil {
				return res, fmt.Errorf("%s without fields: %w", a.Request, err)
			}
			bases = append(bases, last(params(env.Requests(), a.Request)))
		}
		for _, e := range entries {
			if e.Owner != a.Owner {
				continue
			}
			vs, why := generateFor(env, entries, e)
			if len(vs) == 0 {
				res.Unchecked = append(res.Unchecked, Unchecked{e, why})
				continue
			}
			var fs []Finding
			refused := 0
			for _, v := range vs {
				f := Finding{Entry: e, Variant: v.Label, Request: a.Request, Inner: v.Inner}
				before := len(env.Requests())
				_, err := env.Open(a.Owner, sid, map[string]any{e.Name: v.Value})
				if endsProbe(err) {
					return res, fmt.Errorf("the sweep ended at %s.%s = %s on %s, after %d values: %w", e.Owner, e.Name, v.Label, a.Request, len(res.Findings)+len(fs), err)
				}
				sent := env.Requests()[before:]
				ps := params(sent, a.Request)
				if err != nil && errors.Is(err, ErrCannotHold) {
					// The driver could not build the SDK's own type from the value (a
					// definition field this SDK's type lacks): not a check of the SDK.
					refused++
					res.Unchecked = append(res.Unchecked, Unchecked{e, fmt.Sprintf("%s: %v", v.Label, err)})
					continue
				}
				if err != nil && len(ps) == 0 {
					f.Problem = fmt.Sprintf("the SDK refused it: %v", err)
					fs = append(fs, f)
					continue
				}
				// An error after the request went out is the runtime's answer to the value (the
				// real runtime checks agent names, URLs, tokens): where the value went is still
				// what the request shows.
				if len(ps) == 0 {
					f.Problem = "no " + a.Request + " was sent"
					fs = append(fs, f)
					continue
				}
				got := ps[len(ps)-1]
				f.Path, f.Problem = Locate(bases[0], bases[1], got, v.Want())
				if f.Path == "" && f.Problem != "" {
					if m := explain(bases[0], got, v.Want(), e); m != "" {
						f.Problem += "; " + m
					}
				}
				if f.Path != "" && v.Inner != "" {
					if p := innerPath(normalize(at(got, f.Path)), normalize(v.Want()), f.Path, v.Inner); p != "" {
						f.Path = p
					}
				}
				if f.Path == "" && f.Problem == "" {
					// Not in the request itself: an SDK may send it later, in another request.
					for _, r := range sent {
						if r.Method == a.Request {
							continue
						}
						// A generated string names its field; any other value must sit under a key
						// named like the field, or a true in an unrelated request would match.
						p := find(r.Params, v.Want(), r.Method)
						_, isString := v.Value.(string)
						if p != "" && (isString || Normalize(p[strings.LastIndex(p, ".")+1:]) == e.Key()) {
							// Recorded here: SDKs send some options this way (session.options.update
							// after create/resume, for the client's mode). One the schema says a
							// session opens with fails below (judgeOpenTime); the cross-SDK
							// comparison shows where the others differ.
							f.Path, f.Via = p, r.Method
							break
						}
					}
				}
				fs = append(fs, f)
			}
			// A field some variant put on the wire must be there for every variant: the
			// value set arrives as set ([] as [], false as false; no canonical default here).
			sentAt := ""
			for _, f := range fs {
				switch {
				case f.Path != "" && f.Inner == "":
					sentAt = f.Path
				case f.Path != "" && sentAt == "":
					sentAt, _, _ = strings.Cut(f.Path, ".") // the field holding the definition
				}
			}
			for i := range fs {
				if sentAt == "" || fs[i].Path != "" || fs[i].Problem != "" {
					continue
				}
				if find(bases[0][strings.SplitN(sentAt, ".", 2)[0]], vs[i].Want(), "@") != "" {
					fs[i].Path = sentAt // the baseline already carries this value there (the SDK's default)
					continue
				}
				fs[i].Problem = "not sent, though another value of the field is sent under " + sentAt
			}
			res.Findings = append(res.Findings, fs...)
		}
	}
	// The same field sent under different keys on create and resume.
	byKey := map[string]map[string]string{}
	for _, f := range res.Findings {
		if f.Path == "" {
			continue
		}
		if byKey[f.Key()] == nil {
			byKey[f.Key()] = map[string]string{}
		}
		byKey[f.Key()][f.Request] = f.Path
	}
	keys := slices.Sorted(maps.Keys(byKey))
	for _, k := range keys {
		m := byKey[k]
		if c, r := m["session.create"], m["session.resume"]; c != "" && r != "" && c != r {
			for i, f := range res.Findings {
				if f.Key() == k && f.Request == "session.resume" && f.Problem == "" {
					res.Findings[i].Problem = fmt.Sprintf("sent under %s, but under %s in session.create", r, c)
					break
				}
			}
		}
	}
	if o, ok := env.(OpenTimeEnv); ok {
		judgeOpenTime(res.Findings, o.OpenTimeOptions())
	}
	return res, nil
}

// explain names where a value that changed the request without arriving as set went wrong
// (Mismatch): inside the key named like the field, else the one key that changed.
func explain(base, got map[string]any, want any, e Entry) string {
	var changed []string
	for k, v := range got {
		if b, ok := base[k]; !ok || !same(normalize(v), normalize(b)) {
			changed = append(changed, k)
		}
	}
	sort.Strings(changed)
	for _, k := range changed {
		if Normalize(k) == e.Key() {
			return Mismatch(got[k], want, k)
		}
	}
	if len(changed) == 1 {
		return Mismatch(got[changed[0]], want, changed[0])
	}
	return ""
}

// at is the value at a dotted path of params (nil when absent).
func at(params map[string]any, path string) any {
	var v any = params
	for _, k := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

func last(ps []map[string]any) map[string]any {
	if len(ps) == 0 {
		return map[string]any{}
	}
	return ps[len(ps)-1]
}

// ParamsOf decodes raw request params into an object (an absent or non-object param is {}).
func ParamsOf(raw json.RawMessage) map[string]any {
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return map[string]any{}
	}
	return m
}

// ClientEnv is an Env that can also connect a client with client options set.
type ClientEnv interface {
	Env
	// OpenClient connects a client of its own with the SDK's client option fields set and
	// creates a session on it; an SDK error is err (ErrCannotHold when the driver cannot set them).
	OpenClient(fields map[string]any) error
}

// ClientRequests are the requests a client option may reach, in the order they are looked in.
var ClientRequests = []string{"connect", "session.create"}

// ProbeClient sets every client option, once per generated value, on a client of its own,
// creates a session on that client, and finds where the value went: the connect request, the
// session.create request, or any later request. A value found nowhere is "not sent": with a
// runtime at an address the SDK spawns no process, so options that only configure a spawned
// runtime (its arguments, environment, log level) reach nothing the harness can see. A value
// that changes something else too or is altered is a problem; one the SDK refuses on such a
// client is listed as unchecked, with the SDK's words.
//
// Each client costs a start and a stop (a second in some SDKs), so the options are first set
// together, one value of each: a value found nowhere then is "not sent" without a client of its
// own; a value found, a change no value explains, or a refusal splits the group until each
// option that reaches the wire (or is refused) was set alone, where the full check applies.
func ProbeClient(env ClientEnv, entries []Entry) (Result, error) {
	var res Result
	p := clientProbe{env: env, res: &res, providerBases: map[string]map[string][]map[string]any{}}
	bases, err := clientBases(env, func() error { return env.OpenClient(nil) })
	if err != nil {
		return res, fmt.Errorf("a client without options: %w", err)
	}
	p.bases = bases
	variants := map[string][]Variant{}
	var fields []Entry
	for _, e := range entries {
		if e.Owner != "clientOptions" {
			continue
		}
		vs, why := generateFor(env, entries, e)
		if len(vs) == 0 {
			res.Unchecked = append(res.Unchecked, Unchecked{e, why})
			continue
		}
		variants[e.Name] = vs
		fields = append(fields, e)
	}
	for round := 0; ; round++ {
		var group []clientItem
		for _, e := range fields {
			if vs := variants[e.Name]; round < len(vs) {
				group = append(group, clientItem{e, vs[round]})
			}
		}
		if len(group) == 0 || p.stop != nil {
			break
		}
		p.group(group)
	}
	if p.stop != nil {
		return res, fmt.Errorf("the client option sweep ended after %d values: %w", len(res.Findings), p.stop)
	}
	return res, nil
}

type clientItem struct {
	e Entry
	v Variant
}

type clientProbe struct {
	env   ClientEnv
	res   *Result
	bases map[string][]map[string]any
	// providerBases are the bases of clients whose session registers a provider, by its methods.
	providerBases map[string]map[string][]map[string]any
	stop          error // the env error that ended the probe (endsProbe)
}

// ends keeps err when it ends the probe and says whether the probe is over.
func (p *clientProbe) ends(err error) bool {
	if p.stop == nil && endsProbe(err) {
		p.stop = err
	}
	return p.stop != nil
}

// group sets every item's value on one client (see ProbeClient).
func (p *clientProbe) group(items []clientItem) {
	if p.stop != nil {
		return
	}
	if len(items) == 1 {
		p.one(items[0])
		return
	}
	fields := map[string]any{}
	for _, it := range items {
		fields[it.e.Name] = it.v.Value
	}
	before := len(p.env.Requests())
	if err := p.env.OpenClient(fields); err != nil {
		if !p.ends(err) {
			p.split(items)
		}
		return
	}
	sent := p.env.Requests()[before:]
	var found []clientItem
	isFound := map[int]bool{}
	for i, it := range items {
		if anywhere(sent, it) != "" {
			found, isFound[i] = append(found, it), true
		}
	}
	if len(found) == 0 {
		for _, m := range ClientRequests {
			if ps := params(sent, m); len(ps) > 0 {
				if _, problem := Locate(p.bases[m][0], p.bases[m][1], ps[len(ps)-1], "\x00 no value"); problem != "" {
					p.split(items) // something changed that no value explains: find which
					return
				}
			}
		}
	}
	for i, it := range items {
		if !isFound[i] {
			p.res.Findings = append(p.res.Findings, Finding{Entry: it.e, Variant: it.v.Label, Request: "connect"})
		}
	}
	for _, it := range found {
		p.one(it)
	}
}

func (p *clientProbe) split(items []clientItem) {
	if len(items) == 1 {
		p.one(items[0])
		return
	}
	p.group(items[:len(items)/2])
	p.group(items[len(items)/2:])
}

// anywhere is where a client option's value is in any request sent: a generated string names
// its field; any other value must sit under a key named like the field, or be the params of a
// method of the namespace named like it (a session file system's config: sessionFs.setProvider).
func anywhere(sent []Request, it clientItem) string {
	_, isString := it.v.Value.(string)
	for _, r := range sent {
		q := find(r.Params, it.v.Want(), r.Method)
		if q == "" {
			continue
		}
		if isString || Normalize(q[strings.LastIndex(q, ".")+1:]) == it.e.Key() {
			return q
		}
		if i := strings.LastIndex(r.Method, "."); q == r.Method && i > 0 && Normalize(r.Method[:i]) == it.e.Key() {
			return q
		}
	}
	return ""
}

// one sets one value alone on a client of its own: the full check.
func (p *clientProbe) one(it clientItem) {
	if p.stop != nil {
		return
	}
	e, v := it.e, it.v
	before := len(p.env.Requests())
	err := p.env.OpenClient(map[string]any{e.Name: v.Value})
	if p.ends(err) {
		return
	}
	if err == nil {
		p.res.Findings = append(p.res.Findings, locateClient(p.bases, p.env.Requests()[before:], it))
		return
	}
	// Not a failure: the harness's client connects to a running runtime, with which SDKs
	// refuse some options by design (an auth token: "the external server manages its own
	// auth"), and a generated value may miss a documented rule (absolute paths). Listed
	// with the SDK's words.
	why := fmt.Sprintf("%s: the SDK refused it on a client of a running runtime: %v", v.Label, err)
	if errors.Is(err, ErrCannotHold) {
		why = fmt.Sprintf("%s: %v", v.Label, err)
	} else if f, again, ok := p.withProvider(it); ok {
		p.res.Findings = append(p.res.Findings, f)
		return
	} else if p.ends(again) || p.stop != nil {
		return
	} else if again != nil {
		why += fmt.Sprintf("; and with the session registering its provider (%s): %v", strings.Join(providerMethods(p.env, e), ", "), again)
	}
	p.res.Unchecked = append(p.res.Unchecked, Unchecked{e, why})
}

// clientBases are the ClientRequests' params of two clients opened without options (open):
// what differs between them is volatile.
func clientBases(env Env, open func() error) (map[string][]map[string]any, error) {
	bases := map[string][]map[string]any{}
	for i := 0; i < 2; i++ {
		before := len(env.Requests())
		if err := open(); err != nil {
			return nil, err
		}
		sent := env.Requests()[before:]
		for _, m := range ClientRequests {
			bases[m] = append(bases[m], last(params(sent, m)))
		}
	}
	return bases, nil
}

// locateClient is where a client option's value went among the requests sent.
func locateClient(bases map[string][]map[string]any, sent []Request, it clientItem) Finding {
	f := Finding{Entry: it.e, Variant: it.v.Label, Request: "connect"}
	for _, m := range ClientRequests {
		ps := params(sent, m)
		if len(ps) == 0 {
			continue
		}
		path, problem := Locate(bases[m][0], bases[m][1], ps[len(ps)-1], it.v.Want())
		if path != "" {
			f.Path = m + "." + path
		}
		if problem != "" {
			f.Problem = m + ": " + problem
		}
		if path != "" || problem != "" {
			break
		}
	}
	if f.Path == "" && f.Problem == "" {
		var later []Request
		for _, r := range sent {
			if !slices.Contains(ClientRequests, r.Method) {
				later = append(later, r)
			}
		}
		f.Path = anywhere(later, it)
	}
	return f
}

// ProviderEnv is a ClientEnv whose driver registers the SDK's public handlers of runtime-to-SDK
// methods (capability rpc.handlers).
type ProviderEnv interface {
	ClientEnv
	// RuntimeMethods are the runtime-to-SDK methods of the runtime's schema.
	RuntimeMethods() []string
	// OpenClientWith is OpenClient whose session registers a handler of each method.
	OpenClientWith(fields map[string]any, methods []string) error
}

// providerMethods are the runtime-to-SDK methods of the namespace a client option is named
// after (Node's sessionFs, Go's SessionFS, Python's session_fs: sessionFs.*): the option
// configures that provider, and an SDK refuses it on a session that does not register one, as
// an application using it must.
func providerMethods(env ClientEnv, e Entry) []string {
	pe, ok := env.(ProviderEnv)
	if !ok {
		return nil
	}
	var out []string
	for _, m := range pe.RuntimeMethods() {
		if i := strings.LastIndex(m, "."); i > 0 && Normalize(m[:i]) == e.Key() {
			out = append(out, m)
		}
	}
	return out
}

// withProvider sets a client option the SDK refused alone again, on a client whose session
// registers the provider the option configures (providerMethods), and finds its value against
// two such clients without it. ok is false when the option names no provider or a client
// could not be opened so (again: the SDK's refusal of the option then, if it was the one).
func (p *clientProbe) withProvider(it clientItem) (f Finding, again error, ok bool) {
	ms := providerMethods(p.env, it.e)
	if len(ms) == 0 {
		return f, nil, false
	}
	pe := p.env.(ProviderEnv)
	key := strings.Join(ms, ",")
	if p.providerBases[key] == nil {
		bases, err := clientBases(pe, func() error { return pe.OpenClientWith(nil, ms) })
		if err != nil {
			p.ends(err)
			return f, nil, false
		}
		p.providerBases[key] = bases
	}
	before := len(pe.Requests())
	if err := pe.OpenClientWith(map[string]any{it.e.Name: it.v.Value}, ms); err != nil {
		return f, err, false
	}
	return locateClient(p.providerBases[key], pe.Requests()[before:], it), nil, true
}

// SchemaEnv is an Env that can generate values of the runtime schema's types (Definitions).
type SchemaEnv interface {
	Definition(typeName string, all bool) (map[string]any, bool)
}

func schemaDefinitions(env any) Definitions {
	if s, ok := env.(SchemaEnv); ok {
		return s.Definition
	}
	return nil
}

// CallbackEnv is an Env whose driver gives a definition's required callbacks do-nothing ones of
// its own (capability surface.callbacks; GenerateWith).
type CallbackEnv interface {
	FillsCallbacks() bool
}

func fillsCallbacks(env any) bool {
	c, ok := env.(CallbackEnv)
	return ok && c.FillsCallbacks()
}
