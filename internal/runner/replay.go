package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/copilot-sdk-conformance/conformance/internal/driver"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
)

// Replay runs no SDK: each scenario is answered from its recorded transcript (driver.Recorded),
// and each target's hello is the one the recorded run reported, so the steps run exactly as in
// the recorded run and re-check its assertions (after a feature changed, say).
type Replay struct {
	// Records are the recorded run's (its results.json); Dir is its report folder.
	Records *report.Results
	Dir     string
	store   *transcript.Store
}

// NewReplay reads a recorded run's results.json.
func NewReplay(resultsJSON string) (*Replay, error) {
	res, err := report.Load(resultsJSON)
	if err != nil {
		return nil, err
	}
	dir := filepath.Dir(resultsJSON)
	return &Replay{Records: res, Dir: dir, store: transcript.NewStore(dir)}, nil
}

// ReplayTranscript replays one scenario transcript; it returns the runner, the target to run
// and the scenario's header.
func ReplayTranscript(path string) (*Replay, report.SDK, transcript.Header, error) {
	entries, err := transcript.Read(path)
	if err != nil {
		return nil, report.SDK{}, transcript.Header{}, err
	}
	h, ok := transcript.HeaderOf(entries)
	if !ok {
		return nil, report.SDK{}, h, fmt.Errorf("%s: no scenario header (is this a scenario transcript from conformance run?)", path)
	}
	dir, name := filepath.Split(path)
	sdk := report.SDK{Name: h.SDK, Status: report.Available}
	r := &Replay{Dir: dir, store: transcript.NewStore(dir), Records: &report.Results{SDKs: []report.SDK{sdk},
		Results: []report.Result{{Feature: h.Feature, Scenario: h.Name, SDK: h.SDK, Transcript: name}}}}
	return r, sdk, h, nil
}

func (*Replay) Name() string    { return ReplayName }
func (*Replay) Close(io.Writer) {}

// Prepare finds the target in the records: unavailable as it was, else with its recorded hello
// and its scenarios' recordings.
func (r *Replay) Prepare(_ context.Context, t Target) (*Prepared, error) {
	for _, s := range r.Records.SDKs {
		if s.Name != t.SDK || (t.Version != "" && s.Version != t.Version) {
			continue
		}
		rec := recordings{r: r, sdk: s.Name, version: s.Version, of: map[[2]string]report.Result{}}
		for _, x := range r.Records.Results {
			if x.SDK == s.Name && x.Version == s.Version && x.Transcript != "" {
				rec.of[[2]string{x.Feature, x.Scenario}] = x
			}
		}
		// An SDK the recorded run found unavailable is unavailable again, for the same scenarios.
		p := &Prepared{Toolchain: s.Toolchain, Recordings: rec}
		if s.Status != report.Available {
			return p, errors.New(s.Reason)
		}
		p.Hello = &driver.Hello{SDK: s.Name, Version: s.Version, Source: s.Source, Capabilities: s.Capabilities, Notes: s.Notes}
		return p, nil
	}
	return nil, fmt.Errorf("the recorded run has no %s", report.Target(t.SDK, t.Version))
}

type recordings struct {
	r            *Replay
	sdk, version string
	of           map[[2]string]report.Result
}

func (rs recordings) Len() int { return len(rs.of) }

func (rs recordings) Recording(feature, scenario string) (*Recording, bool) {
	res, ok := rs.of[[2]string{feature, scenario}]
	for k, r := range rs.of {
		if !ok && k[0] == feature && transcript.Unredacts(k[1], scenario) {
			res, ok = r, true // recorded under its name with the secret it quotes redacted
		}
	}
	if !ok {
		return nil, false
	}
	entries, err := rs.r.store.Read(res.Transcript)
	if err != nil {
		// The scenario is this target's but cannot be replayed: it fails saying why.
		entries = nil
	}
	rec := &Recording{Entries: entries, Lacks: map[string]string{}, Result: &res}
	if h, ok := transcript.HeaderOf(entries); ok {
		rec.Schema = h.SchemaChecked
	}
	for _, e := range entries {
		switch {
		case e.Kind != transcript.KindNotRun:
		case e.Capability == "":
			rec.Unavailable = e.Reason
		default:
			rec.Lacks[e.Capability] = e.Reason
		}
	}
	return rec, true
}
