package driver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/standin"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
)

// Smoke checks that a driver speaks the protocol: hello and its capabilities, one session
// against the recording runtime (connect, create with a tool, a prompt and its reply), and a
// clean shutdown. It prints one line per check and returns an error naming the first failure.
// Every line the driver writes is validated against the protocol schema when v is set.
func Smoke(ctx context.Context, l Launcher, sdk string, timeout time.Duration, v *Validator, out io.Writer) error {
	step := func(ok bool, format string, args ...any) {
		mark := "ok  "
		if !ok {
			mark = "FAIL"
		}
		fmt.Fprintf(out, "%s %s\n", mark, fmt.Sprintf(format, args...))
	}
	fmt.Fprintf(out, "smoke test of the %s driver: %s\n", sdk, l.Describe())
	c, hello, err := Handshake(ctx, l, sdk, timeout, v)
	if err != nil {
		step(false, "hello: %v", err)
		return fmt.Errorf("hello: %w", err)
	}
	defer c.Kill()
	step(true, "hello: SDK %s %s (%s), protocol %d", hello.SDK, hello.Version, hello.Source, hello.ProtocolVersion)
	var caps []string
	for k, v := range hello.Capabilities {
		caps = append(caps, fmt.Sprintf("%s=%v", k, v))
	}
	sort.Strings(caps)
	step(true, "capabilities: %s", strings.Join(caps, " "))
	if !hello.Capabilities["transport.tcp"] {
		step(false, "capability transport.tcp is false: the harness connects SDKs to its runtime over TCP")
		return fmt.Errorf("the driver cannot connect over TCP")
	}

	opts := standin.Options{ToolTimeout: timeout}
	rec := transcript.Memory()
	rt := standin.New(rec, opts)
	defer func() { rt.Close() }() // the runtime in use at the end (a fitted one replaces it)
	addr, err := rt.Listen("127.0.0.1:0")
	if err != nil {
		return err
	}
	judge := func(cmd string, r *Response, err error) (json.RawMessage, error) {
		if err != nil {
			step(false, "%s: %v", cmd, err)
			return nil, fmt.Errorf("%s: %w", cmd, err)
		}
		if r.Outcome != OK {
			detail := r.ErrorText() + r.Reason
			step(false, "%s answered %s: %s", cmd, r.Outcome, detail)
			return nil, fmt.Errorf("%s answered %s: %s", cmd, r.Outcome, detail)
		}
		return r.Result, nil
	}
	call := func(cmd string, args map[string]any) (json.RawMessage, error) {
		r, err := c.Call(ctx, cmd, args, timeout)
		return judge(cmd, r, err)
	}
	// The protocol is checked against the runtime the SDK's scenarios would run on: an SDK that
	// cannot connect to the current runtime is said so and checked against the older runtime it
	// connects to (FitRuntime), as a run does.
	connect := map[string]any{"client": "smoke", "address": addr}
	r, err := c.Call(ctx, "connect", connect, timeout)
	if err == nil && r.Outcome == Error {
		if pre, note := FitRuntime(ctx, c, opts, timeout); pre {
			step(true, "runtime: %s", note)
			rt.Close()
			opts.PreConnect = true
			rec = transcript.Memory()
			rt = standin.New(rec, opts)
			if addr, err = rt.Listen("127.0.0.1:0"); err != nil {
				return err
			}
			connect["address"] = addr
			r, err = c.Call(ctx, "connect", connect, timeout)
		}
	}
	if _, err := judge("connect", r, err); err != nil {
		return err
	}
	// Protocol-3 SDKs open with connect; older ones with ping (the features tell them apart).
	handshake := "connect"
	if len(transcript.Requests(rec.Entries(), "connect")) == 0 {
		if handshake = "ping"; len(transcript.Requests(rec.Entries(), "ping")) == 0 {
			step(false, "connect: the SDK sent neither connect nor ping to %s", addr)
			return fmt.Errorf("no connect request reached the runtime")
		}
	}
	step(true, "connect: the SDK connected to the runtime at %s (handshake: %s)", addr, handshake)
	tool := map[string]any{"name": "smoke_tool", "description": "smoke",
		"handler": map[string]any{"action": "return", "text": "done"}}
	if hello.Capabilities["tool.isTerminal"] {
		tool["isTerminal"] = true
	}
	res, err := call("createSession", map[string]any{"client": "smoke", "session": "s1", "tools": []any{tool}})
	if err != nil {
		return err
	}
	var created struct {
		SessionID string `json:"sessionId"`
	}
	if json.Unmarshal(res, &created) != nil || created.SessionID == "" {
		step(false, "createSession: result %s has no sessionId", res)
		return fmt.Errorf("createSession returned no sessionId")
	}
	creates := transcript.Requests(rec.Entries(), "session.create")
	if len(creates) == 0 || !strings.Contains(string(creates[0].Params), `"smoke_tool"`) {
		step(false, "createSession: no session.create with the tool reached the runtime")
		return fmt.Errorf("no session.create with the tool reached the runtime")
	}
	step(true, "createSession: session %s created with its tool", created.SessionID)
	rt.AddTurn(standin.Turn{Steps: []standin.ModelStep{{Tool: "smoke_tool"}}})
	res, err = call("send", map[string]any{"session": "s1", "prompt": "smoke", "wait": true, "timeoutMs": timeout.Milliseconds()})
	if err != nil {
		return err
	}
	if len(transcript.Requests(rec.Entries(), "session.tools.handlePendingToolCall")) == 0 {
		step(false, "send: the tool call was not answered with session.tools.handlePendingToolCall")
		return fmt.Errorf("the tool call was not answered")
	}
	step(true, "send: the SDK ran the tool and the turn ended (%s)", res)
	if _, err := call("disconnect", map[string]any{"session": "s1"}); err != nil {
		return err
	}
	step(true, "disconnect")
	if _, err := call("stopClient", map[string]any{"client": "smoke"}); err != nil {
		return err
	}
	step(true, "stopClient")
	if _, err := call("shutdown", nil); err != nil {
		return err
	}
	select {
	case <-c.Done():
		step(true, "shutdown: the driver exited")
	case <-time.After(10 * time.Second):
		step(false, "shutdown: the driver answered but did not exit within 10s")
		return fmt.Errorf("the driver did not exit after shutdown")
	}
	return nil
}
