package campaign

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSideBySideInterleaves: the sides run in turn, round after round (A B A B), each into a
// folder of its own, and the medians are each side's; a failed run stops the benchmark, naming
// the side and the round.
func TestSideBySideInterleaves(t *testing.T) {
	sides := []Side{{Name: "base", Dir: "/a"}, {Name: "head", Dir: "/b"}}
	walls := map[string][]time.Duration{"base": {30 * time.Second, 40 * time.Second, 35 * time.Second}, "head": {45 * time.Second, 40 * time.Second, 80 * time.Second}}
	var order, dirs []string
	run := func(_ context.Context, s Side, dir string) (SideRun, error) {
		order = append(order, s.Name)
		dirs = append(dirs, dir)
		w := walls[s.Name][0]
		walls[s.Name] = walls[s.Name][1:]
		return SideRun{Wall: w, HarnessCPU: w / 2}, nil
	}
	var seen int
	runs, err := SideBySide(context.Background(), sides, 3, "/r", run, func(SideRun) { seen++ })
	require.NoError(t, err)
	assert.Equal(t, []string{"base", "head", "base", "head", "base", "head"}, order)
	assert.Equal(t, filepath.Join("/r", "head-2"), dirs[3])
	assert.Equal(t, 6, seen)
	assert.Equal(t, 2, runs[2].Round)
	assert.Equal(t, []SideMedians{
		{Side: "base", Wall: 35 * time.Second, HarnessCPU: 17500 * time.Millisecond, Runs: 3},
		{Side: "head", Wall: 45 * time.Second, HarnessCPU: 22500 * time.Millisecond, Runs: 3},
	}, Medians(sides, runs))

	failing := func(_ context.Context, s Side, _ string) (SideRun, error) {
		if s.Name == "head" {
			return SideRun{}, errors.New("exit 1")
		}
		return SideRun{Wall: time.Second}, nil
	}
	runs, err = SideBySide(context.Background(), sides, 2, "/r", failing, nil)
	assert.EqualError(t, err, "head, round 1: exit 1")
	assert.Len(t, runs, 1)
}

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		in   []time.Duration
		want time.Duration
	}{
		{nil, 0},
		{[]time.Duration{3}, 3},
		{[]time.Duration{4, 2}, 3},
		{[]time.Duration{9, 1, 5}, 5},
	} {
		assert.Equal(t, c.want, median(c.in), "%v", c.in)
	}
}
