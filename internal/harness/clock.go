package harness

import (
	"fmt"
	"sync"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/driver"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/timing"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
)

// clock collects one SDK's timing over a run: when it was ready and done, and each scenario's
// timeline read back from its transcript (the transcript's timestamps are the one clock every
// frame shares, so the SDK's time is measured where the frames are).
type clock struct {
	sdk                string
	dir                string // the report folder, which example paths are relative to
	store              *transcript.Store
	begun, ready, done time.Time
	prepared           time.Duration
	drivers            int

	mu         sync.Mutex
	first      time.Time // first scenario start
	last       time.Time // last scenario end
	timelines  []timing.Timeline
	sdkCalls   float64
	connect    float64
	body       float64
	stop       float64
	usage      []driver.Usage
	driverWait float64
	overhead   []float64
	examples   map[string]string
}

// scenario records one finished scenario that started at start and wrote path.
func (c *clock) scenario(start time.Time, waited time.Duration, path string) {
	end := time.Now()
	entries, err := c.store.Read(path)
	if err != nil {
		return
	}
	tl := timing.Analyze(entries, timing.DefaultOptions)
	var calls, connect, stop float64
	for _, cmd := range tl.Commands {
		calls += cmd.Total
		switch cmd.Name {
		case "connect":
			connect += cmd.Total
		case "stopClient":
			stop += cmd.Total
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.first.IsZero() || start.Before(c.first) {
		c.first = start
	}
	if end.After(c.last) {
		c.last = end
	}
	c.timelines = append(c.timelines, tl)
	if len(tl.Commands) == 0 {
		return // not run on the SDK (unsupported): no SDK time to set the harness's against
	}
	c.sdkCalls += calls
	c.connect += connect
	c.stop += stop
	c.body += calls - connect - stop
	c.driverWait += ms(waited)
	c.overhead = append(c.overhead, max(ms(end.Sub(start)-waited)-calls, 0))
	for _, o := range tl.Observations {
		if c.examples == nil {
			c.examples = map[string]string{}
		}
		if _, ok := c.examples[o.Kind]; !ok {
			c.examples[o.Kind] = fmt.Sprintf("%s (`%s`, entry %d)", o.Message, relTo(c.dir, path), o.Seq)
		}
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func (c *clock) summary(jobs int) report.Timing {
	c.mu.Lock()
	defer c.mu.Unlock()
	agg := timing.Aggregate(c.sdk, c.timelines)
	t := report.Timing{SDK: c.sdk, Jobs: jobs, Drivers: c.drivers, StartMS: ms(c.ready.Sub(c.begun)), PrepareMS: ms(c.prepared),
		Scenarios: len(c.overhead), SDKCallsMS: c.sdkCalls, DriverWaitMS: c.driverWait, Overhead: stats(timing.StatsOf(c.overhead)),
		Commands: agg.Commands, ToFirstFrame: stats(agg.ToFirstFrame), AnswerToResult: stats(agg.AnswerToResult),
		Example: c.examples}
	t.ConnectMS, t.BodyMS, t.StopMS = c.connect, c.body, c.stop
	var starts []float64
	for _, u := range c.usage {
		if u.Startup > 0 {
			starts = append(starts, ms(u.Startup))
		}
		if u.HasCPU {
			t.CPUDrivers++
			t.DriverLifeMS += ms(u.Life)
			t.DriverCPUMS += ms(u.CPU)
		}
	}
	t.DriverStart = stats(timing.StatsOf(starts))
	if !c.first.IsZero() {
		t.WallMS = ms(c.last.Sub(c.first))
	}
	if len(agg.Observations) > 0 {
		t.Observations, t.Worst = agg.Observations, agg.Worst
	}
	return t
}

func stats(s timing.Stats) report.Stats {
	return report.Stats{N: s.N, P50: s.P50, P95: s.P95, Max: s.Max}
}
