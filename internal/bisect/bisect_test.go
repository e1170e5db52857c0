package bisect

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/copilot-sdk-conformance/conformance/internal/render"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeRun is a recipe without a network: versions at or past changeAt fail the scenario.
func fakeRun(t *testing.T, versions []string, changeAt int, calls *[]string) Run {
	return func(ctx context.Context, v string) (string, error) {
		*calls = append(*calls, v)
		idx := -1
		for i, x := range versions {
			if x == v {
				idx = i
			}
		}
		status := report.Passed
		if idx >= changeAt {
			status = report.XFail // a listed divergence is still a failure to bisect
		}
		dir := filepath.Join(t.TempDir(), v)
		res := &report.Results{Schema: report.SchemaVersion, Harness: report.Harness{Version: "h"}, SDKs: []report.SDK{{Name: "go", Version: v, Status: report.Available}},
			Results:      []report.Result{{Feature: "f.feature", Scenario: "s", SDK: "go", Version: v, Status: status}},
			Completeness: &report.Completeness{Complete: true, Planned: 1, Reported: 1}}
		return dir, render.Write(dir, res)
	}
}

func TestSearchFindsTheFirstChangedVersion(t *testing.T) {
	versions := []string{"v1.0.0", "v1.0.1", "v1.0.2", "v1.0.3", "v1.0.4", "v1.0.5", "v1.0.6", "v1.0.7", "v1.0.8"}
	for changeAt := 1; changeAt < len(versions); changeAt++ {
		var calls []string
		o, err := Search(context.Background(), versions, fakeRun(t, versions, changeAt, &calls))
		require.NoError(t, err)
		assert.Equal(t, versions[changeAt], o.FirstChanged, "change at %d", changeAt)
		assert.Equal(t, versions[changeAt-1], o.LastGood)
		assert.LessOrEqual(t, len(calls), 2+4, "binary search: at most 2 + ceil(log2(7)) runs, ran %v", calls)
		require.NotNil(t, o.Diff)
		require.Len(t, o.Diff.Changes, 1)
		assert.Equal(t, "passed", o.Diff.Changes[0].From)
		assert.Contains(t, o.Text(), "first version whose status differs from v1.0.0: "+versions[changeAt])
	}
}

func TestSearchNoChange(t *testing.T) {
	versions := []string{"1.0.0", "1.0.1", "1.0.2"}
	var calls []string
	o, err := Search(context.Background(), versions, fakeRun(t, versions, 99, &calls))
	require.NoError(t, err)
	assert.Empty(t, o.FirstChanged)
	assert.Equal(t, []string{"1.0.0", "1.0.2"}, calls, "only the bounds run")
	assert.Contains(t, o.Text(), "behave alike")
}

func TestSearchErrors(t *testing.T) {
	_, err := Search(context.Background(), []string{"1.0.0"}, nil)
	assert.ErrorContains(t, err, "two versions")
	_, err = Search(context.Background(), []string{"1.0.0", "1.0.1"}, func(context.Context, string) (string, error) {
		return "", errors.New("npm exploded")
	})
	assert.ErrorContains(t, err, "1.0.0: npm exploded")
}
