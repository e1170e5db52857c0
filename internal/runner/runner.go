// Package runner is where a run's drivers run: one interface, Runner, with three kinds behind
// it. Local prepares each SDK on this machine's toolchains and starts its driver as a process;
// Docker builds a driver image per SDK and version and starts containers; Replay runs no SDK and
// answers each scenario from its recorded transcript (driver.Recorded). The harness prepares
// every target (SDK@version) through Prepare, launches its drivers through the Prepared
// launcher, flushes the driver log it handed over, and calls Close once when the run ends: it
// never asks which kind it has.
package runner

import (
	"bytes"
	"context"
	"io"
	"os"
	"sync"

	"github.com/copilot-sdk-conformance/conformance/internal/driver"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/sdks"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
)

// Names of the runners (`--runner`; Replay is `conformance replay`).
const (
	LocalName  = "local"  // a local process per SDK, on this machine's toolchains (default)
	DockerName = "docker" // a container per SDK from its driver image (internal/container)
	ReplayName = "replay" // recorded transcripts, no SDK
)

// Target is one SDK@version of a run, as the runner prepares it.
type Target struct {
	SDK     string
	Version string // the version to install (the pin when none was asked for)
	Label   string // SDK, or SDK@version in a run of several versions (report paths)
	Source  string // --sdk-source folder, "" for a published version
	// Log gets the lines about the target that are not results (preparation progress).
	Log io.Writer
	// Stderr is where the drivers' stderr goes (the driver log in the report folder).
	Stderr io.Writer
	// Lead and Yield order a run's preparations by how long each is expected to take from cold
	// (the recipes' ColdPrepare), since every scenario waits for the longest. The lead (the
	// first of the longest) starts at once, outside the heavy work slots; a yielding one (shorter
	// than the lead's) runs at YieldNice, so the lead gets the cores. Before, a cold run's Rust
	// build waited a minute for a slot behind Go's, then shared the cores with Java's and Python's.
	Lead, Yield bool
}

// YieldNice is the CPU niceness of a yielding preparation (Target.Yield).
const YieldNice = 19

// Prepared is a target ready to start drivers.
type Prepared struct {
	Launcher driver.Launcher
	// Toolchain is what the report lists about how the target ran (toolchain versions, or the
	// driver image).
	Toolchain []string
	// Hello, when set, is the target's recorded hello: no driver is started to ask (Replay).
	Hello *driver.Hello
	// Recordings, when set, answer each scenario from its own recording (Replay) instead of
	// starting Launcher; a scenario it does not hold is not this target's.
	Recordings Recordings
	// Generated, when set, is where the prepared SDK's own files keep its generated RPC layer
	// (the recipe's Generated): a driver that declares rpc.generated false has it wrong.
	Generated string
	// Paired is the runtime version the prepared SDK declares (its recipe's Paired), nil when it
	// declares none (Unpaired says why) or the runner cannot read its files (a driver image).
	Paired   *sdks.PairedRuntime
	Unpaired string
	// SchemaDir, when set, holds the runtime schemas the prepared SDK itself ships (the Node
	// SDK's platform package): the schema that pairs with this version, which judges its frames.
	SchemaDir string
	// Built says how a local source was built when not by its own steps (sdks.Launch.Built).
	Built string
}

// Recordings give each scenario of a replayed target its recording.
type Recordings interface {
	// Recording returns the recorded scenario (feature relative to the features folder).
	Recording(feature, scenario string) (*Recording, bool)
	// Len is how many scenarios were recorded.
	Len() int
}

// Recording is one recorded scenario.
type Recording struct {
	Entries     []transcript.Entry
	Unavailable string            // the recorded run found the SDK unavailable
	Lacks       map[string]string // capabilities the recorded run lacked, with the driver's notes
	Schema      bool              // the recorded run checked requests against the runtime schema
	Result      *report.Result    // what the recorded run reported for it
}

// Launcher answers the scenario's commands from its recorded driver lines, and is the replay's
// runtime.Recording; the recorded wire of each move's stretch goes into rec as it is played
// (driver.Recorded.Emit), in its recorded order with the driver lines (Len).
func (r *Recording) Launcher(rec *transcript.Recorder) (*driver.Recorded, []transcript.Entry) {
	d := driver.NewRecorded(r.Entries)
	d.Emit = func(es []transcript.Entry) {
		for _, e := range es {
			rec.Add(e)
		}
	}
	d.Len = rec.Len
	return d, d.Before()
}

// Runner prepares a run's targets and cleans up after them.
type Runner interface {
	Name() string
	// Prepare checks what the target needs and readies it: an SDK preparation (install and
	// build into the cache), an image build, or the target's recordings. An error makes the
	// target unavailable with that reason.
	Prepare(ctx context.Context, t Target) (*Prepared, error)
	// Close removes whatever the runner started (containers, networks, temporary images); it is
	// called once, however the run ends.
	Close(log io.Writer)
}

// Schemas find the runtime's published schemas (api.schema.json, session-events.schema.json)
// in the schema-source SDK (sdks.SchemaSource) as a runner prepares it: Local in its
// preparation, Docker in its driver image.
type Schemas interface {
	// SchemaDir returns the folder holding the schemas of SDK sdk at version, and where it was
	// read when that is not this machine's preparation ("" then).
	SchemaDir(ctx context.Context, sdk, version string, log io.Writer) (dir, from string, err error)
}

var (
	_ Schemas = Local{}
	_ Schemas = (*Docker)(nil)
)

// DriverLog creates the driver log of a target in the report folder: whole lines go through
// transcript.Scrub, and Flush writes a last line that has no newline.
func DriverLog(reportDir, label string) (*ScrubLines, error) {
	f, err := os.Create(report.DriverLogPath(reportDir, label))
	if err != nil {
		return nil, err
	}
	return &ScrubLines{w: f}, nil
}

// ScrubLines writes whole lines through transcript.Scrub, so that a token a driver or its SDK
// logs never reaches the driver log in the report folder. A line is held until its newline (a
// token split across two writes is still found), up to 64 KiB.
type ScrubLines struct {
	mu  sync.Mutex
	w   io.Writer
	buf []byte
}

// Flush writes a last line that has no newline (at the end of the run).
func (s *ScrubLines) Flush() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.buf) > 0 {
		_, _ = io.WriteString(s.w, transcript.Scrub(string(s.buf)))
		s.buf = s.buf[:0]
	}
}

func (s *ScrubLines) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.buf = append(s.buf, b...)
	i := bytes.LastIndexByte(s.buf, '\n')
	if i < 0 && len(s.buf) < 64<<10 {
		return len(b), nil
	}
	if i < 0 {
		i = len(s.buf) - 1
	}
	if _, err := io.WriteString(s.w, transcript.Scrub(string(s.buf[:i+1]))); err != nil {
		return 0, err
	}
	s.buf = append(s.buf[:0], s.buf[i+1:]...)
	return len(b), nil
}

// heavy bounds the CPU- and network-heavy work of a run (npm, cargo, mvn, image builds): two at
// a time on the 2-core machines this runs on.
var heavy = make(chan struct{}, 2)

func withHeavy(ctx context.Context, f func() error) error {
	return heavyWork(ctx, true, f)
}

// heavyWork runs f, in one of the heavy slots when queue is set.
func heavyWork(ctx context.Context, queue bool, f func() error) error {
	if !queue {
		return f()
	}
	select {
	case heavy <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-heavy }()
	return f()
}
