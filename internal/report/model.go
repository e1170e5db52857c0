// Package report holds the run's records (Results, SDK, Result), the Sink every result of a run
// streams into, and the layout of the report folder (where transcripts, driver logs and godog's
// cucumber JSON go). The report formats are renderers over these records (internal/render).
package report

import "strings"

// Statuses of a result.
const (
	Passed      = "passed"
	Failed      = "failed"
	Skipped     = "skipped"
	Unsupported = "unsupported"
	Unavailable = "unavailable"
	XFail       = "xfail"
	XPass       = "xpass"
)

// SDK statuses.
const (
	Available = "available"
)

// Results is results.json.
type Results struct {
	Schema      int          `json:"schemaVersion"`
	Harness     Harness      `json:"harness"`
	SDKs        []SDK        `json:"sdks"`
	Results     []Result     `json:"results"`
	Comparisons []Comparison `json:"comparisons"`
	// Completeness is what the run planned against what it reported: an INCOMPLETE run
	// (Complete false) is never a PASS (completeness.go).
	Completeness *Completeness `json:"completeness"`
	// CrossSDK judges every field the SDKs send under different keys (the surface scenarios'
	// normative differences): a difference not known is a failure of the run.
	CrossSDK []CrossSDK `json:"crossSDK,omitempty"`
	// KnownDifferences are the known cross-SDK differences the run was judged by
	// (fixtures/expected-differences.yaml), kept so that a merge or replay judges alike.
	KnownDifferences []KnownDifference `json:"knownDifferences,omitempty"`
	// Reference is the pinned SDKs' recorded surface observations the run was compared with
	// (fixtures/reference/surface.json), kept so that a merge or replay compares alike.
	Reference *Reference `json:"reference,omitempty"`
	// StaleViolations are known schema violations (file:line and what they name) that a run of
	// the whole suite on their SDK version did not observe: fixed, so the entry must go.
	StaleViolations []string       `json:"staleViolations,omitempty"`
	Totals          map[string]int `json:"totals"`
	// Timing is per available SDK (observations, not results).
	Timing []Timing `json:"timing,omitempty"`
	// Coverage of the runtime schema's methods (computed after the run from the transcripts).
	Coverage *Coverage `json:"coverage,omitempty"`
}

// Harness describes the run.
type Harness struct {
	Version   string `json:"version"`
	StartedAt string `json:"startedAt"`
	Command   string `json:"command"`
	Tags      string `json:"tags,omitempty"`
	// Schema is where the runtime schema used for request validation came from, or why none was.
	Schema string `json:"schema"`
	// SchemaLoaded says requests were checked against the schema (Schema then names it).
	SchemaLoaded bool `json:"schemaLoaded,omitempty"`
	// Runner is how the drivers ran: "local" processes or "docker" containers.
	Runner string `json:"runner,omitempty"`
	// Shard is set on one part of a sharded run (`run --shard I/N`); merge checks the parts.
	Shard *Shard `json:"shard,omitempty"`
	// Runtime is the runtime the SDKs talked to when not the stand-in: "real: <origin>".
	Runtime string `json:"runtime,omitempty"`
}

// Shard says which part of the plan a sharded run ran.
type Shard struct {
	Index int `json:"index"` // 1-based
	Count int `json:"count"`
	// Plan is a hash of the full sorted key list (feature, scenario, SDK@version) of the
	// unsharded run, and Keys its length: shards of one plan have the same Plan.
	Plan string `json:"plan"`
	Keys int    `json:"keys"`
	// Selected is how many of the keys this shard ran.
	Selected int `json:"selected"`
}

// BuiltByNote is the hello note in which a driver tallies the SDK types it builds by field name
// and each it builds through the SDK's deserializer, with why (drivers/PROTOCOL.md "Building SDK
// values").
const BuiltByNote = "driver.builtBy"

// SDK is one SDK as it ran (or did not).
type SDK struct {
	Name         string            `json:"name"`
	Version      string            `json:"version,omitempty"`
	Source       string            `json:"source,omitempty"` // where the SDK came from: registry package or local folder
	Status       string            `json:"status"`           // available | unavailable
	Reason       string            `json:"reason,omitempty"`
	Toolchain    []string          `json:"toolchain,omitempty"`
	Capabilities map[string]bool   `json:"capabilities,omitempty"`
	Notes        map[string]string `json:"notes,omitempty"`
	// Runtime says, when the SDK cannot talk to the current runtime, why (the SDK's words and
	// the frame) and, on the stand-in, which older runtime's shapes its scenarios ran against
	// instead; on the real runtime it opens with CannotConnectReal.
	Runtime string `json:"runtime,omitempty"`
	// PairedRuntime is the runtime version the SDK version declares it was released with, and
	// the SDK file that says so ("1.0.104 (copilot/_cli_version.py CLI_VERSION)").
	PairedRuntime string `json:"pairedRuntime,omitempty"`
	// Schema names the runtime schema that judged this SDK's frames when it is not the run's
	// (Harness.Schema): the one the SDK version ships itself. SchemaNote says why the run's
	// judged it although it declares another runtime (no schema of that one is found).
	Schema     string `json:"schema,omitempty"`
	SchemaNote string `json:"schemaNote,omitempty"`
	// Matched is, for a local source, the version the expected-failure manifest's ranges are
	// checked against and what it was read from ("1.0.10-0.6 (go/v1.0.9 + 6 commits)",
	// "1.0.14 (nodejs/package.json)"); Version shows it too (sdks.SourceVersion).
	Matched string `json:"matched,omitempty"`
}

