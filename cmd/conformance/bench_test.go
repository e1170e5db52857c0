package main

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

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
