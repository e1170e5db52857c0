package resolved

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/copilot-sdk-conformance/conformance/internal/schemagen"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/copilot-sdk-conformance/conformance/steps/scenario"
)

// The kinds come from the events schema: a NAME.completed / NAME_completed event carrying a
// required requestId resolves the events of its family that require one too; an event without
// a required requestId is no request, and a family without a resolving event has no kind.
func TestResolvingKindsFromTheSchema(t *testing.T) {
	dir := t.TempDir()
	api, err := os.ReadFile("../../../internal/schemagen/testdata/api.schema.json")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "api.schema.json"), api, 0o644))
	events := []struct {
		typ      string
		required bool // the data require requestId
	}{
		{"permission.requested", true},
		{"permission.completed", true},
		{"permission.carriedForward", false},
		{"mcp.oauth_required", true},
		{"mcp.oauth_completed", true},
		{"mcp.other_required", true}, // its family (mcp.other_) has no resolving event
		{"tool.execution_complete", true},
		{"task.completed", false}, // not a resolving event: no requestId required
		{"task.started", true},
		{"nested.sub.requested", true}, // not of the family "nested." (its rest holds a dot)
		{"nested.completed", true},
	}
	defs := map[string]any{}
	var anyOf []any
	for i, e := range events {
		name := fmt.Sprintf("E%d", i)
		data := map[string]any{"type": "object", "properties": map[string]any{"requestId": map[string]any{"type": "string"}}}
		if e.required {
			data["required"] = []any{"requestId"}
		}
		defs[name] = map[string]any{"type": "object", "required": []any{"id", "timestamp", "parentId", "type", "data"}, "properties": map[string]any{
			"id": map[string]any{"type": "string"}, "timestamp": map[string]any{"type": "string"}, "parentId": map[string]any{"type": []any{"string", "null"}},
			"type": map[string]any{"type": "string", "const": e.typ}, "data": data}}
		anyOf = append(anyOf, map[string]any{"$ref": "#/definitions/" + name})
	}
	defs["SessionEvent"] = map[string]any{"anyOf": anyOf}
	b, err := json.Marshal(map[string]any{"$schema": "http://json-schema.org/draft-07/schema#", "definitions": defs})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "session-events.schema.json"), b, 0o644))
	doc, err := schemagen.Load(dir)
	require.NoError(t, err)
	var got []string
	for _, k := range resolvingKinds(doc) {
		got = append(got, k.request.Type+" -> "+k.resolve.Type)
	}
	assert.Equal(t, []string{"mcp.oauth_required -> mcp.oauth_completed", "permission.requested -> permission.completed"}, got)
}

// tx builds a transcript from frames: "rt EVENT ID" (the runtime's session event carrying
// requestId ID), "sdk METHOD ID" (a request of the SDK naming ID), "app EVENT" (a driver's
// report), "mark" (any other line, to make room).
func tx(lines ...string) []transcript.Entry {
	var out []transcript.Entry
	for i, l := range lines {
		f := strings.Fields(l)
		e := transcript.Entry{Seq: i + 1}
		switch f[0] {
		case "rt":
			e.Dir = transcript.RuntimeToSDK
			e.Frame, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "session.event", "params": map[string]any{"event": map[string]any{"type": f[1], "data": map[string]any{"requestId": f[2]}}}})
		case "sdk":
			e.Dir = transcript.SDKToRuntime
			e.Frame, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": i, "method": f[1], "params": map[string]any{"requestId": f[2]}})
		case "app":
			e.Dir = transcript.DriverToHarness
			args := map[string]any{}
			if len(f) > 2 { // "app EVENT REQUEST": a held request handler's report names its request
				args["request"] = f[2]
			}
			e.Frame, _ = json.Marshal(map[string]any{"event": f[1], "args": args})
		case "given": // "given TYPE REQUEST": the driver reports the application was given the event
			e.Dir = transcript.DriverToHarness
			e.Frame, _ = json.Marshal(map[string]any{"event": "session.event", "args": map[string]any{"type": f[1], "data": map[string]any{"requestId": f[2]}}})
		default:
			e.Dir, e.Text = "note", l
		}
		out = append(out, e)
	}
	return out
}

var toolKind = resolvingKind{request: schemagen.EventType{Type: "external_tool.requested"}, resolve: schemagen.EventType{Type: "external_tool.completed"}}