// CannotConnectReal opens SDK.Runtime on a run on the real runtime when the SDK's client could
// not connect to it (followed by ": " and the SDK's words and the frame it refused).
const CannotConnectReal = "cannot connect to the real runtime"

// Result is one scenario on one SDK.
type Result struct {
	Feature  string `json:"feature"`
	Scenario string `json:"scenario"`
	// ID is the case's stable id: the same across a rename of the scenario (a hash of what it
	// does, or its @id.<name> tag), so diff pairs a renamed case with its old name. A source of
	// generated cases sets its own.
	ID  string `json:"id,omitempty"`
	SDK string `json:"sdk"`
	// Version is the SDK version the scenario ran on (as its sdks[] entry names it): a run of
	// several versions of one SDK has one result per SDK@version.
	Version string `json:"version,omitempty"`
	Status  string `json:"status"`
	Message string `json:"message,omitempty"`
	// Capability is the capability the SDK lacks, for an unsupported result that names one (the
	// scenario's missing @requires capability, or the one behind the driver's unsupported answer).
	Capability string `json:"capability,omitempty"`
	Transcript string `json:"transcript,omitempty"` // relative to the report folder
	Rerun      string `json:"rerun,omitempty"`      // one command that reruns exactly this case
	Expected   string `json:"expected,omitempty"`   // the manifest entry (file:line) that marks it
	Link       string `json:"link,omitempty"`
	// Checked lists each payload value an assertion checked ("method:path" in JSON); the
	// comparison uses it to tell normative differences from informational ones.
	Checked []Check `json:"checked,omitempty"`
	// Observations are facts compared across SDKs that are not pass/fail, such as the shape of a
	// tool result ("tool result: success" -> "bare string").
	Observations map[string]string `json:"observations,omitempty"`
	// SchemaViolations are "method: JSON pointer: message" for requests that the runtime's
	// published schema rejects.
	SchemaViolations []string `json:"schemaViolations,omitempty"`
	// KnownViolations are the entries of fixtures/expected-violations.yaml (file:line) that
	// explain some of SchemaViolations; a violation none explains failed the scenario.
	KnownViolations []string `json:"knownViolations,omitempty"`
}

// Comparison is the cross-SDK diff of one scenario's payloads.
type Comparison struct {
	Feature     string       `json:"feature"`
	Scenario    string       `json:"scenario"`
	SDKs        []string     `json:"sdks"`
	Differences []Difference `json:"differences"`
	// Fields: compared by where each field went (a surface scenario's observations), not by
	// request payloads; each difference is one field (report.CrossSDK judges them).
	Fields bool `json:"fields,omitempty"`
	// Reference are the SDKs that did not run, compared by their pinned versions' recorded
	// observations (fixtures/reference/surface.json): "node@1.0.14".
	Reference []string `json:"reference,omitempty"`
}

// Difference is one JSON path where the SDKs differ.
type Difference struct {
	Request string            `json:"request"` // method#occurrence, e.g. "session.create#1"
	Path    string            `json:"path"`
	Class   string            `json:"class"` // normative (an assertion checks it) | informational
	Values  map[string]string `json:"values"`
}

// Difference classes.
const (
	Normative     = "normative"
	Informational = "informational"
)

// NotCompared is the observation a scenario records when its requests cannot be paired across
// SDKs by their order (many clients at once, whose requests interleave differently in every run):
// its value says why; compare leaves the scenario out of the payload comparison.
const NotCompared = "comparison"

// Failing reports whether a status fails the run.
func Failing(status string) bool { return status == Failed || status == XPass }

