package steps

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/canon"
	"github.com/copilot-sdk-conformance/conformance/internal/driver"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/suite"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/copilot-sdk-conformance/conformance/steps/scenario"
	"github.com/cucumber/godog"
)

// Steps where the application acts through the SDK and may expect the SDK to raise.

// try runs a command whose error outcome is what the scenario checks next.
func (w *world) try(cmd string, args any) error {
	if err := w.Lacking(cmd, args); err != nil {
		return err
	}
	r, err := w.Call(cmd, args)
	if err != nil {
		return err
	}
	if r.Outcome == driver.Unsupported {
		return w.Unsupported(cmd, args, r)
	}
	w.tried = r
	return nil
}

func (w *world) triesClearContext(prompt string) error {
	s, err := w.Current()
	if err != nil {
		return err
	}
	return w.try("clearContext", map[string]any{"session": s.Handle, "prompt": prompt})
}

func (w *world) sdkRaised() error { return w.sdkRaisedMentioning("") }

func (w *world) sdkRaisedMentioning(text string) error {
	if w.tried == nil {
		return fmt.Errorf("no step tried an SDK call whose error could be checked")
	}
	if w.tried.Outcome != driver.Error {
		return fmt.Errorf("the SDK returned %s, want it to raise an error", w.tried.Result)
	}
	if !strings.Contains(w.tried.ErrorText(), text) {
		return fmt.Errorf("the SDK raised %q, want it to mention %q", w.tried.ErrorText(), text)
	}
	return nil
}

// setToolsArgs builds a setTools command for the tools in a table.
func (w *world) setToolsArgs(table *godog.Table) ([]map[string]any, map[string]any, error) {
	tools, err := w.toolsFrom(table)
	if err != nil {
		return nil, nil, err
	}
	s, err := w.Current()
	if err != nil {
		return nil, nil, err
	}
	return tools, map[string]any{"session": s.Handle, "tools": tools}, nil
}

// replaceTools replaces this client's tools through the SDK's high-level API.
func (w *world) replaceTools(table *godog.Table) error {
	tools, args, err := w.setToolsArgs(table)
	if err != nil {
		return err
	}
	if _, err := w.Do("setTools", args); err != nil {
		return err
	}
	w.Tools = tools
	return nil
}

func (w *world) replaceWithNoTools() error {
	s, err := w.Current()
	if err != nil {
		return err
	}
	if _, err := w.Do("setTools", map[string]any{"session": s.Handle, "tools": []any{}}); err != nil {
		return err
	}
	w.Tools = nil
	return nil
}

// replaceThroughRPC calls the generated raw session.tools.set with no tools, as an application
// on an SDK version without high-level tool replacement would.
func (w *world) replaceThroughRPCWithNoTools() error {
	s, err := w.Current()
	if err != nil {
		return err
	}
	_, err = w.Do("setToolsRpc", map[string]any{"session": s.Handle, "tools": []any{}})
	return err
}

// replaceThroughRPCWithNil passes the language's nil list (Go's nil slice) to the raw RPC, the
// way an application naturally writes "no tools" in a language that has one.
func (w *world) replaceThroughRPCWithNil() error {
	s, err := w.Current()
	if err != nil {
		return err
	}
	if has, note := w.T.Capability("session.rpc.tools.set.nil"); !has {
		return &ErrUnsupported{Reason: fmt.Sprintf("%s has no nil list apart from an empty one: %s", w.T.SDK(), note),
			Capability: "session.rpc.tools.set.nil"}
	}
	_, err = w.Do("setToolsRpc", map[string]any{"session": s.Handle, "tools": nil})
	return err
}

func (w *world) triesReplaceTools(table *godog.Table) error {
	_, args, err := w.setToolsArgs(table)
	if err != nil {
		return err
	}
	return w.try("setTools", args)
}

// toolsFrom builds a fresh tool list from a table without touching the scenario's tools.
func (w *world) toolsFrom(table *godog.Table) ([]map[string]any, error) {
	saved := w.Tools
	w.Tools = nil
	err := w.theTools(table)
	tools := w.Tools
	w.Tools = saved
	return tools, err
}

func (w *world) rejectNextReplacement(msg string) error {
	rt, err := w.StandIn("runtime.script.rejection")
	if err != nil {
		return err
	}
	rt.RejectNextToolsSet(msg)
	return nil
}

// slowReplacements has each session.tools.set answer reach the SDK ms later: the stand-in
// answers late, the recording proxy holds the real runtime's answer (suite.Delayer).
func (w *world) slowReplacements(ms int) error {
	if l, ok := w.RT.(suite.Lacker); ok {
		if why, lacking := l.Lacks("runtime.script.delay"); lacking {
			return &ErrUnsupported{Reason: why, Capability: "runtime.script.delay"}
		}
	}
	d, ok := w.RT.(suite.Delayer)
	if !ok {
		return &ErrUnsupported{Reason: "this runtime cannot be scripted (runtime.script.delay)", Capability: "runtime.script.delay"}
	}
	d.SetToolsSetDelay(time.Duration(ms) * time.Millisecond)
	return nil
}

