package driver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Hello is a driver's answer to hello.
type Hello struct {
	ProtocolVersion int               `json:"protocolVersion"`
	SDK             string            `json:"sdk"`
	Version         string            `json:"version"`
	Source          string            `json:"source"`
	Capabilities    map[string]bool   `json:"capabilities"`
	Notes           map[string]string `json:"notes"`
	// Missing names, per capability declared false, the SDK symbol whose absence makes it so
	// (PROTOCOL.md "Capability audit").
	Missing map[string]string `json:"missing,omitempty"`
}

// Handshake launches a driver and checks its hello; every problem is named precisely (this is
// also what `conformance smoke` reports first).
func Handshake(ctx context.Context, l Launcher, wantSDK string, timeout time.Duration, v *Validator) (*Client, *Hello, error) {
	c, err := Start(ctx, l)
	if err != nil {
		return nil, nil, err
	}
	if v != nil {
		c.SetValidator(v)
	}
	r, err := c.Call(ctx, "hello", map[string]any{"protocolVersion": ProtocolVersion}, timeout)
	if err != nil {
		c.Kill()
		return nil, nil, err
	}
	c.mu.Lock()
	c.ready = time.Now()
	c.mu.Unlock()
	if r.Outcome != OK {
		c.Kill()
		return nil, nil, fmt.Errorf("hello answered %s: %s%s", r.Outcome, r.ErrorText(), r.Reason)
	}
	if v != nil {
		if err := v.Hello(r.Result); err != nil {
			c.Kill()
			return nil, nil, fmt.Errorf("hello result %s", err)
		}
	}
	var h Hello
	if err := json.Unmarshal(r.Result, &h); err != nil {
		c.Kill()
		return nil, nil, fmt.Errorf("hello result is not an object with protocolVersion, sdk, version, capabilities: %w (got %s)", err, r.Result)
	}
	var problems []string
	if h.ProtocolVersion != ProtocolVersion {
		problems = append(problems, fmt.Sprintf("protocolVersion is %d, want %d", h.ProtocolVersion, ProtocolVersion))
	}
	if wantSDK != "" && h.SDK != wantSDK {
		problems = append(problems, fmt.Sprintf("sdk is %q, want %q", h.SDK, wantSDK))
	}
	if h.Version == "" {
		problems = append(problems, "version is empty: report the exact installed SDK version")
	}
	if h.Capabilities == nil {
		problems = append(problems, "capabilities are missing")
	}
	if len(problems) > 0 {
		c.Kill()
		return nil, nil, fmt.Errorf("bad hello from the %s driver: %s", wantSDK, strings.Join(problems, "; "))
	}
	return c, &h, nil
}
