package compare

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/surface"
)

// ReferenceFile is where the pinned SDKs' surface observations are kept, under fixtures/.
const ReferenceFile = "reference/surface.json"

// ReferenceTranscript stands in a reference result's transcript: it has none, only its
// observations.
const ReferenceTranscript = "(reference)"

// LoadReference reads a reference file; a missing file is no reference.
func LoadReference(path string) (*report.Reference, error) {
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var ref report.Reference
	if err := json.Unmarshal(b, &ref); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &ref, nil
}

// MakeReference records the surface observations of every available SDK of a run; pinned says
// whether an SDK ran at its pinned version (only pins make a reference).
func MakeReference(res *report.Results, pinned func(sdk, version string) bool) (*report.Reference, error) {
	ref := &report.Reference{Comment: "The pinned SDKs' surface observations (where each field went), made by `conformance reference RUN/results.json` from a run of the pins; a run without some SDK compares with these."}
	by := map[string]*report.ReferenceSDK{}
	for _, s := range res.SDKs {
		if s.Status != report.Available {
			continue
		}
		if !pinned(s.Name, s.Version) {
			return nil, fmt.Errorf("%s ran at %s, not at its pin: a reference is made from a run of the pins", s.Name, s.Version)
		}
		by[s.Name] = &report.ReferenceSDK{SDK: s.Name, Version: s.Version}
	}
	for _, r := range res.Results {
		rs := by[r.SDK]
		if rs == nil || !executed[r.Status] {
			continue
		}
		obs := surfaceFacts(r.Observations)
		if len(obs) == 0 {
			continue
		}
		rs.Scenarios = append(rs.Scenarios, report.ReferenceScenario{Feature: r.Feature, Scenario: r.Scenario, Observations: obs})
	}
	for _, s := range res.SDKs {
		if rs := by[s.Name]; rs != nil && len(rs.Scenarios) > 0 {
			sort.Slice(rs.Scenarios, func(i, j int) bool {
				return rs.Scenarios[i].Feature+"\x00"+rs.Scenarios[i].Scenario < rs.Scenarios[j].Feature+"\x00"+rs.Scenarios[j].Scenario
			})
			ref.SDKs = append(ref.SDKs, *rs)
		}
	}
	if len(ref.SDKs) == 0 {
		return nil, fmt.Errorf("the run has no surface observations: run the surface features (features/surface) on the pins")
	}
	return ref, nil
}

func surfaceFacts(obs map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range obs {
		if strings.HasPrefix(k, surface.ObservationPrefix) {
			out[k] = v
		}
	}
	return out
}

// WithReference is results with, for each surface scenario that ran, a result of every
// reference SDK that did not run it (its observations, no transcript), for the comparison only:
// the SDKs a run left out are judged by their pinned observations. It also returns, per scenario,
// which reference SDKs were added ("node@1.0.14").
func WithReference(results []report.Result, ref *report.Reference) ([]report.Result, map[[2]string][]string) {
	added := map[[2]string][]string{}
	if ref == nil {
		return results, added
	}
	ran := map[[2]string]map[string]bool{}
	for _, r := range results {
		if !executed[r.Status] || len(surfaceFacts(r.Observations)) == 0 {
			continue
		}
		k := [2]string{r.Feature, r.Scenario}
		if ran[k] == nil {
			ran[k] = map[string]bool{}
		}
		ran[k][r.SDK] = true
	}
	out := slices.Clone(results)
	for _, s := range ref.SDKs {
		for _, sc := range s.Scenarios {
			k := [2]string{sc.Feature, sc.Scenario}
			if ran[k] == nil || ran[k][s.SDK] {
				continue
			}
			out = append(out, report.Result{Feature: sc.Feature, Scenario: sc.Scenario, SDK: s.SDK, Version: s.Version,
				Status: report.Passed, Transcript: ReferenceTranscript, Observations: sc.Observations})
			added[k] = append(added[k], s.SDK+"@"+s.Version)
		}
	}
	return out, added
}