// replaceConcurrently makes n replacements without waiting between them; set k holds one tool
// named "set_k", so the order on the wire can be read back.
func (w *world) replaceConcurrently(n int) error {
	s, err := w.Current()
	if err != nil {
		return err
	}
	var sets [][]map[string]any
	for k := 1; k <= n; k++ {
		sets = append(sets, []map[string]any{newTool(fmt.Sprintf("set_%d", k))})
	}
	res, err := w.Do("setToolsConcurrently", map[string]any{"session": s.Handle, "toolSets": sets})
	if err != nil {
		return err
	}
	var r struct {
		Outcomes []struct {
			Outcome string `json:"outcome"`
			Error   *struct {
				Message string `json:"message"`
			} `json:"error"`
		} `json:"outcomes"`
	}
	if err := json.Unmarshal(res, &r); err != nil || len(r.Outcomes) != n {
		return fmt.Errorf("setToolsConcurrently returned %s, want %d outcomes", res, n)
	}
	for i, o := range r.Outcomes {
		if o.Outcome != driver.OK {
			return fmt.Errorf("replacement %d raised %+v", i+1, o.Error)
		}
	}
	w.replacements = n
	return nil
}

// replacementsSerialized checks that each session.tools.set was sent only after the previous
// one was answered, and that they arrived in the order they were made.
func (w *world) replacementsSerialized() error {
	entries := w.Entries()
	// The order is the contract here: the cross-SDK comparison pairs these requests by position.
	w.Check("session.tools.set", report.RequestOrder)
	reqs := transcript.Requests(entries, "session.tools.set")
	// Exactly one request per replacement made: a dropped or a repeated one is no order.
	if w.replacements < 2 {
		return fmt.Errorf("the scenario made %d replacements at once, want several to check their order", w.replacements)
	}
	if len(reqs) != w.replacements {
		return fmt.Errorf("want %d session.tools.set requests (one per replacement made), got %d", w.replacements, len(reqs))
	}
	answered := map[string]int{}
	for _, e := range entries {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if e.Dir == transcript.RuntimeToSDK && json.Unmarshal(e.Frame, &m) == nil && m.Method == "" && len(m.ID) > 0 {
			answered[string(m.ID)] = e.Seq
		}
	}
	var order []string
	for i, r := range reqs {
		v, _ := canon.Decode(r.Params)
		name, _ := canon.Get(v, "tools[0].name")
		order = append(order, fmt.Sprint(name))
		if i == 0 {
			continue
		}
		prevID := scenario.RequestID(entries, reqs[i-1].Seq)
		if done, ok := answered[prevID]; !ok || done > r.Seq {
			return fmt.Errorf("session.tools.set #%d (%v) was sent before #%d was answered: replacements overlapped on the wire", i+1, name, i)
		}
	}
	for i, name := range order {
		if name != fmt.Sprintf("set_%d", i+1) {
			return fmt.Errorf("replacements reached the runtime in the order %s, want set_1, set_2, …", strings.Join(order, ", "))
		}
	}
	return nil
}

// driverEvents returns the events the driver reported of one kind, in order (the core's DriverEvents).
func (w *world) driverEvents(kind string) []map[string]any { return w.DriverEvents(kind) }

// applicationReceived checks that the SDK delivered a session event to the application.
func (w *world) applicationReceived(typ, key, want string) error {
	if has, note := w.T.Capability("events"); !has {
		return &ErrUnsupported{Reason: fmt.Sprintf("%s driver does not forward session events: %s", w.T.SDK(), note), Capability: "events"}
	}
	var seen []string
	for _, ev := range w.driverEvents("session.event") {
		if ev["type"] != typ {
			seen = append(seen, fmt.Sprint(ev["type"]))
			continue
		}
		data, _ := ev["data"].(map[string]any)
		return equalJSON(fmt.Sprintf("the %s event the application received", typ), data, key, want)
	}
	return fmt.Errorf("the application never received %s (it received: %s)", typ, strings.Join(seen, ", "))
}

// handlerServed checks which handler version ran for the last call of a tool.
func (w *world) handlerServed(label, tool string) error {
	var last string
	for _, ev := range w.driverEvents("tool.invoked") {
		if ev["tool"] == tool {
			last, _ = ev["label"].(string)
		}
	}
	if last != label {
		return fmt.Errorf("the call to %q was served by handler %q, want %q", tool, last, label)
	}
	return nil
}

// conformsToSchema checks the runtime's schema notes recorded beside each request.
func (w *world) conformsToSchema() error {
	if !w.T.SchemaLoaded() {
		return &ErrUnavailable{Reason: "the runtime's published schema is not loaded in this run, so requests cannot be checked against it (results.json harness.schema says why; it comes from the SDK whose recipe ships it: its local preparation, or its driver image with --runner docker)"}
	}
	var bad []string
	for _, v := range transcript.Violations(w.Entries()) {
		bad = append(bad, v.String())
	}
	if len(bad) > 0 {
		return fmt.Errorf("requests violate the runtime's published schema:\n  %s", strings.Join(bad, "\n  "))
	}
	return nil
}
