package generated

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/driver"
	"github.com/copilot-sdk-conformance/conformance/internal/schemagen"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/copilot-sdk-conformance/conformance/steps/encodings"
	"github.com/copilot-sdk-conformance/conformance/steps/jsondiff"
	"github.com/copilot-sdk-conformance/conformance/steps/rpccall"
	"github.com/copilot-sdk-conformance/conformance/steps/scenario"
	"github.com/copilot-sdk-conformance/conformance/steps/sweepcheck"
)

// The schema sweep: every public method of a group of api.schema.json, called through the SDK's
// generated layer with the values package schemagen generates, in batches (one driver round
// trip per batch, not per call), then checked call by call.

// engine is the sweep's own state over the scenario's core.
type engine struct {
	*scenario.Scenario
	sweep       []*sweepCall    // the generated calls, in the order made
	resultsOnly bool            // the sweep judges results only (answerEveryMethod): no request check follows
	encoded     encodings.Tally // what the sweep sent in another legal encoding
}

// Register binds the sweep's phrases on sc for the scenario s.
func Register(sc scenario.Binder, s *scenario.Scenario) {
	w := &engine{Scenario: s}
	scenario.Needing(sc, scenario.Needs("rpc.generated")).Step(`^the application calls every public "([^"]*)" method of the runtime's schema through the SDK's generated layer$`, w.callEveryMethod)
	scenario.Needing(sc, scenario.Needs("rpc.generated")).Step(`^the application calls every public "([^"]*)" method of the runtime's schema through the SDK's generated layer, answered (with only the required fields|with every nullable field null|with fields the schema does not know|with every discriminator value|with every integer written as a float|with every number in exponent form|with every string escaped and its keys reversed)$`, w.answerEveryMethod)
	sc.Step(`^every generated call reached the runtime with exactly the params the application gave$`, w.generatedRequestsExact)
	sc.Step(`^the application received every generated result as the runtime sent it$`, w.generatedResultsReceived)
}

// batchSize bounds one rpcBatch command, so that a slow SDK stays inside the command timeout.
const batchSize = 250

// sweepCall is one generated call and what came of it.
type sweepCall struct {
	method  schemagen.Method
	name    string         // the case's name
	params  map[string]any // as given to the driver (without sessionId)
	outcome sweepOutcome
}

// sweepOutcome is one entry of rpcBatch's outcomes (PROTOCOL.md "Generated RPC layer").
type sweepOutcome struct {
	Outcome         string          `json:"outcome"`
	Result          json.RawMessage `json:"result"`
	Unrepresentable []string        `json:"unrepresentable"`
	Error           *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
	Reason string `json:"reason"`
}

func (o sweepOutcome) errorText() string {
	if o.Error == nil {
		return o.Outcome
	}
	return fmt.Sprintf("%s: %s", o.Error.Type, o.Error.Message)
}

// Namespace and ID file a finding about the call (sweepcheck.Case).
func (c *sweepCall) Namespace() string { return c.method.Namespace }
func (c *sweepCall) ID() string        { return c.method.Name + " [" + c.name + "]" }

// callEveryMethod calls every public SDK-to-runtime method of a schema group (server, session)
// through the generated layer, each generated case once.
func (w *engine) callEveryMethod(group string) error {
	doc, _, target, err := rpccall.Setup(w.Scenario, group)
	if err != nil {
		return err
	}
	w.sweep = nil
	var swept []schemagen.Method
	for _, m := range doc.Methods {
		if m.Group != group || m.Internal || !m.FromSDK {
			continue
		}
		swept = append(swept, m)
		cases, dropped := doc.CasesOnce(m)
		for _, d := range dropped {
			w.Rec.Notef("", "generator: %s case %s left out", m.Name, d)
		}
		seen := map[string]bool{}
		for _, c := range cases {
			params := rpccall.Params(doc, m, c)
			key := jsondiff.ShowAll(params)
			if seen[key] {
				continue // an edge of sessionId, which the SDK sets itself
			}
			seen[key] = true
			w.sweep = append(w.sweep, &sweepCall{method: m, name: c.Name, params: params})
		}
	}
	w.ObserveEdges(doc, swept)
	return w.runSweep(target)
}

// resultShapes are the result variants of the sweep's second outline, by its wording.
var resultShapes = map[string]schemagen.Shape{
	"with only the required fields":        schemagen.RequiredOnly,
	"with every nullable field null":       schemagen.Nulls,
	"with fields the schema does not know": schemagen.Unknown,
	"with every discriminator value":       schemagen.Unions,
}

