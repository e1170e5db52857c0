package fields

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/suite"
	"github.com/copilot-sdk-conformance/conformance/internal/surface"
	"github.com/copilot-sdk-conformance/conformance/steps/declared"
	"github.com/copilot-sdk-conformance/conformance/steps/scenario"
)

// The application's surface (drivers/PROTOCOL.md "Surface"): every field the SDK declares is set
// alone with generated values and found on the wire (package surface). The field list is the
// SDK's own, read by its driver; nothing here names a field.

// engine is the sweep's own state over the scenario's core.
type engine struct {
	*scenario.Scenario
	surface *surface.Result // what the surface probe found (surface.go)
}

// Register binds the sweep's phrases on sc for the scenario s.
func Register(sc scenario.Binder, s *scenario.Scenario) {
	w := &engine{Scenario: s}
	scenario.Needing(sc, scenario.Needs("surface", "session.resume")).Step(`^every session config field the SDK declares is set alone, on create and on resume, with values generated from its type$`, w.probeSurface)
	sc.Step(`^each value reaches its request under one key, unchanged, and nothing else in the request changes$`, w.surfaceClean)
}

// spawns says whether the surface probe can have the SDK start its runtime: the driver connects
// over stdio. The process it starts is the recording runtime on the real runtime's runs too:
// what the probe measures is what the SDK passes the process it spawns (its arguments,
// environment, working directory and first requests, recorded beside it), which no runtime
// takes part in; without it every client option that only reaches that process failed there as
// carried by no request (measured on 1.0.85: 7 to 12 per SDK, Node, Go, Python and Rust).
func (w *engine) spawns() bool {
	has, _ := w.T.Capability("transport.stdio")
	return has
}

func (w *engine) probeSurface() error {
	raw, err := w.Do("surface", map[string]any{})
	if err != nil {
		return err
	}
	var inv struct {
		Entries []surface.Entry `json:"entries"`
	}
	if err := json.Unmarshal(raw, &inv); err != nil {
		return fmt.Errorf("the %s driver's surface answer: %w", w.T.SDK(), err)
	}
	if len(inv.Entries) == 0 {
		return fmt.Errorf("the %s driver reported an empty surface", w.T.SDK())
	}
	env := declared.NewEnv(w.Scenario)
	w.Expect(surface.Values(env, inv.Entries))
	defer env.CaseEnds()
	res, err := surface.Probe(env, inv.Entries)
	if err != nil {
		return err
	}
	client, err := surface.ProbeClient(env, inv.Entries)
	if err != nil {
		return err
	}
	if w.spawns() {
		if err := surface.ProbeSpawned(env, inv.Entries, &client); err != nil {
			return err
		}
	}
	res.Findings = append(res.Findings, client.Findings...)
	res.Unchecked = append(res.Unchecked, client.Unchecked...)
	var listed []surface.ClientSide
	if c, ok := w.T.(suite.ClientSideFields); ok {
		listed = c.ClientSideFields()
	}
	res.JudgeNeverSent(w.T.SDK(), listed)
	w.surface = &res
	if w.Observations == nil {
		w.Observations = map[string]string{}
	}
	for k, v := range res.WireKeys() {
		w.Observations[surface.ObservationPrefix+k] = v
	}
	for _, a := range surface.Actions {
		w.Checked = append(w.Checked, report.Check{Method: a.Request})
	}
	w.Checked = append(w.Checked, report.Check{Method: "connect"})
	var lines []string
	fields, checked := 0, 0
	for _, t := range res.Tally(inv.Entries) {
		fields, checked = fields+t.Fields, checked+t.Checked
		lines = append(lines, fmt.Sprintf("%s: %d of %d fields checked", t.Owner, t.Checked, t.Fields))
		for _, u := range t.Unchecked {
			lines = append(lines, fmt.Sprintf("  %s (%s): %s", u.Entry.Name, u.Entry.Shape, u.Reason))
		}
	}
	// Beside the surface matrix, so a reader sees per SDK how much of its inventory is checked
	// (the transcript's note says why each other field is not).
	w.Observations[surfaceTallyObservation] = fmt.Sprintf("%d of %d", checked, fields)
	w.Rec.Notef("", "surface: %d field values probed; inventoried fields with a generated check, per owner:\n%s", len(res.Findings), strings.Join(lines, "\n"))
	n := res.Nested()
	w.Rec.Notef("", "surface: inside definitions, %d values judged on %d nested member paths (per request), %d of them an edge value ([] / {} / null)", n.Values, n.Fields, n.Edges)
	if opts := env.OpenTimeOptions(); len(opts) > 0 {
		w.Rec.Notef("", "surface: %d options a session opens with (the schema's definitions.%s), each due in session.create / session.resume itself: %s", len(opts), surface.OpenTimeDefinition, strings.Join(opts, ", "))
	} else {
		w.Rec.Notef("", "surface: the schema defines no %s here: where an open-time option arrives is not judged", surface.OpenTimeDefinition)
	}
	return nil
}

// surfaceTallyObservation is the observation holding "checked of inventoried" fields.
const surfaceTallyObservation = "inventoried fields with a generated check (features/surface)"

func (w *engine) surfaceClean() error {
	if w.surface == nil {
		return fmt.Errorf("no surface was probed in this scenario")
	}
	ps := w.surface.Problems()
	if len(ps) == 0 {
		return nil
	}
	head := fmt.Sprintf("%d of %d field values did not reach the wire as set", len(ps)-len(w.surface.Judged), len(w.surface.Findings))
	if n := len(w.surface.Judged); n > 0 {
		head += fmt.Sprintf("; %d fields no request carries, or listed as client-side though sent", n)
	}
	return &suite.Divergences{Text: head + ":\n  " + strings.Join(ps, "\n  "), Items: ps}
}
