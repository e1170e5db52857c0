package harness

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strconv"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/driver"
	"github.com/copilot-sdk-conformance/conformance/internal/runtime"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/copilot-sdk-conformance/conformance/steps"
	"github.com/cucumber/godog"
)

// The first note of every scenario transcript names it (see steps.world.begin).
var scenarioNote = regexp.MustCompile(`^scenario ("(?:[^"\\]|\\.)*") \((.*)\) on (\S+)$`)

// Replay re-checks a scenario's assertions against a recorded transcript, running no SDK: the
// driver's recorded answers stand in for the driver and the recorded frames for the wire.
func Replay(repoRoot, path string) (steps.Outcome, string, error) {
	entries, err := transcript.Read(path)
	if err != nil {
		return steps.Outcome{}, "", err
	}
	var name, feature, sdk string
	for _, e := range entries {
		if m := scenarioNote.FindStringSubmatch(e.Text); e.Dir == transcript.Note && m != nil {
			name, feature, sdk = m[1], m[2], m[3]
			if unq, err := strconv.Unquote(name); err == nil {
				name = unq
			}
			break
		}
	}
	if name == "" {
		return steps.Outcome{}, "", fmt.Errorf("%s: no scenario note (is this a scenario transcript from conformance run?)", path)
	}
	featuresRoot := filepath.Join(repoRoot, "features")
	t := &replayTarget{sdk: sdk, entries: entries}
	suite := godog.TestSuite{
		Name:                "replay",
		ScenarioInitializer: steps.Initializer(t, featuresRoot, name),
		Options:             &godog.Options{Format: "progress", Output: io.Discard, Paths: []string{filepath.Join(featuresRoot, feature)}, Strict: true},
	}
	suite.Run()
	if t.outcome == nil {
		return steps.Outcome{}, sdk, fmt.Errorf("scenario %q is no longer in features/%s", name, feature)
	}
	return *t.outcome, sdk, nil
}

// replayTarget serves one recorded scenario.
type replayTarget struct {
	sdk     string
	entries []transcript.Entry
	outcome *steps.Outcome
}

func (t *replayTarget) SDK() string                                        { return t.sdk }
func (t *replayTarget) Unavailable() string                                { return "" }
func (t *replayTarget) Capabilities() (map[string]bool, map[string]string) { return nil, nil }
func (t *replayTarget) Driver(context.Context) (*driver.Client, error) {
	return nil, fmt.Errorf("replay runs no driver")
}
func (t *replayTarget) KillDriver()                   {}
func (t *replayTarget) CommandTimeout() time.Duration { return time.Second }
func (t *replayTarget) TranscriptPath(string, string) string {
	return ""
}
func (t *replayTarget) RuntimeOptions() runtime.Options { return runtime.Options{} }
func (t *replayTarget) StdioRuntime() []string          { return nil }
func (t *replayTarget) Finished(o steps.Outcome)        { t.outcome = &o }
func (t *replayTarget) Recorded(string, string) ([]transcript.Entry, bool) {
	return t.entries, true
}
