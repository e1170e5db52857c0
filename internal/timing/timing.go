// Package timing reads a scenario's transcript as a timeline: how long an SDK takes from a
// driver command to its first frame on the wire, and from the runtime's last answer to the
// driver's result, with the outliers worth telling an SDK's users about (a request whose header
// and body arrive apart, a close that waits). These are observations, never failures: the
// numbers depend on the machine.
package timing

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"

	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
)

// Command is one driver command and the wire traffic it caused, all in milliseconds.
type Command struct {
	Seq  int    // seq of the command's harness->driver entry
	Name string // the command, e.g. "createSession"
	// ToFirstFrame is from the command to the SDK's first frame to the runtime; HasFirstFrame
	// is false when the SDK sent nothing before the driver answered.
	ToFirstFrame  float64
	HasFirstFrame bool
	// AnswerToResult is from the runtime's last frame to the SDK before the driver's result to
	// that result; HasAnswer is false when the runtime sent nothing in between.
	AnswerToResult float64
	HasAnswer      bool
	// LastRoundTrip is the runtime's answer time for the last request the SDK sent during the
	// command (request to response), the yardstick for a close that waits.
	LastRoundTrip float64
	Total         float64 // command to result
	Answered      bool    // false when the transcript ends before the driver's result
}

// Observation kinds.
const (
	SplitFrame = "split-frame" // a request whose header and body arrived apart
	SlowClose  = "slow-close"  // a stopClient that waits long after the runtime's last answer
)

// Observation is one outlier found in a transcript.
type Observation struct {
	Kind    string
	Seq     int     // the entry it is about
	Method  string  // the request's method (split-frame) or the command (slow-close)
	Millis  float64 // the gap: header to body, or last answer to the driver's result
	Message string  // one readable line
}

// Options bound what counts as an outlier.
type Options struct {
	// SlowClose: a stopClient whose result comes more than this many ms after the runtime's last
	// answer, and more than SlowCloseRatio times that last request's round trip.
	SlowCloseMS    float64
	SlowCloseRatio float64
	// SplitFrameMS: a request's header and body count as apart when the body arrived at least
	// this many ms after the header (two reads a few microseconds apart are not worth telling).
	SplitFrameMS float64
}

// DefaultOptions: a close is slow past 100 ms and 10× the round trip it waited on (on loopback
// every SDK answers a close in a few ms); a frame is split when its body came 1 ms or more after
// its header.
var DefaultOptions = Options{SlowCloseMS: 100, SlowCloseRatio: 10, SplitFrameMS: 1}

// Timeline is the timing of one scenario.
type Timeline struct {
	Commands     []Command
	Observations []Observation
}

type driverFrame struct {
	ID      json.RawMessage `json:"id"`
	Cmd     string          `json:"cmd"`
	Outcome string          `json:"outcome"`
}

type rpcFrame struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
}

