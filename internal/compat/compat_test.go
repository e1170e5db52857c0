package compat

import (
	"testing"

	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func results(sdkStatus string, statuses map[string]string) *report.Results {
	res := &report.Results{SDKs: []report.SDK{{Name: "node", Version: "1.0.14", Status: sdkStatus}}}
	for sc, st := range statuses {
		res.Results = append(res.Results, report.Result{Feature: "f.feature", Scenario: sc, SDK: "node", Status: st})
	}
	return res
}

func note(res *report.Results, runtime string) *report.Results {
	res.SDKs[0].Runtime = runtime
	return res
}

func cannotConnect(res *report.Results, why string) *report.Results {
	return note(res, report.CannotConnectReal+": "+why)
}

func TestBuild(t *testing.T) {
	tests := []struct {
		name      string
		old, new  *report.Results
		works     []bool
		changes   int
		markdowns []string
	}{
		{"the same on both", results(report.Available, map[string]string{"a": report.Passed, "b": report.XFail}),
			results(report.Available, map[string]string{"a": report.Passed, "b": report.XFail}), []bool{true, true}, 0,
			[]string{"| node@1.0.14 | ok: 1 passed, 1 xfail | ok: 1 passed, 1 xfail |"}},
		{"the new runtime breaks a scenario", results(report.Available, map[string]string{"a": report.Passed, "b": report.Passed}),
			results(report.Available, map[string]string{"a": report.Passed, "b": report.Failed}), []bool{true, false}, 1,
			[]string{"**fails**: 1 passed, 1 failed", "- f.feature: b — 1 passed, 2 failed"}},
		{"an unavailable SDK does not work", results(report.Unavailable, nil), results(report.Unavailable, nil), []bool{false, false}, 0, nil},
		{"an SDK that cannot connect to a runtime is said so, with its words and the frame, though its results are expected failures",
			results(report.Available, map[string]string{"a": report.Passed}),
			cannotConnect(results(report.Available, map[string]string{"a": report.XFail}), `InvalidFormatException: not a valid long, after the runtime's answer {"result":{"timestamp":"2026-12-01T08:00:37Z"}}`),
			[]bool{true, false}, 1,
			[]string{"| node@1.0.14 | ok: 1 passed | **cannot connect to runtime 2**: InvalidFormatException: not a valid long, after the runtime's answer {\"result\":{\"timestamp\":\"2026-12-01T08:00:37Z\"}} (1 xfail) |"}},
		{"a note of the stand-in's older runtime is no cannot-connect on the real runtime",
			results(report.Available, map[string]string{"a": report.Passed}),
			note(results(report.Available, map[string]string{"a": report.Passed}), "cannot connect to the current runtime (the stand-in answering as it does): …"),
			[]bool{true, true}, 0, []string{"| node@1.0.14 | ok: 1 passed | ok: 1 passed |"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := Build([]Run{{Runtime: "1", Dir: "runtime@1", Results: tt.old}, {Runtime: "2", Dir: "runtime@2", Results: tt.new}})
			require.Len(t, m.Rows, 1)
			assert.Equal(t, "node@1.0.14", m.Rows[0].Target)
			for i, c := range m.Rows[0].Cells {
				assert.Equal(t, tt.works[i], c.Works, "runtime %s", c.Runtime)
			}
			assert.Len(t, m.Rows[0].Changes, tt.changes)
			md := Markdown(m)
			for _, want := range tt.markdowns {
				assert.Contains(t, md, want)
			}
		})
	}
}
