package progress

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/copilot-sdk-conformance/conformance/internal/report"
)

// clock advances one second per reading, so durations in the log are predictable.
func clock() func() time.Time {
	t := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	return func() time.Time {
		t = t.Add(time.Second)
		return t
	}
}

func pass(s string) Result { return Result{Feature: "f.feature", Scenario: s, Status: report.Passed} }

func TestLog(t *testing.T) {
	tests := []struct {
		name    string
		verbose bool
		events  func(v *View)
		want    string
	}{
		{
			name: "a passing SDK is two lines",
			events: func(v *View) {
				v.Preparing("go")
				v.Ready("go", "SDK v1.0.14 (go module)", 2)
				v.Result("go", pass("a"))
				v.Result("go", Result{Feature: "f.feature", Scenario: "b", Status: report.XFail})
				v.Done("go")
			},
			want: "[go] running 2 scenarios: SDK v1.0.14 (go module)\n" +
				"[go] done in 1s: 1 passed, 0 failed, 1 xfail\n",
		},
		{
			name: "a failure is written with its first message line and rerun command",
			events: func(v *View) {
				v.Ready("node", "SDK 0.1.0", 2)
				v.Result("node", Result{Feature: "tools/x.feature", Scenario: "s", Status: report.Failed,
					Message: "session.create: /tools/0/name: want \"a\", got \"b\"\nmore detail", Rerun: "conformance run --sdk node --name '^s$'"})
				v.Result("node", Result{Feature: "tools/x.feature", Scenario: "t", Status: report.XPass, Message: "passed unexpectedly"})
				v.Done("node")
			},
			want: "[node] running 2 scenarios: SDK 0.1.0\n" +
				"[node] failed      tools/x.feature: s\n" +
				"    session.create: /tools/0/name: want \"a\", got \"b\"\n" +
				"    rerun: conformance run --sdk node --name '^s$'\n" +
				"[node] xpass       tools/x.feature: t\n" +
				"    passed unexpectedly\n" +
				"[node] done in 1s: 0 passed, 1 failed, 1 xpass\n",
		},
		{
			name: "an unavailable SDK is said once, not per scenario",
			events: func(v *View) {
				v.Preparing("dotnet")
				v.Unavailable("dotnet", "dotnet: no such toolchain\nsee doctor")
				for i := 0; i < 41; i++ {
					v.Result("dotnet", Result{Feature: "f.feature", Scenario: "s", Status: report.Unavailable})
				}
				v.Done("dotnet")
			},
			want: "[dotnet] unavailable: dotnet: no such toolchain\n",
		},
		{
			name:    "verbose writes every result, as before",
			verbose: true,
			events: func(v *View) {
				v.Ready("go", "SDK v1", 2)
				v.Result("go", pass("a"))
				v.Result("go", Result{Feature: "f.feature", Scenario: "u", Status: report.Unsupported, Message: "no isTerminal"})
				v.Done("go")
			},
			want: "[go] running 2 scenarios: SDK v1\n" +
				"[go] passed      f.feature: a\n" +
				"[go] unsupported f.feature: u\n" +
				"[go] done in 1s: 1 passed, 0 failed, 1 unsupported\n",
		},
		{
			name: "close ends the SDKs still running, in name order",
			events: func(v *View) {
				v.Ready("rust", "SDK 1", 3)
				v.Ready("java", "SDK 2", 3)
				v.Result("java", pass("a"))
				v.Logf("rust", "driver exited; starting a new one")
			},
			want: "[rust] running 3 scenarios: SDK 1\n" +
				"[java] running 3 scenarios: SDK 2\n" +
				"[rust] driver exited; starting a new one\n" +
				"[java] done in 1s: 1 passed, 0 failed\n" +
				"[rust] done in 3s: 0 passed, 0 failed\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			v := New(&out, Options{Verbose: tt.verbose, Now: clock()})
			tt.events(v)
			v.Close()
			assert.Equal(t, tt.want, out.String())
		})
	}
}

// TestLiveLines draws the live view into a buffer: one line per SDK with its phase and counts,
// failures above them.
func TestLiveLines(t *testing.T) {
	var out bytes.Buffer
	v := New(&out, Options{Live: true, Now: clock()})
	v.Preparing("go")
	v.Preparing("dotnet")
	v.Ready("go", "SDK v1", 2)
	v.Unavailable("dotnet", "no .NET here")
	v.Result("go", pass("a"))
	v.Result("go", Result{Feature: "f.feature", Scenario: "b", Status: report.Failed, Rerun: "conformance run --sdk go"})
	v.Done("go")
	v.Close()
	got := out.String()
	assert.Contains(t, got, "[go] failed      f.feature: b\n    rerun: conformance run --sdk go\n")
	assert.Regexp(t, `go +done in \d+s .*1 passed, 1 failed, 0 xfail, 0 unsupported`, got)
	assert.Regexp(t, `dotnet +unavailable .*no \.NET here`, got)
	assert.NotContains(t, got, "[dotnet] unavailable", "the live line says it; no log line as well")
}