func TestJudgeRepeated(t *testing.T) {
	// once: entries 1-3; twice: 4-; the case's lengths are start 0, again 3, end len.
	tests := []struct {
		name  string
		twice []string
		want  []string
	}{
		{name: "one answer, one handler call", twice: []string{"rt external_tool.requested r", "rt external_tool.requested r", "app tool.invoked", "sdk session.tools.handlePendingToolCall r"}},
		{name: "answered twice", twice: []string{"rt external_tool.requested r", "rt external_tool.requested r", "app tool.invoked", "sdk session.tools.handlePendingToolCall r", "sdk session.tools.handlePendingToolCall r"},
			want: []string{"requestId r: 2 requests of the SDK name it, one expected (the runtime sent it at #4 and #5)"}},
		{name: "handler ran twice", twice: []string{"rt external_tool.requested r", "rt external_tool.requested r", "app tool.invoked", "app tool.invoked", "sdk session.tools.handlePendingToolCall r"},
			want: []string{"requestId r: the application's handler ran 2 times for the request sent twice (#4 and #5), 1 for one sent once"}},
		{name: "never answered", twice: []string{"rt external_tool.requested r", "rt external_tool.requested r"},
			want: []string{"requestId r: 0 requests of the SDK name it, one expected (the runtime sent it at #4 and #5)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			entries := tx(append([]string{"rt external_tool.requested once", "app tool.invoked", "sdk session.tools.handlePendingToolCall once"}, tt.twice...)...)
			c := resolvedCase{kind: toolKind, requestID: "r", start: 0, again: 3, end: len(entries)}
			fails := judgeRepeated(entries, []resolvedCase{c}, func(string, string) {})
			assert.Equal(t, tt.want, fails["external_tool.requested"])
		})
	}
}

func TestJudgeResolved(t *testing.T) {
	held := []string{"rt external_tool.requested r", "app tool.invoked"} // resolved after entry 2
	tests := []struct {
		name  string
		after []string
		want  []string
	}{
		{name: "not answered once resolved", after: []string{"rt external_tool.completed r", "app session.event"}},
		{name: "answered once resolved", after: []string{"rt external_tool.completed r", "sdk session.tools.handlePendingToolCall r"},
			want: []string{"requestId r: answered (#4, 1 requests) after the runtime resolved it with external_tool.completed (#3)"}},
		{name: "handler run again", after: []string{"rt external_tool.completed r", "app tool.invoked"},
			want: []string{"requestId r: the application's handler ran again after external_tool.completed (#3)"}},
		{name: "another id's answer is not this one's", after: []string{"rt external_tool.completed r", "sdk session.tools.handlePendingToolCall other"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			entries := tx(append(held, tt.after...)...)
			c := resolvedCase{kind: toolKind, requestID: "r", start: 0, resolved: 2, end: len(entries)}
			fails := judgeResolved(entries, []resolvedCase{c}, func(string, string) {})
			assert.Equal(t, tt.want, fails["external_tool.requested"])
		})
	}
}

func TestJudgeUnseen(t *testing.T) {
	tests := []struct {
		name      string
		lines     []string
		followErr error
		want      map[string][]string
	}{
		{name: "nothing names it", lines: []string{"rt external_tool.completed u", "sdk session.tools.handlePendingToolCall held-1"}, want: map[string][]string{}},
		{name: "the SDK answers an unseen id", lines: []string{"rt external_tool.completed u", "sdk session.tools.handlePendingToolCall u"},
			want: map[string][]string{"external_tool.completed": {"requestId u (never requested): the SDK sent 1 requests naming it (the first #2)"}}},
		{name: "the tool call after them is not answered", lines: []string{"rt external_tool.completed u"}, followErr: errors.New("the SDK did not answer"),
			want: map[string][]string{"the tool call after them": {"held-1: the SDK did not answer"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			entries := tx(tt.lines...)
			p := &resolvedPhases{unseen: []resolvedCase{{kind: toolKind, requestID: "u", start: 0, end: len(entries)}}, followUp: "held-1", followErr: tt.followErr}
			assert.Equal(t, tt.want, judgeUnseen(entries, p, func(string, string) {}))
		})
	}
}

// The told class: where the SDK declares a way (handler.cancel.tool), the handler's
// tool.cancelled report must follow the resolving event within the bound, by the transcript's
// clock; without a way the check is unsupported, never passed.
func TestJudgeTold(t *testing.T) {
	held := []string{"rt external_tool.requested r", "app tool.invoked"} // resolved after entry 2
	tests := []struct {
		name  string
		has   bool
		after []string
		ms    []float64 // the t_ms of the entries after held
		want  string    // the error; "" none
		unsup bool
	}{
		{name: "told in time", has: true, after: []string{"rt external_tool.completed r", "app tool.cancelled"}, ms: []float64{100, 130}},
		{name: "not told", has: true, after: []string{"rt external_tool.completed r", "app session.event"}, ms: []float64{100, 130},
			want: "requestId r (sdk): the application's tool handler was never told after external_tool.completed (#3), its way declared: ToolInvocation.signal"},
		{name: "told late", has: true, after: []string{"rt external_tool.completed r", "app tool.cancelled"}, ms: []float64{100, 1600},
			want: "requestId r (sdk): the application's tool handler was told 1500 ms after external_tool.completed (#3, told #4), 1000 ms at most"},
		{name: "told in time after the application was given the event late", has: true, after: []string{"rt external_tool.completed r", "given external_tool.completed r", "app tool.cancelled"}, ms: []float64{100, 1550, 1600}},
		{name: "told late after the application was given the event", has: true, after: []string{"rt external_tool.completed r", "given external_tool.completed r", "app tool.cancelled"}, ms: []float64{100, 200, 1600},
			want: "requestId r (sdk): the application's tool handler was told 1400 ms after the application was given external_tool.completed (#4, sent #3, told #5), 1000 ms at most"},
		{name: "told before the runtime resolved it", has: true, after: []string{"app tool.cancelled", "rt external_tool.completed r"}, ms: []float64{100, 130},
			want: "requestId r (sdk): the application's tool handler was told (#3) before the runtime resolved the call (#4)"},
		{name: "no way declared", has: false, after: []string{"rt external_tool.completed r"}, ms: []float64{100},
			want: "sdk's tool handler has no way to learn that the runtime resolved its call: ToolInvocation.signal", unsup: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			entries := tx(append(held, tt.after...)...)
			for i, ms := range tt.ms {
				entries[len(held)+i].TMS = ms
			}
			c := resolvedCase{kind: toolKind, requestID: "r", start: 0, resolved: 2, end: len(entries)}
			err := judgeTold(tt.has, "ToolInvocation.signal", "sdk", entries, []resolvedCase{c}, time.Second, func(string, string) {})
			if tt.want == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			var unsup *scenario.ErrUnsupported
			assert.Equal(t, tt.unsup, errors.As(err, &unsup))
		})
	}
}