// Analyze reads one transcript. Commands are matched to their results by id; frames on the SDK
// connections count for every command in flight (the driver runs one command at a time).
func Analyze(entries []transcript.Entry, opts Options) Timeline {
	var tl Timeline
	open := map[string]int{} // command id -> index in tl.Commands
	start := map[string]float64{}
	type pending struct {
		t      float64
		method string
	}
	requests := map[string]pending{} // conn+id -> request time
	lastRoundTrip := 0.0
	lastAnswer, haveAnswer := 0.0, false
	firstFrame := map[int]bool{}

	for _, e := range entries {
		switch e.Dir {
		case transcript.HarnessToDriver:
			var f driverFrame
			if json.Unmarshal(e.Frame, &f) != nil || f.Cmd == "" {
				continue
			}
			id := string(f.ID)
			open[id] = len(tl.Commands)
			start[id] = e.TMS
			tl.Commands = append(tl.Commands, Command{Seq: e.Seq, Name: f.Cmd})
			haveAnswer, lastRoundTrip = false, 0
		case transcript.DriverToHarness:
			var f driverFrame
			if json.Unmarshal(e.Frame, &f) != nil || f.Outcome == "" {
				continue // an event, not a result
			}
			i, ok := open[string(f.ID)]
			if !ok {
				continue
			}
			c := &tl.Commands[i]
			c.Answered = true
			c.Total = e.TMS - start[string(f.ID)]
			if haveAnswer && lastAnswer >= start[string(f.ID)] {
				c.HasAnswer, c.AnswerToResult = true, e.TMS-lastAnswer
				c.LastRoundTrip = lastRoundTrip
			}
			delete(open, string(f.ID))
			if c.Name == "stopClient" && c.HasAnswer && c.AnswerToResult > opts.SlowCloseMS &&
				c.AnswerToResult > opts.SlowCloseRatio*c.LastRoundTrip {
				tl.Observations = append(tl.Observations, Observation{
					Kind: SlowClose, Seq: c.Seq, Method: c.Name, Millis: c.AnswerToResult,
					Message: fmt.Sprintf("stopClient returned %.0f ms after the runtime's last answer (that request's round trip: %.1f ms)", c.AnswerToResult, c.LastRoundTrip),
				})
			}
		case transcript.SDKToRuntime:
			var f rpcFrame
			_ = json.Unmarshal(e.Frame, &f)
			for id, i := range open {
				if !firstFrame[i] {
					firstFrame[i] = true
					tl.Commands[i].HasFirstFrame = true
					tl.Commands[i].ToFirstFrame = e.TMS - start[id]
				}
			}
			if f.Method != "" && len(f.ID) > 0 {
				requests[e.Conn+" "+string(f.ID)] = pending{t: e.TMS, method: f.Method}
			}
			if e.HeaderTMS != nil && e.TMS-*e.HeaderTMS >= opts.SplitFrameMS {
				gap := e.TMS - *e.HeaderTMS
				method := f.Method
				if method == "" {
					method = "(response)"
				}
				tl.Observations = append(tl.Observations, Observation{
					Kind: SplitFrame, Seq: e.Seq, Method: method, Millis: gap,
					Message: fmt.Sprintf("%s: header and body written apart; the body arrived %.1f ms after the header", method, gap),
				})
			}
		case transcript.RuntimeToSDK:
			lastAnswer, haveAnswer = e.TMS, true
			var f rpcFrame
			if json.Unmarshal(e.Frame, &f) == nil && f.Method == "" && len(f.ID) > 0 {
				if p, ok := requests[e.Conn+" "+string(f.ID)]; ok {
					lastRoundTrip = e.TMS - p.t
					delete(requests, e.Conn+" "+string(f.ID))
				}
			}
		}
	}
	return tl
}

// Stats summarise one latency over many commands.
type Stats struct {
	N             int
	P50, P95, Max float64
}

// Summary is the timing of one SDK over a run.
type Summary struct {
	SDK            string
	Commands       int
	ToFirstFrame   Stats              // driver command -> SDK's first frame
	AnswerToResult Stats              // runtime's last answer -> driver's result
	Observations   map[string]int     // kind -> count
	Worst          map[string]float64 // kind -> the largest gap (ms) among its observations
}

// Aggregate summarises the timelines of one SDK's scenarios.
func Aggregate(sdk string, timelines []Timeline) Summary {
	s := Summary{SDK: sdk, Observations: map[string]int{}, Worst: map[string]float64{}}
	var first, tail []float64
	for _, tl := range timelines {
		for _, c := range tl.Commands {
			s.Commands++
			if c.HasFirstFrame {
				first = append(first, c.ToFirstFrame)
			}
			if c.HasAnswer {
				tail = append(tail, c.AnswerToResult)
			}
		}
		for _, o := range tl.Observations {
			s.Observations[o.Kind]++
			s.Worst[o.Kind] = max(s.Worst[o.Kind], o.Millis)
		}
	}
	s.ToFirstFrame, s.AnswerToResult = stats(first), stats(tail)
	return s
}

// stats uses the nearest-rank percentile: with the few dozen samples of a run, interpolating
// would report latencies no command had.
func stats(v []float64) Stats {
	if len(v) == 0 {
		return Stats{}
	}
	sort.Float64s(v)
	rank := func(p float64) float64 {
		i := int(math.Ceil(p*float64(len(v)))) - 1
		return v[max(i, 0)]
	}
	return Stats{N: len(v), P50: rank(0.50), P95: rank(0.95), Max: v[len(v)-1]}
}

// StatsOf summarises any latencies (ms) the same way.
func StatsOf(v []float64) Stats { return stats(append([]float64(nil), v...)) }