// answerEveryMethod calls every public method of a group once per generated shape of its result
// (only the required fields, null wherever nullable, unknown fields, each alternative of each
// discriminated union), the runtime answering each call with its shape: the params are the
// method's first generated case, as they are not what these variants judge.
func (w *engine) answerEveryMethod(group, variant string) error {
	shape, ok := resultShapes[variant]
	form, encoded := encodings.Forms[variant]
	if encoded {
		shape, ok = schemagen.EveryField, true // the every-field result, written in the form
	}
	if !ok {
		return fmt.Errorf("no result variant %q", variant)
	}
	doc, rt, target, err := rpccall.Setup(w.Scenario, group)
	if err != nil {
		return err
	}
	w.sweep, w.resultsOnly = nil, true
	for _, m := range doc.Methods {
		if m.Group != group || m.Internal || !m.FromSDK {
			continue
		}
		shapes, dropped := doc.ResultShapes(m, shape)
		for _, d := range dropped {
			w.Rec.Notef("", "generator: %s result %s left out", m.Name, d)
		}
		cases, _ := doc.CasesOnce(m)
		if len(shapes) == 0 || len(cases) == 0 {
			continue
		}
		params := rpccall.Params(doc, m, cases[0])
		var queued []json.RawMessage
		for _, sh := range shapes {
			b, err := json.Marshal(sh.Value)
			if err != nil {
				return err
			}
			name := "result " + sh.Name
			if encoded {
				var changed bool
				if b, changed, err = w.encoded.Encode(form, sh.Value); err != nil {
					return err
				} else if !changed {
					continue
				}
				name += " " + string(form)
			}
			queued = append(queued, b)
			w.sweep = append(w.sweep, &sweepCall{method: m, name: name, params: params})
		}
		rt.QueueAnswers(m.Name, queued)
	}
	if encoded {
		w.encoded.Observe(w, "results")
	}
	return w.runSweep(target)
}

// runSweep makes the calls of w.sweep in batches through target.
func (w *engine) runSweep(target map[string]any) error {
	defer w.noteSweepCases()
	w.Expect(len(w.sweep))
	for start := 0; start < len(w.sweep); start += batchSize {
		if err := w.Gone(); err != nil {
			return scenario.CutShort(err, start, len(w.sweep), "")
		}
		chunk := w.sweep[start:min(start+batchSize, len(w.sweep))]
		calls := make([]map[string]any, len(chunk))
		for i, c := range chunk {
			call := map[string]any{"method": c.method.Name, "params": c.params}
			if c.params == nil {
				call["params"] = nil
			}
			for k, v := range target {
				call[k] = v
			}
			calls[i] = call
		}
		raw, err := w.Do("rpcBatch", map[string]any{"calls": calls})
		if err != nil {
			if driver.EndsScenario(err) {
				return scenario.CutShort(err, start, len(w.sweep), chunk[0].method.Name+" and the rest of its batch")
			}
			return err
		}
		var res struct {
			Outcomes []json.RawMessage `json:"outcomes"`
		}
		if err := json.Unmarshal(raw, &res); err != nil || len(res.Outcomes) != len(chunk) {
			return fmt.Errorf("rpcBatch answered %d outcomes for %d calls (%v)", len(res.Outcomes), len(chunk), err)
		}
		for i, o := range res.Outcomes {
			if err := json.Unmarshal(o, &chunk[i].outcome); err != nil {
				return fmt.Errorf("rpcBatch outcome %d: %w", i, err)
			}
		}
	}
	w.observeSweep()
	return nil
}

// noteSweepCases notes each call's request as its case (scenario/cases.go): the method and the
// generated case (its edges, its result's shape and encoding).
func (w *engine) noteSweepCases() {
	pairs, err := w.sweepRequests()
	if err != nil {
		return
	}
	var reqs []transcript.Request
	var keys []string
	for _, c := range w.sweep {
		if r, ok := pairs[c]; ok {
			reqs, keys = append(reqs, r), append(keys, c.method.Name+" "+c.name)
		}
	}
	w.NoteRequestCases(reqs, keys)
}