// Each kind's capability is named by the last word of its family: the tool call keeps
// handler.cancel.tool.
func TestCancelCapability(t *testing.T) {
	for kind, want := range map[[2]string]string{
		{"external_tool.requested", "external_tool.completed"}: "handler.cancel.tool",
		{"permission.requested", "permission.completed"}:       "handler.cancel.permission",
		{"command.execute", "command.completed"}:               "handler.cancel.command",
		{"mcp.oauth_required", "mcp.oauth_completed"}:          "handler.cancel.oauth",
	} {
		k := resolvingKind{request: schemagen.EventType{Type: kind[0]}, resolve: schemagen.EventType{Type: kind[1]}}
		assert.Equal(t, want, cancelCapability(k), kind[0])
	}
}

// The told class of the other kinds: each kind with a way is judged on its held case (told in
// time, never, late, before the resolve, or its handler never reached); a kind without one is
// left out, and with no kind having one the check is unsupported, never passed.
func TestJudgeToldKinds(t *testing.T) {
	perm := resolvingKind{request: schemagen.EventType{Type: "permission.requested"}, resolve: schemagen.EventType{Type: "permission.completed"}}
	held := []string{"rt permission.requested r", "app request.held permission.requested"} // resolved after entry 2
	with := map[string]way{"permission.requested": {capability: "handler.cancel.permission", has: true, note: "task cancelled"},
		"elicitation.requested": {capability: "handler.cancel.elicitation", note: "ElicitationContext has no AbortSignal"}}
	without := map[string]way{"permission.requested": {capability: "handler.cancel.permission", note: "PermissionInvocation has no context"}}
	tests := []struct {
		name      string
		ways      map[string]way
		after     []string
		ms        []float64
		unreached bool
		want      string
		unsup     bool
	}{
		{name: "told in time", ways: with, after: []string{"rt permission.completed r", "app request.cancelled permission.requested"}, ms: []float64{100, 130}},
		{name: "another kind's report does not count", ways: with, after: []string{"rt permission.completed r", "app request.cancelled elicitation.requested"}, ms: []float64{100, 130},
			want: "requestId r (sdk): the application's permission handler was never told after permission.completed (#3), its way declared: task cancelled"},
		{name: "told late", ways: with, after: []string{"rt permission.completed r", "app request.cancelled permission.requested"}, ms: []float64{100, 1300},
			want: "requestId r (sdk): the application's permission handler was told 1200 ms after permission.completed (#3, told #4), 1000 ms at most"},
		{name: "told before the runtime resolved it", ways: with, after: []string{"app request.cancelled permission.requested", "rt permission.completed r"}, ms: []float64{100, 130},
			want: "the application's permission handler was told (#3) before the runtime resolved the request (#4)"},
		{name: "never reached", ways: with, after: []string{"rt permission.completed r"}, ms: []float64{100}, unreached: true,
			want: "requestId r (sdk): the application's permission handler was never reached (no request.held)"},
		{name: "no kind has a way", ways: without, after: []string{"rt permission.completed r"}, ms: []float64{100},
			want: "sdk's handlers have no way to learn that the runtime resolved their request: permission.requested (handler.cancel.permission): PermissionInvocation has no context", unsup: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			entries := tx(append(held, tt.after...)...)
			for i, ms := range tt.ms {
				entries[len(held)+i].TMS = ms
			}
			c := resolvedCase{kind: perm, requestID: "r", start: 0, resolved: 2, end: len(entries), reached: !tt.unreached}
			var checked []string
			err := judgeToldKinds(tt.ways, "sdk", entries, []resolvedCase{c}, time.Second, func(s, _ string) { checked = append(checked, s) })
			if tt.want == "" {
				assert.NoError(t, err)
				assert.Equal(t, []string{"permission.requested resolved while its handler runs: the handler told"}, checked)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			var unsup *scenario.ErrUnsupported
			assert.Equal(t, tt.unsup, errors.As(err, &unsup))
		})
	}
}
