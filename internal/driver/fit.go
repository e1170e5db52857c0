package driver

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/standin"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
)

// FitRuntime says whether the SDK can talk to the current runtime, before its scenarios
// run on the stand-in: its first driver connects a client to a stand-in answering as the current
// runtime does, and stops it. An SDK that cannot (copilot-sdk-java 0.3 reads ping's timestamp as
// a number; the current runtime answers an ISO 8601 string) is tried against a stand-in that
// answers as a runtime predating connect; when that connects, the SDK's scenarios run against
// that older runtime's shapes (Options.PreConnect), and note says so, with the frame and the
// SDK's words, for the report's headline. An SDK that connects to neither runs as usual (its
// scenarios fail on their own); note is then empty, as it is for an SDK that connects.
func FitRuntime(ctx context.Context, c *Client, opts standin.Options, timeout time.Duration) (preConnect bool, note string) {
	refused, why := tryConnect(ctx, c, opts, timeout)
	if !refused {
		return false, ""
	}
	older := opts
	older.PreConnect = true
	if again, _ := tryConnect(ctx, c, older, timeout); again {
		return false, ""
	}
	return true, "cannot connect to the current runtime (the stand-in answering as it does): " + why +
		"; its scenarios ran against the shapes of a runtime that predates connect (ping's timestamp a number), which it connects to"
}

// tryConnect connects a client of the driver to a stand-in with opts and stops it (TryConnect).
func tryConnect(ctx context.Context, c *Client, opts standin.Options, timeout time.Duration) (refused bool, why string) {
	rec := transcript.Memory()
	srv := standin.New(rec, opts)
	defer srv.Close()
	return TryConnect(ctx, c, srv, rec, timeout)
}

// Listener is a runtime an SDK can connect to: the stand-in, or the real runtime's proxy.
type Listener interface {
	Listen(addr string) (string, error)
}

// TryConnect connects a client of the driver to rt, which records into rec, and stops it.
// refused is true when the SDK raised on connecting; why is its words and the last frame the
// runtime sent before. A driver fault is not a refusal (the scenarios will show it).
func TryConnect(ctx context.Context, c *Client, rt Listener, rec *transcript.Recorder, timeout time.Duration) (refused bool, why string) {
	addr, err := rt.Listen("127.0.0.1:0")
	if err != nil {
		return false, ""
	}
	r, err := c.Call(ctx, "connect", map[string]any{"client": "runtime-probe", "address": addr}, timeout)
	if err != nil {
		return false, ""
	}
	defer func() { _, _ = c.Call(ctx, "stopClient", map[string]any{"client": "runtime-probe"}, timeout) }()
	if r.Outcome != Error {
		return false, ""
	}
	why, _, _ = strings.Cut(r.ErrorText(), "\n")
	for _, e := range slices.Backward(rec.Entries()) {
		if e.Dir == transcript.RuntimeToSDK && len(e.Frame) > 0 {
			why += ", after the runtime's answer " + clipFrame(string(e.Frame))
			break
		}
	}
	return true, why
}

func clipFrame(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
