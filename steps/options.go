package steps

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/cucumber/godog"

	"github.com/copilot-sdk-conformance/conformance/internal/canon"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/copilot-sdk-conformance/conformance/steps/scenario"
	"github.com/copilot-sdk-conformance/conformance/steps/sweeps/cancel"
	"github.com/copilot-sdk-conformance/conformance/steps/sweeps/converters"
	"github.com/copilot-sdk-conformance/conformance/steps/sweeps/fields"
	"github.com/copilot-sdk-conformance/conformance/steps/sweeps/ordersweep"
	"github.com/copilot-sdk-conformance/conformance/steps/sweeps/resolved"
	"github.com/copilot-sdk-conformance/conformance/steps/sweeps/surfacehandlers"
	"github.com/copilot-sdk-conformance/conformance/steps/sweeps/surfacereached"
)

// Session options (drivers/PROTOCOL.md "Session options"): the application sets SDK-neutral
// options on create or resume; the features read the session.create / session.resume request.

// registerWire binds the steps of the whole-wire-surface features (session options, tool
// results, startup order, framing, requests from the runtime, connect options).
func (w *world) registerWire(sc scenario.Binder) {
	w.registerOptions(sc)
	w.registerResults(sc)
	w.registerOrder(sc)
	ordersweep.Register(sc, w.Scenario)
	w.registerFraming(sc)
	w.registerRequests(sc)
	resolved.Register(sc, w.Scenario)
	cancel.Register(sc, w.Scenario)
	w.registerConnect(sc)
	fields.Register(sc, w.Scenario)
	surfacehandlers.Register(sc, w.Scenario)
	converters.Register(sc, w.Scenario)
	surfacereached.Register(sc, w.Scenario)
}

func (w *world) registerOptions(sc scenario.Binder) {
	sc.Step(`^a session is created with the option "([^"]*)" set to (.+)$`, w.createWithOption)
	sc.Step(`^the session is resumed with the option "([^"]*)" set to (.+)$`, w.resumeWithOption)
	sc.Step(`^a session is created with the options:$`, w.createWithOptions)
	sc.Step(`^the session is resumed with the options:$`, w.resumeWithOptions)
	sc.Step(`^a session is created and resumed with the option "([^"]*)" set to (.+)$`, w.createAndResumeWithOption)
	sc.Step(`^the "([^"]*)" request carries "([^"]*)" exactly as (.+)$`, w.requestCarries)
	sc.Step(`^the "([^"]*)" and "([^"]*)" requests both carry "([^"]*)" exactly as (.+)$`, w.requestsAgreeOn)
	sc.Step(`^the tools of the "([^"]*)" request are exactly:$`, w.toolsAreExactly)
	sc.Step(`^every "([^"]*)" request has the keys of "([^"]*)" in the order ((?:"[^"]*"(?:, )?)+)$`, w.keysInOrder)
}

// options parses option values (JSON) and checks the driver declared each option: a driver
// that does not know an option (an older protocol) is unsupported, never silently ignored.
func (w *world) options(pairs map[string]string) (map[string]any, error) {
	out := map[string]any{}
	names := make([]string, 0, len(pairs))
	for n := range pairs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := w.Needs("session.option." + name); err != nil {
			return nil, err
		}
		if !json.Valid([]byte(pairs[name])) {
			return nil, fmt.Errorf("the value of option %q is not JSON: %s", name, pairs[name])
		}
		// The bytes as written (a decoded Go map would reach the driver with its keys sorted):
		// the application's key order is part of what the features check (keyorder.go).
		out[name] = json.RawMessage(pairs[name])
	}
	return out, nil
}

func optionsTable(table *godog.Table) (map[string]string, error) {
	pairs := map[string]string{}
	for i, row := range table.Rows {
		if len(row.Cells) != 2 {
			return nil, fmt.Errorf("options table row %d: want | option | JSON value |", i+1)
		}
		if i == 0 && row.Cells[0].Value == "option" {
			continue
		}
		pairs[row.Cells[0].Value] = row.Cells[1].Value
	}
	return pairs, nil
}

func (w *world) createWith(pairs map[string]string) error {
	opts, err := w.options(pairs)
	if err != nil {
		return err
	}
	c, err := w.Client()
	if err != nil {
		return err
	}
	return w.Open("createSession", c, map[string]any{"tools": w.ToolList(), "options": opts})
}

// resumeWith resumes the last session (created first, without options, if there is none) from
// a second client, as resume does.
func (w *world) resumeWith(pairs map[string]string) error {
	opts, err := w.options(pairs)
	if err != nil {
		return err
	}
	return w.resumeOpts(opts)
}

func (w *world) createWithOption(name, value string) error {
	return w.createWith(map[string]string{name: value})
}

func (w *world) resumeWithOption(name, value string) error {
	return w.resumeWith(map[string]string{name: value})
}

func (w *world) createAndResumeWithOption(name, value string) error {
	if err := w.createWith(map[string]string{name: value}); err != nil {
		return err
	}
	return w.resumeWith(map[string]string{name: value})
}

func (w *world) createWithOptions(table *godog.Table) error {
	pairs, err := optionsTable(table)
	if err != nil {
		return err
	}
	return w.createWith(pairs)
}

func (w *world) resumeWithOptions(table *godog.Table) error {
	pairs, err := optionsTable(table)
	if err != nil {
		return err
	}
	return w.resumeWith(pairs)
}