// observeSweep records, per schema namespace, how the calls ended: the reports group the sweep
// by namespace and compare it across SDKs.
func (w *engine) observeSweep() {
	type tally struct{ ok, errs, unsupported int }
	by := map[string]*tally{}
	for _, c := range w.sweep {
		t := by[c.method.Namespace]
		if t == nil {
			t = &tally{}
			by[c.method.Namespace] = t
		}
		switch c.outcome.Outcome {
		case "ok":
			t.ok++
		case "unsupported":
			t.unsupported++
		default:
			t.errs++
		}
	}
	// One observation for the whole group, and one per namespace where a call raised (a row per
	// namespace of hundreds would drown the behaviour comparison).
	all := &tally{}
	for ns, t := range by {
		all.ok, all.errs, all.unsupported = all.ok+t.ok, all.errs+t.errs, all.unsupported+t.unsupported
		if t.errs > 0 { // not generated: the coverage names each such method with the driver's reason
			w.Observe("generated "+ns, fmt.Sprintf("%d ok, %d raised, %d not generated", t.ok, t.errs, t.unsupported))
		}
	}
	if len(w.sweep) > 0 {
		w.Observe("generated "+w.sweep[0].method.Group+" calls", fmt.Sprintf("%d ok, %d raised, %d not generated", all.ok, all.errs, all.unsupported))
	}
}

// sweepRequests pairs each call with the request it put on the wire. Calls are made one after
// another, each awaited, so their requests come in the calls' order; a call that raised may have
// sent nothing, so it takes the next request of its method only if that carries its params.
func (w *engine) sweepRequests() (map[*sweepCall]transcript.Request, error) {
	if len(w.sweep) == 0 {
		return nil, fmt.Errorf("no generated calls were made in this scenario")
	}
	reqs := transcript.Requests(w.Entries(), "")
	out := map[*sweepCall]transcript.Request{}
	next := 0
	for _, c := range w.sweep {
		if c.outcome.Outcome == "unsupported" {
			continue
		}
		for i := next; i < len(reqs); i++ {
			if reqs[i].Method != c.method.Name {
				continue
			}
			if c.outcome.Outcome != "ok" {
				got, _ := decodeParams(reqs[i].Params, c.method.Group)
				if len(jsondiff.Diff(c.params, got, "")) > 0 {
					break
				}
			}
			out[c] = reqs[i]
			next = i + 1
			break
		}
	}
	return out, nil
}

func decodeParams(raw json.RawMessage, group string) (map[string]any, any) {
	var p map[string]any
	if len(raw) > 0 {
		_ = json.Unmarshal(raw, &p)
	}
	sid := p["sessionId"]
	return rpccall.WithoutSessionID(p, group), sid
}

// generatedRequestsExact checks each call's request: it validates against the method's params
// schema, carries exactly the keys and values given (a null the driver reported unrepresentable
// is recorded as that SDK's limitation), and names the session's id.
func (w *engine) generatedRequestsExact() error {
	doc, err := w.Schemas()
	if err != nil {
		return err
	}
	pairs, err := w.sweepRequests()
	if err != nil {
		return err
	}
	sessionID := ""
	if s, err := w.Current(); err == nil {
		sessionID = s.ID
	}
	fails := sweepcheck.Failures{}
	var limits []string
	for _, c := range w.sweep {
		if c.outcome.Outcome == "unsupported" {
			continue
		}
		r, sent := pairs[c]
		if !sent {
			if c.outcome.Outcome == "ok" {
				fails.Add(c, "the SDK returned a result but sent no %s request", c.method.Name)
			} else {
				fails.Add(c, "the SDK raised %s before sending anything", c.outcome.errorText())
			}
			continue
		}
		w.Check(c.method.Name, "")
		var whole map[string]any
		_ = json.Unmarshal(r.Params, &whole)
		if c.params != nil || len(whole) > 0 {
			if err := doc.ValidateParams(c.method, whole); err != nil && c.params != nil {
				fails.Add(c, "request #%d violates the params schema: %v", r.Seq, err)
			}
		}
		got, sid := decodeParams(r.Params, c.method.Group)
		if c.method.Group == "session" && sid != sessionID {
			fails.Add(c, "request #%d has sessionId %v, the session's is %q", r.Seq, sid, sessionID)
		}
		want := c.params
		if want == nil {
			want = map[string]any{}
		}
		if got == nil {
			got = map[string]any{}
		}
		unrep := map[string]bool{}
		for _, p := range c.outcome.Unrepresentable {
			unrep[p] = true
		}
		for _, d := range jsondiff.Diff(want, got, "") {
			if unrep[d.Path] {
				limits = append(limits, c.method.Name+" "+d.Path)
				w.Rec.Notef("", "unrepresentable in %s: %s", c.ID(), d)
				continue
			}
			fails.Add(c, "request #%d %s", r.Seq, d)
		}
	}
	if len(limits) > 0 {
		// One observation for all of them: the driver's documented limitation, per SDK.
		w.Observe("generated values the SDK's request type cannot carry", fmt.Sprintf("%d: %s", len(limits), strings.Join(jsondiff.CompactList(limits), ", ")))
	}
	return fails.Err("calls", "did not put the application's params on the wire as given")
}

