// Package suite is the contract between the step definitions (steps/) and whatever runs them:
// a Target is one SDK as a runner provides it, an Outcome is what one scenario did on it, and
// Initializer is the shape of the steps' godog entry point. The steps import this package; the
// runner (internal/harness) receives the steps' Initializer from cmd/conformance, so
// dependencies run one way: cmd -> harness, steps -> suite.
package suite

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/driver"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/schemagen"
	"github.com/copilot-sdk-conformance/conformance/internal/standin"
	"github.com/copilot-sdk-conformance/conformance/internal/surface"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/cucumber/godog"
)

// Target is the SDK a suite runs against, as a runner provides it: a live driver (conformance
// run) or a recorded one (conformance replay); the steps cannot tell them apart. The lifecycle
// of each scenario (which scenarios run, the transcript, the unavailable SDK, the @requires
// gate, the recording runtime, the outcome) is the runner's (internal/harness): the steps see
// a scenario that reached the SDK through Scenario.
type Target interface {
	// SDK is the SDK's name (its recipe's in internal/sdks).
	SDK() string
	// Capability says whether the driver has a capability, and the driver's note about it.
	Capability(name string) (bool, string)
	// Driver returns the running driver, restarting it if it died or was killed.
	Driver(ctx context.Context) (*driver.Client, error)
	// KillDriver ends a driver that hung or broke the protocol; the next Driver call restarts it.
	KillDriver()
	// CommandTimeout bounds one driver command.
	CommandTimeout() time.Duration
	// RuntimeOptions are how each scenario's recording runtime is configured (its generated
	// answers, its schema check).
	RuntimeOptions() standin.Options
	// SchemaLoaded says whether requests are checked against the runtime's published schema.
	SchemaLoaded() bool
	// StdioRuntime is argv that starts this program as a stdio runtime (for SDKs that spawn it).
	StdioRuntime() []string
	// Scenario is the running scenario, or nil when it does not reach the SDK (not selected,
	// the SDK unavailable, a required capability missing): the steps then do nothing.
	Scenario() *Scenario
}

// Scenario is one scenario as the runner opened it for the steps: its transcript and its own
// recording runtime, already listening. The steps drive the SDK against it and, when they end
// (their After hook, which runs before the runner closes the scenario), leave their findings
// here for the outcome.
type Scenario struct {
	Feature string // relative to the features folder
	Name    string
	Rec     *transcript.Recorder
	Runtime Runtime // the stand-in (*standin.Server) or a proxy in front of the real runtime
	Addr    string  // where Runtime listens
	// Budget is the scenario's overall deadline; a step that runs generated cases announces
	// them (Budget.Expect). Nil: unbounded (a replay).
	Budget *Budget

	// Err is a fault the steps found after the scenario's steps (stopping a client failed, the
	// SDK sent a malformed frame); the outcome keeps the first step's error before it.
	Err error
	// Failures are the Then steps that failed: a failed check does not end the scenario (the
	// steps record it and go on), so every later check runs and reports.
	Failures     []Failure
	Checked      []report.Check
	Observations map[string]string
}

// Failure is one failed step: its message and each payload value it checked, in order (the last
// is where it failed when the step checked a payload).
type Failure struct {
	Step    string
	Message string
	Checked []report.Check
	// Items are the divergences a listing step found (Divergences), each prefixed with the step
	// as Message is; empty for a step that failed on one thing.
	Items []string
}

// Divergences is the failure of a step that checks many things at once and lists what it found
// one by one (a sweep's calls, the surface's field values). The manifest of known divergences
// matches each item alone, so a known divergence stays known on a version where the list is
// longer or shorter, and a new item is a new failure.
type Divergences struct {
	Text  string   // the whole message, as reported
	Items []string // one divergence each, standing alone ("group: what was observed")
}

func (d *Divergences) Error() string { return d.Text }

