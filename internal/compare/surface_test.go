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
	}{
		{"not a surface scenario", []report.Result{{SDK: "a"}, {SDK: "b"}}, nil, false},
		{"same keys: no difference", []report.Result{obs("a", "session.create model", "model"), obs("b", "session.create model", "model")}, []report.Difference{}, true},
		{"a field one SDK sends later: normative", []report.Result{
			obs("a", "session.create coauthorenabled", "coauthorEnabled"),
			obs("b", "session.create coauthorenabled", "session.options.update.coauthorEnabled"),
		}, []report.Difference{{Request: "session.create", Path: "field coauthorenabled", Class: report.Normative,
			Values: map[string]string{"a": "coauthorEnabled", "b": "session.options.update.coauthorEnabled"}}}, true},
		{"a field only one SDK declares: not a difference", []report.Result{obs("a", "session.create x", "x"), obs("b")}, []report.Difference{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := surfaceDifferences(tt.results)
			assert.Equal(t, tt.ok, ok)
			if tt.ok {
				assert.Equal(t, tt.want, got)
			}
		})
	}
}