// generatedResultsReceived checks that each call that returned gave the application the result
// the runtime answered its request with (as it went on the wire), up to the representation
// rules of PROTOCOL.md (a date-time by its instant, a number by its value, a null the runtime
// sent may be absent from a typed result, a field the schema does not know may be dropped), and
// that a call raised only where the SDK has a reason the report names. Absent stays absent: a
// key the runtime left out that the application's result has (a default, a null) is a failure.
func (w *engine) generatedResultsReceived() error {
	pairs, err := w.sweepRequests()
	if err != nil {
		return err
	}
	answers := w.T.RuntimeOptions().Answers
	if answers == nil {
		return &scenario.ErrUnavailable{Reason: "the runtime has no generated answers in this run"}
	}
	onWire := transcript.AnswersOf(w.Entries())
	fails := sweepcheck.Failures{}
	var voids []string
	unknown := sweepcheck.Unknown{}
	judged := 0
	for _, c := range w.sweep {
		if c.outcome.Outcome == "unsupported" {
			continue
		}
		judged++
		if c.outcome.Outcome == "error" {
			fails.Add(c, "the SDK raised %s", c.outcome.errorText())
			continue
		}
		r, sent := pairs[c]
		if !sent {
			if w.resultsOnly { // no request check in these scenarios: say it here
				fails.Add(c, "the SDK returned a result but sent no %s request", c.method.Name)
			}
			continue // else reported by the request check
		}
		sentRaw, answered := onWire.Of(r)
		if !answered {
			fails.Add(c, "the SDK returned a result, but the runtime answered request #%d with no result", r.Seq)
			continue
		}
		var sentResult, got any
		_ = json.Unmarshal(sentRaw, &sentResult)
		if len(c.outcome.Result) > 0 {
			if err := json.Unmarshal(c.outcome.Result, &got); err != nil {
				fails.Add(c, "the driver's result is not JSON: %v", err)
				continue
			}
		}
		if m, ok := got.(map[string]any); ok && sentResult == nil && len(m) == 0 {
			// A null (void) result held in a typed result with no fields (Go's *XResult{}),
			// re-serialised as {}: the representation of "no value", nothing lost.
			voids = append(voids, c.method.Name)
			continue
		}
		unknown.Seen(sentResult, got)
		for _, d := range jsondiff.Diff(sentResult, got, "") {
			if d.Kind == "missing" && d.Want == nil {
				continue // a null the runtime sent, absent from the typed result
			}
			if unknown.Dropped(d) {
				continue
			}
			fails.Add(c, "result %s", d.Say("sent by the runtime", "the application received it"))
		}
	}
	if len(voids) > 0 {
		w.Observe("generated null results received as an empty typed result {}", fmt.Sprintf("%d: %s", len(jsondiff.CompactList(voids)), strings.Join(jsondiff.CompactList(voids), ", ")))
	}
	unknown.Observe(w, "results")
	if judged == 0 {
		// Nothing reached the application: no SDK behaviour was judged, so nothing passed. No
		// capability stands for it (the driver has rpc.generated; this version's layer lacks
		// every method of the shape), so it is reported unavailable, with the reason.
		return &scenario.ErrUnavailable{Reason: fmt.Sprintf("nothing to judge: none of the %d methods called is in %s's generated layer (every call answered unsupported; the coverage names each)", len(jsondiff.CompactList(methodNames(w.sweep))), w.T.SDK())}
	}
	return fails.Err("calls", "did not give the application the result the runtime sent")
}

func methodNames(calls []*sweepCall) []string {
	out := make([]string, len(calls))
	for i, c := range calls {
		out[i] = c.method.Name
	}
	return out
}
