// Package progress tells a person watching a run where it is. On a terminal it draws one live
// line per SDK (preparing, running n/N, and the counts per status); without one (CI) it writes a
// compact log: a line when an SDK starts and one when it ends, each failure with its rerun
// command, an unavailable SDK once. Verbose mode writes every result as well.
//
// The harness reports events (Preparing, Ready, Unavailable, Result, Done) from any goroutine;
// Close ends the view.
package progress

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
	"golang.org/x/term"

	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/text"
)

// Options configure a View.
type Options struct {
	// Live draws the progress lines; use IsTerminal(out) to decide.
	Live bool
	// Verbose writes every result, as the harness always did.
	Verbose bool
	// Now is the clock used for durations (tests fix it); time.Now when nil.
	Now func() time.Time
}

// IsTerminal reports whether w is a terminal, where the live view can redraw its lines.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// Result is one scenario's outcome on one SDK, as the view shows it.
type Result struct {
	Feature  string
	Scenario string
	Status   string // a report status
	Message  string // why it failed, for failing results
	Rerun    string // the command that reruns exactly this case
}

// View is the progress of one run.
type View struct {
	opts Options
	out  io.Writer // where lines go: the terminal (above the bars) or the log

	mu   sync.Mutex // guards sdks
	sdks map[string]*sdkState
	bars *mpb.Progress // nil without a terminal
}

type sdkState struct {
	name    string
	bar     *mpb.Bar
	started time.Time

	// mu guards what follows. Bar methods are never called with it held: the bar's own
	// goroutine takes it to draw the line.
	mu          sync.Mutex
	phase       string // preparing | running | unavailable | done
	reason      string
	total, seen int
	counts      map[string]int
	took        time.Duration
}

// New makes a view writing to out.
func New(out io.Writer, opts Options) *View {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	v := &View{opts: opts, out: out, sdks: map[string]*sdkState{}}
	if opts.Live {
		v.bars = mpb.New(mpb.WithOutput(out), mpb.WithWidth(120), mpb.WithRefreshRate(100*time.Millisecond),
			mpb.WithAutoRefresh()) // draw even when out is not a terminal (Live says it should be)
		v.out = v.bars // lines written while bars are live go above them
	}
	return v
}

// state returns the SDK's state, making it (and its live line) on first use.
func (v *View) state(sdk string) *sdkState {
	v.mu.Lock()
	defer v.mu.Unlock()
	s := v.sdks[sdk]
	if s != nil {
		return s
	}
	s = &sdkState{name: sdk, phase: "preparing", counts: map[string]int{}, started: v.opts.Now()}
	v.sdks[sdk] = s
	if v.bars != nil {
		s.bar = v.bars.AddBar(0, mpb.BarWidth(24),
			mpb.PrependDecorators(decor.Name(sdk, decor.WCSyncSpaceR), decor.Any(s.phaseText, decor.WCSyncSpaceR)),
			mpb.AppendDecorators(decor.Any(s.tallyText)),
		)
	}
	return s
}

func (s *sdkState) phaseText(decor.Statistics) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch s.phase {
	case "running":
		return fmt.Sprintf("running %d/%d", s.seen, s.total)
	case "done":
		return fmt.Sprintf("done in %s", s.took.Round(100*time.Millisecond))
	}
	return s.phase
}

func (s *sdkState) tallyText(decor.Statistics) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.phase == "unavailable" {
		return text.FirstLine(strings.TrimSpace(s.reason))
	}
	return counts(s.counts, true)
}

// order of the counts in a line.
var order = []string{report.Passed, report.Failed, report.XFail, report.XPass, report.Unsupported, report.Skipped, report.Unavailable}

// counts says how many results had each status: passed and failed always, xfail and
// unsupported always on a live line (so its columns keep still), the others when there are some.
func counts(c map[string]int, live bool) string {
	var parts []string
	for _, st := range order {
		shown := st == report.Passed || st == report.Failed || (live && (st == report.XFail || st == report.Unsupported))
		if n := c[st]; n > 0 || shown {
			parts = append(parts, fmt.Sprintf("%d %s", n, st))
		}
	}
	return strings.Join(parts, ", ")
}

// Writer is where other lines go (a preparation's build log, say): above the live lines on a
// terminal, into the log otherwise.
func (v *View) Writer() io.Writer { return v.out }

func (v *View) printf(format string, args ...any) {
	fmt.Fprintf(v.out, format, args...)
}

// Preparing: the SDK's driver is being built or found in the cache.
func (v *View) Preparing(sdk string) { v.state(sdk) }

// Ready: the driver is up (detail says which SDK version, from where) and total scenarios will run.
func (v *View) Ready(sdk, detail string, total int) {
	s := v.state(sdk)
	s.mu.Lock()
	s.phase, s.total = "running", total
	s.mu.Unlock()
	if s.bar != nil {
		s.bar.SetTotal(int64(total), false)
	}
	v.printf("[%s] running %d scenarios: %s\n", sdk, total, detail)
}

// Unavailable: the SDK cannot run here; said once, whatever the number of its scenarios.
func (v *View) Unavailable(sdk, reason string) {
	s := v.state(sdk)
	s.mu.Lock()
	s.phase, s.reason = "unavailable", reason
	s.mu.Unlock()
	if s.bar != nil {
		s.bar.SetTotal(0, true)
		return // the live line says it
	}
	v.printf("[%s] unavailable: %s\n", sdk, text.FirstLine(strings.TrimSpace(reason)))
}

// Result: one scenario finished. Failures are always written, with their rerun command.
func (v *View) Result(sdk string, r Result) {
	s := v.state(sdk)
	s.mu.Lock()
	s.counts[r.Status]++
	if r.Status != report.Unavailable {
		s.seen++
	}
	seen, running := s.seen, s.phase == "running"
	s.mu.Unlock()
	if s.bar != nil && running {
		s.bar.SetCurrent(int64(seen))
	}
	failing := report.Failing(r.Status)
	if !failing && !v.opts.Verbose {
		return
	}
	v.printf("[%s] %-11s %s: %s\n", sdk, r.Status, r.Feature, r.Scenario)
	if failing {
		if m := text.FirstLine(strings.TrimSpace(r.Message)); m != "" {
			v.printf("    %s\n", m)
		}
		if r.Rerun != "" {
			v.printf("    rerun: %s\n", r.Rerun)
		}
	}
}

// Logf writes a line about an SDK that is not a result (a driver restarted, for example).
func (v *View) Logf(sdk, format string, args ...any) {
	v.printf("[%s] %s\n", sdk, fmt.Sprintf(format, args...))
}

// Done: the SDK has no more scenarios to run.
func (v *View) Done(sdk string) {
	s := v.state(sdk)
	s.mu.Lock()
	if s.phase == "unavailable" || s.phase == "done" {
		s.mu.Unlock()
		return
	}
	s.phase, s.took = "done", v.opts.Now().Sub(s.started)
	took, line := s.took, counts(s.counts, false)
	s.mu.Unlock()
	if s.bar != nil {
		s.bar.SetTotal(-1, true)
		return
	}
	v.printf("[%s] done in %s: %s\n", sdk, took.Round(100*time.Millisecond), line)
}

// Close ends the view: every SDK not yet done is marked so, and the live lines are drawn one
// last time. Nothing may be reported after Close.
func (v *View) Close() {
	v.mu.Lock()
	var names []string
	for name := range v.sdks {
		names = append(names, name)
	}
	v.mu.Unlock()
	sort.Strings(names)
	for _, name := range names {
		v.Done(name)
	}
	if v.bars != nil {
		v.bars.Wait()
	}
}
