// Package steps holds the Gherkin step definitions. They are written in the SDK-neutral words
// of the docs (a tool, a session, create, resume, the request, the key) and act only through
// the driver protocol and the recording runtime, so one feature runs unchanged on every SDK.
//
// Each scenario gets its own recording runtime (its own TCP port and transcript) and a fresh SDK
// client in the SDK's long-lived driver.
package steps

import (
	"context"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/driver"
	"github.com/copilot-sdk-conformance/conformance/internal/runtime"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
)

// Target is the SDK a suite runs against, as the harness provides it.
type Target interface {
	// SDK is the SDK's name ("node", "go", …).
	SDK() string
	// Unavailable is the reason the SDK cannot run here, or "".
	Unavailable() string
	// Capabilities and their notes, from the driver's hello.
	Capabilities() (map[string]bool, map[string]string)
	// Driver returns the running driver, restarting it if it died or was killed.
	Driver(ctx context.Context) (*driver.Client, error)
	// KillDriver ends a driver that hung or broke the protocol; the next Driver call restarts it.
	KillDriver()
	// CommandTimeout bounds one driver command.
	CommandTimeout() time.Duration
	// TranscriptPath is where a scenario's transcript is written.
	TranscriptPath(feature, scenario string) string
	// RuntimeOptions configure each scenario's recording runtime.
	RuntimeOptions() runtime.Options
	// StdioRuntime is argv that starts this program as a stdio runtime (for SDKs that spawn it).
	StdioRuntime() []string
	// Finished receives every scenario's outcome.
	Finished(Outcome)
	// Recorded returns a recorded transcript to replay for this scenario instead of running an
	// SDK (conformance replay), or false.
	Recorded(feature, scenario string) ([]transcript.Entry, bool)
}

// Outcome is what one scenario did on one SDK, before known divergences are applied.
type Outcome struct {
	Feature     string   // feature file, relative to the features folder
	Scenario    string   // scenario name (outline placeholders filled in)
	Line        int      // line of the scenario (or example row) in the feature file
	Tags        []string // tags of the scenario
	Err         error    // the first failed step, nil when every step passed
	Unsupported string   // why the SDK cannot run this scenario, when it cannot
	Unavailable string   // why the SDK cannot run at all, when it cannot
	Transcript  string   // transcript file
	Checked     []string // "method:path" of each payload value an assertion checked
	// Observations are facts worth comparing across SDKs that are not pass/fail, e.g.
	// "tool result: success" -> "bare string".
	Observations map[string]string
	// SchemaViolations are "method: pointer: message" for requests the runtime's schema rejects.
	SchemaViolations []string
}
