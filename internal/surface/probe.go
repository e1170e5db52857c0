package surface

import (
	"encoding/json"

	"fmt"
	"github.com/copilot-sdk-conformance/conformance/internal/canon"
	"sort"
	"strings"
)

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
	Unchecked []Entry // fields without a generated value (or handlers), listed, not checked
}

// Problems are the findings that fail the SDK, one line each, naming field, value and request.
func (r Result) Problems() []string {
	var out []string
	for _, f := range r.Findings {
		if f.Problem != "" {
			out = append(out, fmt.Sprintf("%s.%s = %s: %s: %s", f.Entry.Owner, f.Entry.Name, f.Variant, f.Request, f.Problem))
		}
	}
	return out
}

// WireKeys maps each probed field (by Key) and request to where its values went: the path, or
// "not sent", or the paths of the variants when they differ.
func (r Result) WireKeys() map[string]string {
	paths := map[string][]string{}
	var order []string
	for _, f := range r.Findings {
		k := f.Request + " " + f.Entry.Key()
		if paths[k] == nil {
			order = append(order, k)
		}
		p := f.Path
		if p == "" {
			p = "not sent"
		}
		if !contains(paths[k], p) {
			paths[k] = append(paths[k], p)
		}
	}
	out := map[string]string{}
	for _, k := range order {
		out[k] = strings.Join(paths[k], " | ")
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Probe sets every field of the actions' owners alone, once per generated variant, and finds
// where each value went. Each request is compared with a baseline of the same request sent
// without any field (twice, to tell volatile keys such as generated ids). A value that reaches
// the request under one path, unchanged, with nothing else changing, is fine; a value sent for
// one variant and not for another (an empty list or an explicit false dropped) is a problem; a
// field sent by no variant is recorded as "not sent" (its cross-SDK comparison decides).
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
				bases = append(bases, defaults(a.Request, last(params(env.Requests(), a.Request))))
				continue
			}
			if _, err := env.Open(a.Owner, sid, nil); err != nil {
				return res, fmt.Errorf("%s without fields: %w", a.Request, err)
			}
			bases = append(bases, defaults(a.Request, last(params(env.Requests(), a.Request))))
		}
		for _, e := range entries {
			if e.Owner != a.Owner {
				continue
			}
			vs := Variants(e)
			if len(vs) == 0 {
				res.Unchecked = append(res.Unchecked, e)
				continue
			}
			var fs []Finding
			for _, v := range vs {
				f := Finding{Entry: e, Variant: v.Label, Request: a.Request}
				before := len(env.Requests())
				_, err := env.Open(a.Owner, sid, map[string]any{e.Name: v.Value})
				sent := env.Requests()[before:]
				ps := params(sent, a.Request)
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
				f.Path, f.Problem = Locate(bases[0], bases[1], defaults(a.Request, ps[len(ps)-1]), v.Value)
				if f.Path == "" && f.Problem == "" {
					// Not in the request itself: an SDK may send it later, in another request.
					for _, r := range sent {
						if r.Method == a.Request {
							continue
						}
						// A generated string names its field; any other value must sit under a key
						// named like the field, or a true in an unrelated request would match.
						p := find(r.Params, v.Value, r.Method)
						_, isString := v.Value.(string)
						if p != "" && (isString || Normalize(p[strings.LastIndex(p, ".")+1:]) == e.Key()) {
							// Recorded, not failed here: every SDK sends some options this way
							// (session.options.update after create/resume, for the client's
							// mode); the cross-SDK comparison shows where they differ.
							f.Path = p
							break
						}
					}
				}
				fs = append(fs, f)
			}
			// A field some variant put on the wire must be there for every variant.
			sentAt := ""
			for _, f := range fs {
				if f.Path != "" {
					sentAt = f.Path
				}
			}
			for i := range fs {
				if sentAt != "" && fs[i].Path == "" && fs[i].Problem == "" && find(bases[0][strings.SplitN(sentAt, ".", 2)[0]], vs[i].Value, "@") != "" {
					fs[i].Path = sentAt // the baseline already carries this value there (a default)
					continue
				}
				if sentAt != "" && fs[i].Path == "" && fs[i].Problem == "" && canon.AbsentEquivalent(a.Request, sentAt, normalize(vs[i].Value)) {
					fs[i].Path = sentAt // left out where the runtime treats it as absent (canon.Defaults)
					continue
				}
				if sentAt != "" && fs[i].Path == "" && fs[i].Problem == "" {
					fs[i].Problem = "not sent, though another value of the field is sent under " + sentAt
				}
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
		if byKey[f.Entry.Key()] == nil {
			byKey[f.Entry.Key()] = map[string]string{}
		}
		byKey[f.Entry.Key()][f.Request] = f.Path
	}
	keys := make([]string, 0, len(byKey))
	for k := range byKey {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		m := byKey[k]
		if c, r := m["session.create"], m["session.resume"]; c != "" && r != "" && c != r {
			for i, f := range res.Findings {
				if f.Entry.Key() == k && f.Request == "session.resume" && f.Problem == "" {
					res.Findings[i].Problem = fmt.Sprintf("sent under %s, but under %s in session.create", r, c)
					break
				}
			}
		}
	}
	return res, nil
}

// defaults drops the keys whose values the runtime treats like absent ones (canon.Defaults),
// so that an SDK sending such a value and one leaving it out are alike here as everywhere.
func defaults(method string, params map[string]any) map[string]any {
	if m, ok := canon.Defaults(method, params).(map[string]any); ok {
		return m
	}
	return params
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