// ErrUnsupported marks a step the SDK version cannot perform. It wraps godog.ErrSkip so godog
// skips the rest of the scenario; the runner reports it as unsupported, never as passed.
type ErrUnsupported struct {
	Reason     string
	Capability string // the capability the SDK lacks, when known
}

func (e *ErrUnsupported) Error() string { return "unsupported: " + e.Reason }
func (e *ErrUnsupported) Unwrap() error { return godog.ErrSkip }

// ErrUnavailable marks a step whose input this run does not have (the runtime's published
// schema when no preparation ships it): a setup problem, not something the SDK lacks, so the
// runner reports it unavailable with the reason, never unsupported and never passed.
type ErrUnavailable struct{ Reason string }

func (e *ErrUnavailable) Error() string { return "unavailable: " + e.Reason }
func (e *ErrUnavailable) Unwrap() error { return godog.ErrSkip }

// Lacks says whether t lacks capability c, with the sentence that reports it and the driver's
// note (the @requires gate and the steps say it the same way).
func Lacks(t Target, c string) (reason, note string, lacking bool) {
	has, note := t.Capability(c)
	if has {
		return "", "", false
	}
	reason = fmt.Sprintf("%s SDK lacks capability %s", t.SDK(), c)
	if note != "" {
		reason += ": " + note
	}
	return reason, note, true
}

// Spawns is an optional part of a Target: where the SDK's self-started runtimes of a probe
// come from (a Target without it: a new surface.Spawner each).
type Spawns interface {
	// Spawner is where a probe's spawned runtime comes from: a new surface.Spawner (the SDK
	// starts it), or, in a replay, the recorded facts of the scenario's next spawn.
	Spawner(runtimeArgv []string) (surface.ProcessSource, error)
}

// Schemas is an optional part of a Target: the runtime's published schemas loaded for
// generation (the schema sweep's cases and the runtime's generated answers); nil when they
// could not be loaded.
type Schemas interface {
	Schemas() *schemagen.Doc
}

// ClientSideFields is an optional part of a Target: the committed entries of
// fixtures/client-side-fields.yaml (surface.LoadClientSide), saying why a declared field no
// request carries is client-side by design.
type ClientSideFields interface {
	ClientSideFields() []surface.ClientSide
}

// Outcome is what one scenario did on one SDK, before known divergences are applied.
type Outcome struct {
	Feature  string   // feature file, relative to the features folder
	Scenario string   // scenario name (outline placeholders filled in)
	Line     int      // line of the scenario (or example row) in the feature file
	Tags     []string // tags of the scenario
	Err      error    // every failure (Failures joined), nil when every step passed
	// Failures are the scenario's failed steps in order, each with the payload checks it made. A
	// failed Then step does not end the scenario: every later Then step still runs and reports,
	// so an expected failure cannot hide a later one.
	Failures    []Failure
	Unsupported string         // why the SDK cannot run this scenario, when it cannot
	Capability  string         // the capability the SDK lacks, when Unsupported names one
	Unavailable string         // why the SDK cannot run at all, when it cannot
	Transcript  string         // transcript file
	Checked     []report.Check // each payload value an assertion checked
	// Observations are facts worth comparing across SDKs that are not pass/fail, e.g.
	// "tool result: success" -> "bare string".
	Observations map[string]string
	// SchemaViolations are the requests the runtime's schema rejects.
	SchemaViolations []transcript.Violation
}

// Initializer returns godog's scenario initializer for one target: the steps' phrases and their
// hooks, which the runner wraps in the scenario's lifecycle. steps.Initializer is the one the
// CLI hands to the runner.
type Initializer func(t Target) func(*godog.ScenarioContext)