// Timing is how one SDK's scenarios spent their time: observations about the SDK and the
// harness, never failures (the numbers depend on the machine). All times are milliseconds.
type Timing struct {
	SDK     string  `json:"sdk"`
	Jobs    int     `json:"jobs"`    // scenarios allowed at once
	Drivers int     `json:"drivers"` // driver processes the run started
	StartMS float64 `json:"startMs"` // preparing (a cache hit when warm) and the first driver's hello
	// PrepareMS is the part of StartMS the runner took to prepare the SDK (install and build
	// its driver, or find both in the cache): what a first run on a fresh machine pays.
	PrepareMS float64 `json:"prepareMs,omitempty"`
	WallMS    float64 `json:"wallMs"`    // from the first scenario's start to the last one's end
	Scenarios int     `json:"scenarios"` // scenarios that sent at least one driver command
	// SDKCallsMS is the sum of the driver commands' round trips: the time spent inside the SDK.
	SDKCallsMS float64 `json:"sdkCallsMs"`
	// DriverWaitMS is the sum of the time scenarios waited for a driver (a busy one, or one
	// starting).
	DriverWaitMS float64 `json:"driverWaitMs"`
	// Where the SDK calls went, summed over the scenarios: ConnectMS the connect commands
	// (creating the SDK client and connecting it), StopMS the stopClient commands, BodyMS every
	// other command (the scenario itself).
	ConnectMS float64 `json:"connectMs"`
	BodyMS    float64 `json:"bodyMs"`
	StopMS    float64 `json:"stopMs"`
	// DriverStart is each driver process's start to its hello answered (interpreter or VM start,
	// imports, the SDK's load).
	DriverStart Stats `json:"driverStartMs"`
	// DriverLifeMS and DriverCPUMS sum, over the driver processes whose CPU time is known
	// (CPUDrivers of them; a local process, after it exited), their wall time from start to exit
	// and their user+system CPU time (with the children they waited for).
	CPUDrivers   int     `json:"cpuDrivers,omitempty"`
	DriverLifeMS float64 `json:"driverLifeMs,omitempty"`
	DriverCPUMS  float64 `json:"driverCpuMs,omitempty"`
	// Overhead is each scenario's wall time minus its driver round trips and its wait for a
	// driver: the harness's own time (runtime start, transcript, assertions).
	Overhead Stats `json:"overheadMs"`
	Commands int   `json:"commands"`
	// ToFirstFrame: from a driver command to the SDK's first frame on the wire.
	ToFirstFrame Stats `json:"toFirstFrameMs"`
	// AnswerToResult: from the runtime's last answer to the driver's result.
	AnswerToResult Stats `json:"answerToResultMs"`
	// Observations count the outliers by kind (split-frame, slow-close); Worst is each kind's
	// largest gap and Example one readable instance with its transcript.
	Observations map[string]int     `json:"observations,omitempty"`
	Worst        map[string]float64 `json:"worstMs,omitempty"`
	Example      map[string]string  `json:"example,omitempty"`
}

// Stats summarise one latency.
type Stats struct {
	N   int     `json:"n"`
	P50 float64 `json:"p50"`
	P95 float64 `json:"p95"`
	Max float64 `json:"max"`
}

// Coverage is which methods of the runtime's published schema the SDKs exercised in the run:
// requests and notifications an SDK sent, and runtime->SDK requests it answered (from the
// transcripts). Gaps in the suite show as methods no SDK exercised.
type Coverage struct {
	Schema  string `json:"schema,omitempty"` // where the method list came from ("" when no schema was loaded)
	Methods int    `json:"methods"`          // methods the schema lists
	// SDKs counts, per SDK (SDK@version in a run of several versions), the schema methods it
	// sent and answered.
	SDKs []SDKCoverage `json:"sdks"`
	// Exercised lists every method some SDK sent or answered, in the schema or not.
	Exercised []MethodUse `json:"exercised"`
	// Unexercised lists the schema's methods that no SDK sent or answered in this run.
	Unexercised []string `json:"unexercised,omitempty"`
	// Catalog is every method of api.schema.json and every event type of
	// session-events.schema.json (kept so that a merge or replay accounts for them again).
	Catalog []SchemaItem `json:"catalog,omitempty"`
	// Sweep accounts, per SDK (SDK@version), for every item of Catalog: covered, or why not.
	Sweep []SweepCoverage `json:"sweep,omitempty"`
}

// SchemaItem is one method or event type of the runtime's schemas.
type SchemaItem struct {
	Name string `json:"name"`
	// Kind is "method" (called by the SDK), "handler" (a runtime-to-SDK method) or "event".
	Kind     string `json:"kind"`
	Internal bool   `json:"internal,omitempty"` // visibility: internal
	// Capability is the driver capability a scenario needs to serve it where that is not the
	// kind's own (rpc.requestHandler for the exchange's methods, schemagen.Doc.Exchange).
	Capability string `json:"capability,omitempty"`
}

