package steps

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/canon"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/copilot-sdk-conformance/conformance/internal/wire"
)

// request returns the params of the first request of method the SDK sent in this scenario.
func (w *world) request(method string) (any, error) {
	reqs := transcript.Requests(w.Entries(), method)
	if len(reqs) == 0 {
		var seen []string
		for _, r := range transcript.Requests(w.Entries(), "") {
			seen = append(seen, r.Method)
		}
		return nil, fmt.Errorf("the SDK sent no %q request (it sent: %s)", method, strings.Join(seen, ", "))
	}
	v, err := canon.Decode(reqs[0].Params)
	if err != nil {
		return nil, fmt.Errorf("%s request #%d: %w", method, reqs[0].Seq, err)
	}
	return v, nil
}

// toolIn finds a tool by name in a request's tools array and returns it with its index path.
func (w *world) toolIn(method, name string) (map[string]any, string, error) {
	params, err := w.request(method)
	if err != nil {
		return nil, "", err
	}
	tools, _ := canon.Get(params, "tools")
	arr, ok := tools.([]any)
	if !ok {
		return nil, "", fmt.Errorf("the %s request has no tools array (tools: %s)", method, canon.Show(canon.Get(params, "tools")))
	}
	for i, t := range arr {
		if m, ok := t.(map[string]any); ok && m["name"] == name {
			return m, fmt.Sprintf("tools[%d]", i), nil
		}
	}
	return nil, "", fmt.Errorf("the %s request has no tool named %q (tools: %s)", method, name, canon.Show(tools, true))
}

func (w *world) toolKeyEquals(name, method, key, want string) error {
	tool, at, err := w.toolIn(method, name)
	if err != nil {
		return err
	}
	w.Check(method, at+"."+key)
	return equalJSON(fmt.Sprintf("%s %s (tool %q) %s", method, at, name, key), tool, key, want)
}

func (w *world) toolHasNoKey(name, method, key string) error {
	tool, at, err := w.toolIn(method, name)
	if err != nil {
		return err
	}
	w.Check(method, at+"."+key)
	if v, ok := tool[key]; ok {
		return fmt.Errorf("%s %s.%s (tool %q): want the key absent, got %s", method, at, key, name, canon.Show(v, true))
	}
	return nil
}

func (w *world) noKeyAnywhere(key, method string) error {
	params, err := w.request(method)
	if err != nil {
		return err
	}
	w.Check(method, "**."+key)
	if found := canon.Keys(params, key); len(found) > 0 {
		return fmt.Errorf("the %s request has the key %q at %s", method, key, strings.Join(found, ", "))
	}
	return nil
}

func (w *world) requestKeyEquals(method, path, want string) error {
	params, err := w.request(method)
	if err != nil {
		return err
	}
	w.Check(method, path)
	got, ok := canon.Get(params, path)
	if !ok {
		return fmt.Errorf("%s %s: want %s, the key is absent", method, path, want)
	}
	normalized, _ := canon.Get(canon.Value(params), path)
	return compare(method+" "+path, got, normalized, want)
}

func (w *world) requestHasNoKey(method, path string) error {
	params, err := w.request(method)
	if err != nil {
		return err
	}
	w.Check(method, path)
	if got, ok := canon.Get(params, path); ok {
		return fmt.Errorf("%s %s: want the key absent, got %s", method, path, canon.Show(got, true))
	}
	return nil
}

// toolsEqual compares the normalized tools arrays of two requests and lists every jsondiff.Difference.
func (w *world) toolsEqual(a, b string) error {
	pa, err := w.request(a)
	if err != nil {
		return err
	}
	pb, err := w.request(b)
	if err != nil {
		return err
	}
	ta, okA := canon.Get(pa, "tools")
	tb, okB := canon.Get(pb, "tools")
	diffs := canon.Diff(map[string]any{a: wrap(ta, okA), b: wrap(tb, okB)})
	if len(diffs) == 0 {
		return nil
	}
	var lines []string
	for _, d := range diffs {
		lines = append(lines, fmt.Sprintf("tools%s: %s=%s, %s=%s", strings.TrimPrefix(d.Path, "tools"), a, d.Values[a], b, d.Values[b]))
	}
	// The first line names the first path, so one-line views (diff, JUnit) still show it.
	if len(lines) == 1 {
		return fmt.Errorf("the tools differ at %s", lines[0])
	}
	return fmt.Errorf("the tools differ at %s (and %d more):\n  %s", lines[0], len(lines)-1, strings.Join(lines[1:], "\n  "))
}

