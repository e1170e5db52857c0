package main

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/copilot-sdk-conformance/conformance/internal/campaign"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
)

func TestPrintBench(t *testing.T) {
	res := &report.Results{Timing: []report.Timing{
		{SDK: "python", Scenarios: 41, Drivers: 8, WallMS: 9000, SDKCallsMS: 45000, Overhead: report.Stats{P50: 1.6, P95: 9}, StartMS: 2100,
			ConnectMS: 4100, BodyMS: 0.5 + 41*100, StopMS: 41000, DriverStart: report.Stats{N: 8, P50: 420, Max: 900},
			CPUDrivers: 8, DriverLifeMS: 72000, DriverCPUMS: 9000},
		{SDK: "java", Scenarios: 11, Drivers: 1, WallMS: 400, SDKCallsMS: 0},
	}}
	var out bytes.Buffer
	printBench(&out, res, 13*time.Second, 8, 5200*time.Millisecond)
	got := out.String()
	assert.Regexp(t, `python +41 +8 +9\.00 s +45\.00 s +0\.20 +1\.6 ms +9\.0 ms +2\.10 s`, got)
	assert.Regexp(t, `java +11 +1 +0\.40 s +0\.00 s +0\.00 `, got, "no SDK calls: no ratio, not a division by zero")
	assert.Regexp(t, `python +420 ms +900 ms +4\.10 s +4\.10 s +41\.00 s +100 / 100 / 1000 ms +9\.00 s +72\.00 s +0\.12 +220 ms`, got)
	assert.Regexp(t, `java +0 ms +0 ms +0\.00 s +0\.00 s +0\.00 s +0 / 0 / 0 ms +- +- +- +-`, got, "CPU unknown (no driver exited, or a container): a dash")
	assert.Contains(t, got, "whole run: 13.00 s with --jobs 8\n")
	assert.Contains(t, got, "CPU: harness 5.20 s (100 ms per scenario), drivers 9.00 s\n")
}

func TestPrintColdWarm(t *testing.T) {
	cold := &report.Results{Timing: []report.Timing{
		{SDK: "rust", PrepareMS: 163000, StartMS: 164200},
		{SDK: "node", PrepareMS: 23000, StartMS: 23900},
	}}
	warm := &report.Results{Timing: []report.Timing{
		{SDK: "node", PrepareMS: 40, StartMS: 900},
		{SDK: "rust", PrepareMS: 120, StartMS: 300},
	}}
	var out bytes.Buffer
	printColdWarm(&out, cold, warm, 190*time.Second, 25*time.Second)
	got := out.String()
	for _, want := range []string{
		`rust +163\.0 s +0\.12 s +164\.2 s +0\.30 s`, // the warm row matched by SDK, not by position
		`node +23\.0 s +0\.04 s +23\.9 s +0\.90 s`,
		`whole run: cold 190\.0 s, warm 25\.0 s`,
	} {
		assert.Regexp(t, want, got)
	}
}

func TestLinesWith(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"the line kept", "real runtime: 3 process(es) started\n", "real runtime: 3 process(es) started\n"},
		{"another dropped", "[node] done in 3s\n", ""},
		{"one of several in a write", "a\nreal runtime: x\nb\n", "real runtime: x\n"},
		{"the prefix not at a line's start", "the real runtime: x\n", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			n, err := linesWith{prefix: "real runtime:", w: &out}.Write([]byte(c.in))
			assert.NoError(t, err)
			assert.Equal(t, len(c.in), n)
			assert.Equal(t, c.want, out.String())
		})
	}
}

// TestParseBench reads back what printBenchRun prints (a side of bench --against is read from
// its output); CPU unknown stays unknown, and output without the whole run is an error.
func TestParseBench(t *testing.T) {
	res := &report.Results{Timing: []report.Timing{{SDK: "go", Scenarios: 10, WallMS: 900, DriverCPUMS: 2500}}}
	var out bytes.Buffer
	printBenchRun(&out, &campaign.BenchRun{Results: res, Took: 37410 * time.Millisecond, HarnessCPU: 19100 * time.Millisecond, CPUKnown: true,
		Phases: []campaign.Phase{{Name: "schema", At: time.Second, CPU: time.Second}, {Name: "scenarios", At: 30 * time.Second, CPU: 15 * time.Second}}}, 32)
	got, err := parseBench(out.String())
	require.NoError(t, err)
	assert.Equal(t, campaign.SideRun{Wall: 37410 * time.Millisecond, HarnessCPU: 19100 * time.Millisecond, DriversCPU: 2500 * time.Millisecond,
		Parts: "schema 1.00 s (CPU 1.00 s), scenarios 29.00 s (CPU 14.00 s)"}, got)

	got, err = parseBench("whole run: 12.50 s with --jobs 8\n")
	require.NoError(t, err)
	assert.Equal(t, campaign.SideRun{Wall: 12500 * time.Millisecond, HarnessCPU: -1, DriversCPU: -1}, got)

	_, err = parseBench("exit status 2\n")
	assert.Error(t, err)
}

// TestPassThrough: each side's bench gets the suite flags as given (every value of a repeated
// one), never the side-by-side flags or the report folder.
func TestPassThrough(t *testing.T) {
	cmd := benchCmd()
	require.NoError(t, cmd.ParseFlags([]string{"--sdk", "go,node", "--sdk-version", "go=v1.0.9", "--sdk-version", "node=1.0.5", "--tags", "~@sweep",
		"--against", "/base", "--rounds", "3", "--report-dir", "/r", "--jobs", "4"}))
	assert.ElementsMatch(t, []string{"--sdk=go,node", "--sdk-version=go=v1.0.9", "--sdk-version=node=1.0.5", "--tags=~@sweep", "--jobs=4"}, passThrough(cmd))
}

func TestPrintSideBySide(t *testing.T) {
	var out bytes.Buffer
	printSideBySide(&out, []campaign.SideMedians{{Side: "base", Wall: 40 * time.Second, HarnessCPU: 20 * time.Second, Runs: 2}, {Side: "head", Wall: 50 * time.Second, HarnessCPU: 22 * time.Second, Runs: 2}})
	assert.Equal(t, "base: median of 2 run(s) 40.00 s, harness CPU 20.00 s\nhead: median of 2 run(s) 50.00 s, harness CPU 22.00 s\nhead÷base: wall 1.25, harness CPU 1.10\n", out.String())
}
