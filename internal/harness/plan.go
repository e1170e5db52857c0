package harness

import (
	"fmt"
	"github.com/copilot-sdk-conformance/conformance/internal/cases"
	"path/filepath"
	"slices"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/compare"
	"github.com/copilot-sdk-conformance/conformance/internal/expect"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/sdks"
	"github.com/copilot-sdk-conformance/conformance/internal/surface"
)

// plan is what a run will do, decided before any SDK starts: which SDKs (in report order), at
// which pins, over which scenarios, with which known divergences. Every input check belongs here
// so that a bad input fails the run before anything is prepared.
type plan struct {
	featuresRoot string
	sdks         []string
	pins         map[string]sdks.Pin
	scenarios    []expect.Scenario
	ids          map[[2]string]string // (feature, scenario) -> stable id
	manifest     *expect.Manifest
	differences  []report.KnownDifference
	reference    *report.Reference    // the pinned SDKs' surface observations, for the SDKs a run leaves out
	clientSide   []surface.ClientSide // the committed client-side fields (surface.ClientSideFile)
}

func makePlan(cfg Config) (*plan, error) {
	p := &plan{featuresRoot: filepath.Join(cfg.RepoRoot, "features")}
	var err error
	if p.pins, err = sdks.LoadPins(filepath.Join(cfg.RepoRoot, "fixtures", "sdks.yaml")); err != nil {
		return nil, err
	}
	if p.scenarios, err = cases.List(p.featuresRoot); err != nil {
		return nil, err
	}
	p.ids = map[[2]string]string{}
	for _, s := range p.scenarios {
		if _, dup := p.ids[[2]string{s.Feature, s.Name}]; !dup { // outline rows sharing a name: one case
			p.ids[[2]string{s.Feature, s.Name}] = s.ID
		}
	}
	if cfg.Vocabulary != nil {
		n, err := cases.Check(cfg.Paths, cfg.Vocabulary, cfg.Tags, cfg.Scenario)
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return nil, fmt.Errorf("the run selects no scenario: %s", selection(cfg))
		}
	}
	if p.manifest, err = expect.Load(cfg.Manifest, p.scenarios, sdks.Names()); err != nil {
		return nil, err
	}
	for _, e := range p.manifest.Entries {
		e.File = relTo(cfg.RepoRoot, e.File)
	}
	// The known schema violations and cross-SDK differences live beside the expected failures.
	if p.manifest.Violations, err = expect.LoadViolations(filepath.Join(filepath.Dir(cfg.Manifest), expect.ViolationsFile), sdks.Names()); err != nil {
		return nil, err
	}
	for _, v := range p.manifest.Violations {
		v.File = relTo(cfg.RepoRoot, v.File)
	}
	if p.differences, err = expect.LoadDifferences(filepath.Join(filepath.Dir(cfg.Manifest), expect.DifferencesFile), sdks.Names()); err != nil {
		return nil, err
	}
	for i := range p.differences {
		p.differences[i].Where = relTo(cfg.RepoRoot, p.differences[i].Where)
	}
	if p.reference, err = compare.LoadReference(filepath.Join(filepath.Dir(cfg.Manifest), compare.ReferenceFile)); err != nil {
		return nil, err
	}
	// So do the fields the surface sweep may find never sent because they are client-side.
	if p.clientSide, err = surface.LoadClientSide(filepath.Join(filepath.Dir(cfg.Manifest), surface.ClientSideFile), sdks.Names()); err != nil {
		return nil, err
	}
	for i := range p.clientSide {
		p.clientSide[i].Where = relTo(cfg.RepoRoot, p.clientSide[i].Where)
	}
	for _, n := range cfg.SDKs {
		if !slices.Contains(sdks.Names(), n) {
			return nil, fmt.Errorf("unknown SDK %q (known: %s)", n, strings.Join(sdks.Names(), ", "))
		}
	}
	for _, n := range sdks.Names() { // reports list SDKs in one order whatever --sdk says
		if len(cfg.SDKs) == 0 || slices.Contains(cfg.SDKs, n) {
			p.sdks = append(p.sdks, n)
		}
	}
	return p, nil
}

// selection says what chose the scenarios of a run, for the error when it chose none.
func selection(cfg Config) string {
	var parts []string
	if cfg.Scenario != "" {
		parts = append(parts, fmt.Sprintf("--scenario %q", cfg.Scenario))
	}
	if cfg.Tags != "" {
		parts = append(parts, fmt.Sprintf("--tags %q", cfg.Tags))
	}
	parts = append(parts, "in "+strings.Join(cfg.Paths, ", "))
	return strings.Join(parts, " ")
}