func wrap(v any, ok bool) any {
	if !ok {
		return map[string]any{}
	}
	return map[string]any{"tools": canon.Value(v)}
}

func (w *world) firstRequestIs(method string) error {
	reqs := transcript.Requests(w.Entries(), "")
	if len(reqs) == 0 {
		return fmt.Errorf("the SDK sent no request")
	}
	if reqs[0].Method != method {
		return fmt.Errorf("the first request is %q, want %q", reqs[0].Method, method)
	}
	return nil
}

func equalJSON(what string, obj map[string]any, key, want string) error {
	got, ok := obj[key]
	if !ok {
		return fmt.Errorf("%s: want %s, the key is absent", what, want)
	}
	return compare(what, got, canon.Value(got), want)
}

// compare checks got against the JSON want, which may also match got's normalized form (for
// placeholders such as "<sessionId>").
func compare(what string, got, normalized any, want string) error {
	exp, err := canon.Decode([]byte(want))
	if err != nil {
		return fmt.Errorf("the expected value %s is not JSON: %w", want, err)
	}
	// The expectation may name a normalized placeholder such as "<sessionId>".
	e := canon.Show(exp, true)
	if g := canon.Show(got, true); g == e || canon.Show(normalized, true) == e {
		return nil
	}
	// A credential is recorded by its fingerprint (transcript.RedactValue).
	if g, ok := got.(string); ok {
		if w, ok := exp.(string); ok && strings.HasPrefix(g, "<redacted:") && g == transcript.Redacted(w) {
			return nil
		}
	}
	return fmt.Errorf("%s: want %s, got %s", what, e, canon.Show(got, true))
}

// reportedSessionID checks that a request's key holds the id of the scenario's session as the
// SDK reported it to the application (the answer of its create or resume call): a request for
// another session, or any other string, fails.
func (w *world) reportedSessionID(key, method string) error {
	if len(w.Sessions) == 0 || w.Sessions[len(w.Sessions)-1].ID == "" {
		return fmt.Errorf("the SDK reported no session id to compare the %s request's %s with", method, key)
	}
	want := w.Sessions[len(w.Sessions)-1].ID
	params, err := w.request(method)
	if err != nil {
		return err
	}
	w.Check(method, key)
	got, ok := canon.Get(params, key)
	if !ok {
		return fmt.Errorf("%s %s: want the session id the SDK reported (%q), the key is absent", method, key, want)
	}
	if got != want {
		return fmt.Errorf("%s %s is %s, want the session id the SDK reported, %q", method, key, canon.Show(got, true), want)
	}
	return nil
}

// tokenRedacted checks that the SDK sent a token at path (relative to params) of a request, by
// the fingerprint the runtime recorded in its place: the token itself is never in a transcript.
func (w *world) tokenRedacted(method, token, path string) error {
	w.Check(method, path)
	for _, e := range w.Entries() {
		if e.Dir != transcript.SDKToRuntime || len(e.Frame) == 0 {
			continue
		}
		var m wire.Message
		if json.Unmarshal(e.Frame, &m) != nil || m.Method != method {
			continue
		}
		if strings.Contains(string(e.Frame), token) {
			return fmt.Errorf("the %s request (seq %d) holds the token in clear", method, e.Seq)
		}
		for _, r := range e.Redacted {
			if r.Path == "params."+path {
				if r.SHA256 != transcript.Fingerprint(token) {
					return fmt.Errorf("%s %s carried a token with fingerprint %s, want %s (the one the application gave)", method, path, r.SHA256, transcript.Fingerprint(token))
				}
				return nil
			}
		}
		var seen []string
		for _, r := range e.Redacted {
			seen = append(seen, r.Path)
		}
		return fmt.Errorf("%s carried no token at %s (redacted paths: %v)", method, path, seen)
	}
	_, err := w.request(method)
	return err
}