// Capabilities are every capability a driver may declare in hello and a feature may require with
// a @requires.<capability> tag; drivers/PROTOCOL.md's capability table lists the same names (a
// test keeps the two in sync). A @requires tag naming anything else is a setup error.
var Capabilities = []string{
	"transport.tcp", "transport.stdio", "session.resume",
	"tool.isTerminal", "tool.isTerminal.explicitFalse",
	"tool.overridesBuiltInTool", "tool.skipPermission", "tool.defer", "tool.metadata",
	"session.setTools", "session.rpc.tools.set", "session.rpc.tools.set.nil", "session.gitHubToken", "session.clearContext", "events",
	"session.option.<name>", "connect.option.<name>",
	"tool.result.value", "tool.result.object", "tool.result.binary", "tool.result.binary.metadata", "tool.result.sessionLog", "tool.result.telemetry",
	"handler.permission", "handler.hooks", "handler.hooks.inputs", "rpc.generated", "rpc.handlers", "rpc.requestHandler", "surface", "surface.handlers", "surface.handlers.called", "surface.callbacks", "tool.handler.waitFor", "handler.hold", "handler.cancel.tool",
	"handler.cancel.permission", "handler.cancel.elicitation", "handler.cancel.command",
	"call.cancel.createSession", "call.cancel.resumeSession", "call.cancel.send", "call.cancel.sendAndWait", "call.cancel.rpc", "error.rpc.code", "convert.roundtrip",
}

// KnownCapability says whether c is one of Capabilities, where an entry ending in ".<name>" is a
// family: "session.option.<name>" stands for every session option (PROTOCOL.md "Session options").
func KnownCapability(c string) bool {
	for _, k := range Capabilities {
		if family, ok := strings.CutSuffix(k, "<name>"); ok {
			if rest, ok := strings.CutPrefix(c, family); ok && rest != "" && !strings.Contains(rest, ".") {
				return true
			}
		} else if k == c {
			return true
		}
	}
	return false
}

// Step is one phrase the steps bind, as a runner checks features against it before any SDK
// starts: every step of a feature must match exactly one Pattern, and the scenario must require
// (@requires.<capability>) every capability its steps need.
type Step struct {
	Pattern string
	// Needs returns the capabilities one use of the phrase needs, given the pattern's groups and
	// the step's data table (rows of cells; nil without one). Nil Needs: the phrase needs none.
	Needs func(args []string, table [][]string) []string
}

// Runtime is what a scenario's SDKs talk to: the stand-in (*standin.Server, the default) or a
// recording proxy in front of the real runtime (internal/realruntime).
type Runtime interface {
	Listen(addr string) (string, error)
	Close()
	// Wait blocks until no scripted turn is being played, or ctx ends.
	Wait(ctx context.Context) error
	// AddTurn scripts what the model does on the next session.send.
	AddTurn(standin.Turn)
}

// Framer is an optional part of a Runtime: one that can write the runtime's frames to the SDK
// split into pieces or coalesced (standin.Framing) for connections opened from now on.
type Framer interface {
	SetFraming(standin.Framing)
}

// Delayer is an optional part of a Runtime: one that can have each answer to
// session.tools.set reach the SDK that long after the request, while the connection keeps
// reading (the stand-in answers late; the real runtime's recording proxy holds the real answer).
type Delayer interface {
	SetToolsSetDelay(time.Duration)
}

// TokenKeeper is an optional part of a Runtime: one that must be told, before an SDK connects,
// the connection token the application will present (the real runtime refuses a token it was
// not started with; the stand-in records whatever token comes).
type TokenKeeper interface {
	ExpectToken(token string) error
}

// Player is an optional part of a Runtime: one that cannot be scripted to send the SDK a
// request but sends some of its own accord when its model does something. Plays returns the
// model step that makes it send method with these params (nil: it sends it every turn anyway),
// or, when it cannot be made to, why not ("" when it can): the scenario's unsupported reason.
type Player interface {
	Plays(method string, params json.RawMessage) (step *standin.ModelStep, cannot string)
}

// Lacker is an optional part of a Runtime: a runtime that cannot be made to do what the
// stand-in is scripted to do says so per runtime capability ("runtime.script.rejection", …),
// with the reason; a scenario that needs one is unsupported on it.
type Lacker interface {
	Lacks(capability string) (string, bool)
}