// SweepCoverage is one SDK's account of the schema: how many methods it sent or answered and
// how many event types its application received, and for every other item the reason.
type SweepCoverage struct {
	SDK        string `json:"sdk"`
	Methods    int    `json:"methods"`    // methods in the catalog (both directions)
	Covered    int    `json:"covered"`    // of which the SDK sent (method) or answered (handler)
	EventTypes int    `json:"eventTypes"` // event types in the catalog
	Events     int    `json:"events"`     // of which the application received
	// Handlers are the runtime-to-SDK methods of the catalog (counted in Methods too);
	// HandlersCovered of which an application handler received a call (counted in Covered);
	// HandlersCalled of the others, those the runtime called anyway and the SDK answered without
	// an application handler (an error, as a rule): exercised on the wire, not covered.
	Handlers        int         `json:"handlers,omitempty"`
	HandlersCovered int         `json:"handlersCovered,omitempty"`
	HandlersCalled  int         `json:"handlersCalled,omitempty"`
	Uncovered       []Uncovered `json:"uncovered,omitempty"`
}

// Uncovered is one item an SDK did not cover, and why.
type Uncovered struct {
	Name   string `json:"name"`
	Kind   string `json:"kind"`
	Reason string `json:"reason"`
}

// SDKCoverage is one SDK's share of Coverage.
type SDKCoverage struct {
	SDK      string `json:"sdk"`
	Sent     int    `json:"sent"`     // schema methods it sent
	Answered int    `json:"answered"` // schema methods (runtime->SDK requests) it answered
}

// MethodUse is one exercised method.
type MethodUse struct {
	Method    string   `json:"method"`
	Direction string   `json:"direction"` // "sent" (SDK->runtime) or "answered" (runtime->SDK request)
	InSchema  bool     `json:"inSchema"`
	SDKs      []string `json:"sdks"`
	Features  []string `json:"features"`
}

// Check is one payload value an assertion checked: the request's method and the JSON path in its
// params. In results.json it is the string "method:path" (a method has no colon).
type Check struct{ Method, Path string }

// WholeParams as a Check's Path: the assertion compared the request's params as a whole, so a
// difference at any path of that method is normative.
const WholeParams = "*"

// RequestOrder as a Check's Path: the assertion checked the order the method's requests were
// sent in, so the cross-SDK comparison pairs them by position (elsewhere requests are paired
// by value: an order no feature checks is no difference).
const RequestOrder = "(order)"

func (c Check) String() string { return c.Method + ":" + c.Path }

func (c Check) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

func (c *Check) UnmarshalText(b []byte) error {
	c.Method, c.Path, _ = strings.Cut(string(b), ":")
	return nil
}

// CrossSDK is one field several SDKs declare and send under different keys (or one sends it and
// another does not), judged against the known differences (fixtures/expected-differences.yaml).
type CrossSDK struct {
	Feature  string            `json:"feature"`
	Scenario string            `json:"scenario"`
	Request  string            `json:"request"`
	Field    string            `json:"field"`           // the field's Key (surface.Normalize)
	Keys     map[string]string `json:"keys"`            // SDK -> where the value went
	Status   string            `json:"status"`          // Failed (not known), XFail (known), XPass (known but not observed)
	Known    string            `json:"known,omitempty"` // file:line of the known difference
	Reason   string            `json:"reason,omitempty"`
}

// KnownDifference is a cross-SDK difference known and explained, with the key each SDK uses.
type KnownDifference struct {
	Request string            `yaml:"request" json:"request"`
	Field   string            `yaml:"field" json:"field"`
	Keys    map[string]string `yaml:"keys" json:"keys"`
	Reason  string            `yaml:"reason" json:"reason"`
	Link    string            `yaml:"link" json:"link"`
	Where   string            `yaml:"-" json:"where"`
}

// CrossSDKFailing counts the cross-SDK judgements that fail the run.
func (r *Results) CrossSDKFailing() int {
	n := 0
	for _, c := range r.CrossSDK {
		if Failing(c.Status) {
			n++
		}
	}
	return n
}

// Gist is a failure message in one line: its first line, and where that line only heads a list
// ("2 steps failed:", "the sweep found 3 problems:"), the list's first item too, which names
// what failed; a reviewer reading one line must learn what broke.
func Gist(msg string) string {
	lines := strings.Split(strings.TrimSpace(msg), "\n")
	first := strings.TrimSpace(lines[0])
	if !strings.HasSuffix(first, ":") {
		return first
	}
	for _, l := range lines[1:] {
		l = strings.TrimSpace(l)
		l = strings.TrimLeft(l, "-*• ")
		if i := strings.Index(l, ". "); i > 0 && i <= 3 && strings.Trim(l[:i], "0123456789") == "" {
			l = l[i+2:] // "1. step …"
		}
		if l != "" {
			return first + " " + l
		}
	}
	return first
}
