package harness

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/driver"
	"github.com/copilot-sdk-conformance/conformance/internal/runtime"
	"github.com/copilot-sdk-conformance/conformance/internal/suite"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/cucumber/godog"
)

// Replay re-checks a scenario's assertions against a recorded transcript, running no SDK: a
// recorded driver (driver.Recorded) answers the steps' commands, and the scenario's transcript
// starts with the recorded wire, so the steps run exactly as in a live run.
func Replay(repoRoot, path string, steps suite.Initializer) (suite.Outcome, string, error) {
	entries, err := transcript.Read(path)
	if err != nil {
		return suite.Outcome{}, "", err
	}
	h, ok := transcript.HeaderOf(entries)
	if !ok {
		return suite.Outcome{}, "", fmt.Errorf("%s: no scenario header (is this a scenario transcript from conformance run?)", path)
	}
	featuresRoot := filepath.Join(repoRoot, "features")
	t := &replayTarget{sdk: h.SDK, schema: h.SchemaChecked, entries: entries, launcher: driver.NewRecorded(entries), lacks: map[string]string{}}
	for _, e := range entries {
		switch {
		case e.Kind != transcript.KindNotRun:
		case e.Capability == "":
			t.unavailable = e.Reason
		default:
			t.lacks[e.Capability] = e.Reason
		}
	}
	s := godog.TestSuite{
		Name:                "replay",
		ScenarioInitializer: steps(t, featuresRoot, h.Name),
		Options:             &godog.Options{Format: "progress", Output: io.Discard, Paths: []string{filepath.Join(featuresRoot, h.Feature)}, Strict: true},
	}
	s.Run()
	t.close()
	if t.outcome == nil {
		return suite.Outcome{}, h.SDK, fmt.Errorf("scenario %q is no longer in features/%s", h.Name, h.Feature)
	}
	return *t.outcome, h.SDK, nil
}

// replayTarget serves one recorded scenario.
type replayTarget struct {
	sdk         string
	unavailable string            // the recorded run found the SDK unavailable
	lacks       map[string]string // capabilities the recorded run lacked, with the driver's notes
	schema      bool              // the recorded run checked requests against the runtime schema
	entries     []transcript.Entry
	launcher    *driver.Recorded
	client      *driver.Client
	outcome     *suite.Outcome
}

func (t *replayTarget) SDK() string         { return t.sdk }
func (t *replayTarget) Unavailable() string { return t.unavailable }

// Capability is present unless the recorded run found it missing: the recording shows what the
// SDK did when it ran.
func (t *replayTarget) Capability(name string) (bool, string) {
	note, lacked := t.lacks[name]
	return !lacked, note
}

func (t *replayTarget) Driver(ctx context.Context) (*driver.Client, error) {
	if t.client != nil && t.client.Alive() {
		return t.client, nil
	}
	c, err := driver.Start(ctx, t.launcher)
	t.client = c
	return c, err
}

func (t *replayTarget) KillDriver() {
	if t.client != nil {
		t.client.Kill()
	}
}

func (t *replayTarget) close() { t.KillDriver() }

func (t *replayTarget) CommandTimeout() time.Duration { return 10 * time.Second }

// Transcript starts with the recorded wire and notes; the driver lines are recorded again as
// the recorded driver answers.
func (t *replayTarget) Transcript(string, string) (*transcript.Recorder, string, error) {
	rec := transcript.Memory()
	for _, e := range t.entries {
		if e.Dir != transcript.HarnessToDriver && e.Dir != transcript.DriverToHarness && e.Kind != transcript.KindScenario {
			rec.Add(e)
		}
	}
	return rec, "", nil
}

func (t *replayTarget) RuntimeOptions() runtime.Options { return runtime.Options{} }

// SchemaLoaded is whether the recorded run checked the schema: its violations are in the recording.
func (t *replayTarget) SchemaLoaded() bool       { return t.schema }
func (t *replayTarget) StdioRuntime() []string   { return nil }
func (t *replayTarget) Finished(o suite.Outcome) { t.outcome = &o }
