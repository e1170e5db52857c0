package compare

import (
	"testing"

	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/stretchr/testify/assert"
)

func TestSurfaceDifferences(t *testing.T) {
	obs := func(sdk string, kv ...string) report.Result {
		r := report.Result{SDK: sdk, Observations: map[string]string{}}
		for i := 0; i < len(kv); i += 2 {
			r.Observations["surface "+kv[i]] = kv[i+1]
		}
		return r
	}
	tests := []struct {
		name    string
		results []report.Result
		want    []report.Difference
		ok      bool
		fields  bool
	}{
		{"not a surface scenario", []report.Result{{SDK: "a"}, {SDK: "b"}}, nil, false, false},
		{"same keys: no difference", []report.Result{obs("a", "session.create model", "model"), obs("b", "session.create model", "model")}, []report.Difference{}, true, true},
		{"handlers only: compared at handler paths, no fields to judge known field differences on", []report.Result{
			obs("a", "session.create handler onuserinputrequest", "requestUserInput=true"),
			obs("b", "session.create handler onuserinputrequest", "no key"),
		}, []report.Difference{{Request: "session.create", Path: "handler onuserinputrequest", Class: report.Normative,
			Values: map[string]string{"a": "requestUserInput=true", "b": "no key"}}}, true, false},
		{"a field one SDK sends later: normative", []report.Result{
			obs("a", "session.create coauthorenabled", "coauthorEnabled"),
			obs("b", "session.create coauthorenabled", "session.options.update.coauthorEnabled"),
		}, []report.Difference{{Request: "session.create", Path: "field coauthorenabled", Class: report.Normative,
			Values: map[string]string{"a": "coauthorEnabled", "b": "session.options.update.coauthorEnabled"}}}, true, true},
		{"a field only one SDK declares: not a difference", []report.Result{obs("a", "session.create x", "x"), obs("b")}, []report.Difference{}, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, fields, ok := surfaceDifferences(tt.results)
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.fields, fields)
			if tt.ok {
				assert.Equal(t, tt.want, got)
			}
		})
	}
}

func TestCrossSDK(t *testing.T) {
	diff := func(field string, keys map[string]string) report.Difference {
		return report.Difference{Request: "session.create", Path: FieldPrefix + field, Class: report.Normative, Values: keys}
	}
	comp := func(sdks []string, ds ...report.Difference) []report.Comparison {
		return []report.Comparison{{Feature: "surface/fields.feature", Scenario: "s", SDKs: sdks, Differences: ds, Fields: true}}
	}
	known := []report.KnownDifference{{Request: "session.create", Field: "x", Keys: map[string]string{"a": "x", "b": "later.x", "c": "later.x"}, Where: "k.yaml:1"}}
	tests := []struct {
		name  string
		comps []report.Comparison
		want  []string // status field known
	}{
		{"an unknown difference fails", comp([]string{"a", "b", "c"}, diff("y", map[string]string{"a": "y", "b": "z"})), []string{"failed y ", "xpass x k.yaml:1"}},
		{"a known difference on a subset of its SDKs", comp([]string{"a", "b"}, diff("x", map[string]string{"a": "x", "b": "later.x"})), []string{"xfail x k.yaml:1"}},
		{"a known difference with another key on one SDK fails", comp([]string{"a", "b"}, diff("x", map[string]string{"a": "x", "b": "y"})), []string{"failed x "}},
		{"a known difference no longer observed is fixed", comp([]string{"a", "b", "c"}), []string{"xpass x k.yaml:1"}},
		{"a known difference is not judged fixed when one of its SDKs did not run", comp([]string{"a", "b"}), nil},
		{"a known difference whose differing SDKs did not both run is silent", comp([]string{"b", "c"}), nil},
		{"payload comparisons are not judged", []report.Comparison{{SDKs: []string{"a", "b"}, Differences: []report.Difference{diff("y", map[string]string{"a": "1", "b": "2"})}}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, c := range CrossSDK(tt.comps, known) {
				got = append(got, c.Status+" "+c.Field+" "+c.Known)
			}
			assert.Equal(t, tt.want, got)
		})
	}
}
