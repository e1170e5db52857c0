package harness

import (
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestOrderPathsLongestFirst(t *testing.T) {
	fsys := fstest.MapFS{
		"features/a/short.feature": {Data: []byte("Feature: s")},
		"features/a/long.feature":  {Data: []byte("Feature: l")},
		"features/a/notes.md":      {Data: []byte("not a feature")},
		"features/b/new.feature":   {Data: []byte("Feature: n")},
		"features/b/mid.feature":   {Data: []byte("Feature: m")},
	}
	root, err := filepath.Abs("features")
	require.NoError(t, err)
	times := featureTimes{"a/short.feature": 100, "a/long.feature": 9000, "b/mid.feature": 4000, "gone.feature": 99999}
	for _, tc := range []struct {
		name  string
		paths []string
		times featureTimes
		want  []string
	}{
		{"no times keeps the paths as given", []string{"features"}, nil, []string{"features"}},
		{"a feature without a time first, then longest first", []string{"features"}, times,
			[]string{"features/b/new.feature", "features/a/long.feature", "features/b/mid.feature", "features/a/short.feature"}},
		{"several paths are ordered together", []string{"features/b", "features/a/short.feature", "features/a/long.feature"}, times,
			[]string{"features/b/new.feature", "features/a/long.feature", "features/b/mid.feature", "features/a/short.feature"}},
		{"a path named twice runs once", []string{"features/a", "features/a/long.feature"}, times,
			[]string{"features/a/long.feature", "features/a/short.feature"}},
		{"a scenario named by line keeps the paths", []string{"features/a/long.feature:3", "features/b"}, times,
			[]string{"features/a/long.feature:3", "features/b"}},
		{"a path that cannot be read is left for godog to name", []string{"features/missing"}, times, []string{"features/missing"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, orderPaths(fsys, root, tc.paths, tc.times))
		})
	}
}

func TestFeatureTimesSaveMerges(t *testing.T) {
	dir := t.TempDir()
	assert.Nil(t, loadFeatureTimes(dir), "no file: no times")
	require.NoError(t, featureTimes{"a.feature": 10, "b.feature": 20}.save(dir))
	require.NoError(t, featureTimes{"b.feature": 5, "c.feature": 7}.save(dir))
	assert.Equal(t, featureTimes{"a.feature": 10, "b.feature": 5, "c.feature": 7}, loadFeatureTimes(dir),
		"a later run's time replaces a feature's; features it did not run keep theirs")
	require.NoError(t, featureTimes(nil).save(dir))
	assert.Len(t, loadFeatureTimes(dir), 3, "a run that timed nothing changes nothing")
	matches, _ := filepath.Glob(filepath.Join(dir, featureTimesFile+".*"))
	assert.Empty(t, matches, "no temporary file is left behind")
}

func TestFeatureClockKeepsTheLongestScenario(t *testing.T) {
	var c featureClock
	c.scenario("a.feature", 2_000_000_000)
	c.scenario("a.feature", 500_000_000)
	c.scenario("b.feature", 1_000_000)
	assert.Equal(t, featureTimes{"a.feature": 2000, "b.feature": 1}, c.times)
}
