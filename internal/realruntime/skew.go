package realruntime

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"sort"
	"strings"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/schema"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/copilot-sdk-conformance/conformance/internal/wire"
)

// SkewProbe is what the real runtime answers to every public SDK->runtime method its published
// schema lists, called with no params but the session's id (the schema/runtime skew: which
// methods it does not implement, which answers do not validate against the schema's result).
type SkewProbe struct {
	Methods int `json:"methods"` // public server.* and session.* methods probed
	// ByOutcome counts the answers: "result", "error -32601", "error -32603", "no answer", …
	ByOutcome map[string]int `json:"byOutcome"`
	// NotImplemented are the methods answered -32601 (method not found).
	NotImplemented []string `json:"notImplemented,omitempty"`
	// ResultViolations are "method: pointer: message" for results that break the schema.
	ResultViolations []string `json:"resultViolations,omitempty"`
}

// ProbeSkew starts the runtime (private HOME, as a scenario's), creates a session and calls each
// public server.* and session.* method of the schema once, each answer awaited up to a few
// seconds (session.ui.elicitation, for one, waits for the client).
func ProbeSkew(ctx context.Context, cfg Config, schemaDoc []byte) (*SkewProbe, error) {
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(schemaDoc, &doc); err != nil {
		return nil, err
	}
	results, err := schema.CompileResults(schemaDoc)
	if err != nil {
		return nil, err
	}
	type method struct{ name, group string }
	var methods []method
	for _, group := range []string{"server", "session"} {
		var walk func(raw json.RawMessage)
		walk = func(raw json.RawMessage) {
			var node map[string]json.RawMessage
			if json.Unmarshal(raw, &node) != nil {
				return
			}
			if m, ok := node["rpcMethod"]; ok {
				var name, vis string
				_ = json.Unmarshal(m, &name)
				_ = json.Unmarshal(node["visibility"], &vis)
				if vis != "internal" {
					methods = append(methods, method{name, group})
				}
				return
			}
			for _, child := range node {
				walk(child)
			}
		}
		walk(doc[group])
	}
	// Methods that end the session or the runtime go last, so that every other one is answered
	// by a live session.
	final := func(name string) bool {
		for _, suffix := range []string{".shutdown", ".destroy", ".detach", ".delete", ".abort", ".suspend"} {
			if strings.HasSuffix(name, suffix) {
				return true
			}
		}
		return false
	}
	sort.Slice(methods, func(i, j int) bool {
		if fi, fj := final(methods[i].name), final(methods[j].name); fi != fj {
			return fj
		}
		return methods[i].name < methods[j].name
	})

	p, err := Start(ctx, transcript.Memory(), cfg)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	addr, err := p.acquire()
	if err != nil {
		return nil, err
	}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	w, r := wire.NewWriter(c), wire.NewReader(c)
	answers := make(chan wire.Message, 64)
	go func() {
		for {
			body, err := r.Next()
			if err != nil {
				close(answers)
				return
			}
			var m wire.Message
			if json.Unmarshal(body, &m) == nil && m.IsResponse() {
				answers <- m
			}
		}
	}()
	id := 0
	call := func(name string, params any) (wire.Message, bool) {
		id++
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": name, "params": params})
		if w.Write(body) != nil {
			return wire.Message{}, false
		}
		deadline := time.After(3 * time.Second)
		for {
			select {
			case m, ok := <-answers:
				if !ok {
					return wire.Message{}, false
				}
				if string(m.ID) == fmt.Sprint(id) {
					return m, true
				}
			case <-deadline:
				return wire.Message{}, false
			}
		}
	}
	const sid = "5ce0c0de-0000-4000-8000-000000000001"
	if _, ok := call("connect", map[string]any{}); !ok {
		return nil, fmt.Errorf("the runtime did not answer connect")
	}
	if m, ok := call("session.create", map[string]any{"sessionId": sid}); !ok || m.Error != nil {
		return nil, fmt.Errorf("the runtime did not create a session")
	}
	out := &SkewProbe{Methods: len(methods), ByOutcome: map[string]int{}}
	for _, m := range methods {
		params := map[string]any{}
		if m.group == "session" {
			params["sessionId"] = sid
		}
		a, ok := call(m.name, params)
		switch {
		case !ok:
			out.ByOutcome["no answer within 3s"]++
		case a.Error != nil:
			out.ByOutcome[fmt.Sprintf("error %d", a.Error.Code)]++
			if a.Error.Code == wire.CodeMethodNotFound {
				out.NotImplemented = append(out.NotImplemented, m.name)
			}
		default:
			out.ByOutcome["result"]++
			for _, v := range results.Check(m.name, a.Result) {
				out.ResultViolations = append(out.ResultViolations, m.name+": "+v.Pointer+": "+v.Message)
			}
		}
	}
	return out, nil
}

// Markdown is the probe as a report section.
func (s *SkewProbe) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n### Every public method called with only the session's id (%d methods)\n\n", s.Methods)
	var keys []string
	for k := range s.ByOutcome {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "- %s: %d\n", k, s.ByOutcome[k])
	}
	fmt.Fprintf(&b, "- not implemented (-32601), though the schema lists them: %s\n", strings.Join(s.NotImplemented, ", "))
	fmt.Fprintf(&b, "- results that do not validate against the schema: %d\n", len(s.ResultViolations))
	for _, v := range s.ResultViolations {
		fmt.Fprintf(&b, "  - %s\n", v)
	}
	return b.String()
}