// requestCarries checks a key of the request itself (not of a later request) byte for byte
// after decoding: explicit false, empty lists and empty objects must be there as given. A key
// the expectation writes as `absent` must not be there.
func (w *world) requestCarries(method, path, want string) error {
	if want == "absent" {
		return w.requestHasNoKey(method, path)
	}
	params, err := w.request(method)
	if err != nil {
		return err
	}
	w.Check(method, path)
	exp, err := canon.Decode([]byte(want))
	if err != nil {
		return fmt.Errorf("the expected value %s is not JSON: %w", want, err)
	}
	// The application set this value: it must be on the wire as set. The documented defaults
	// (internal/canon/defaults.go) are for the informational cross-SDK comparison only; here an
	// absent key is a dropped value, whatever the runtime would make of it.
	got, ok := canon.Get(params, path)
	if !ok {
		return fmt.Errorf("%s %s: want %s, the key is absent from the %s request%s", method, path, want, method, laterRequests(w, method, path))
	}
	// The transcript holds a credential by its fingerprint; so does the expectation.
	exp = transcript.RedactValue(exp, "params."+path)
	if g, e := canon.Show(got, true), canon.Show(exp, true); g != e {
		return fmt.Errorf("%s %s: want %s, got %s", method, path, e, g)
	}
	return nil
}

// laterRequests names requests that carried the key instead, for the "sent later" failure.
func laterRequests(w *world, method, path string) string {
	key := path
	if i := strings.LastIndex(path, "."); i >= 0 {
		key = path[i+1:]
	}
	var where []string
	for _, r := range transcript.Requests(w.Entries(), "") {
		if r.Method == method {
			continue
		}
		if v, err := canon.Decode(r.Params); err == nil && len(canon.Keys(v, key)) > 0 {
			where = append(where, r.Method)
		}
	}
	if len(where) == 0 {
		return ""
	}
	return fmt.Sprintf(" (it was sent later, in %s)", strings.Join(where, ", "))
}

// requestsAgreeOn is create/resume parity for one key: the application set the same value on
// both, so both requests must carry it, exactly as set. Leaving the key out of both, or agreeing
// on another value (null for []), is no parity.
func (w *world) requestsAgreeOn(a, b, path, want string) error {
	var problems []string
	for _, method := range []string{a, b} {
		if err := w.requestCarries(method, path, want); err != nil {
			problems = append(problems, err.Error())
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s and %s do not both carry %s exactly as %s: %s", a, b, path, want, strings.Join(problems, "; "))
	}
	return nil
}

// toolDefaults are the keys an SDK may add to a tool the application did not set them on, with
// the only value each may have: the documented default (absent ≡ this value).
var toolDefaults = map[string]string{}

// toolsAreExactly checks whole tool definitions: each tool of the table carries exactly the
// options its row sets (plus documented defaults), nothing else, and the request has no other
// tool. An option leaking onto another tool, or a dropped one, fails here.
func (w *world) toolsAreExactly(method string, table *godog.Table) error {
	want, err := w.toolsFrom(table)
	if err != nil {
		return err
	}
	params, err := w.request(method)
	if err != nil {
		return err
	}
	w.Check(method, "tools")
	got, _ := canon.Get(params, "tools")
	arr, _ := got.([]any)
	byName := map[string]map[string]any{}
	for _, t := range arr {
		if m, ok := t.(map[string]any); ok {
			name, _ := m["name"].(string)
			byName[name] = m
		}
	}
	var problems []string
	for _, spec := range want {
		name := spec["name"].(string)
		tool, ok := byName[name]
		if !ok {
			problems = append(problems, fmt.Sprintf("tool %q is missing", name))
			continue
		}
		delete(byName, name)
		exp := map[string]any{}
		for k, v := range spec {
			if k != "handler" && k != "optionOrder" {
				exp[k] = v
			}
		}
		keys := map[string]bool{}
		for k := range exp {
			keys[k] = true
		}
		for k := range tool {
			keys[k] = true
		}
		for _, k := range sortedKeys(keys) {
			g, hasG := tool[k]
			e, hasE := exp[k]
			switch {
			case hasE && !hasG:
				problems = append(problems, fmt.Sprintf("tools[name=%s].%s: the application set %s, the key is absent", name, k, show(e)))
			case !hasE && hasG:
				if d, ok := toolDefaults[k]; ok && canon.Show(g, true) == d {
					continue
				}
				problems = append(problems, fmt.Sprintf("tools[name=%s].%s: the application did not set it, got %s", name, k, canon.Show(g, true)))
			case show(e) != canon.Show(g, true):
				problems = append(problems, fmt.Sprintf("tools[name=%s].%s: want %s, got %s", name, k, show(e), canon.Show(g, true)))
			}
		}
	}
	for name := range byName {
		problems = append(problems, fmt.Sprintf("tool %q was not set by the application", name))
	}
	if len(problems) == 0 {
		return nil
	}
	sort.Strings(problems)
	return fmt.Errorf("the tools of the %s request are not exactly what the application set: %s", method, strings.Join(problems, "; "))
}

// show renders a Go value the way canon.Show renders decoded JSON.
func show(v any) string {
	raw, _ := json.Marshal(v)
	d, err := canon.Decode(raw)
	if err != nil {
		return string(raw)
	}
	return canon.Show(d, true)
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
