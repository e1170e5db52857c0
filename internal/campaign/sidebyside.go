package campaign

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"time"
)

// Side is one checkout a side-by-side benchmark runs: its name in the report ("base", "head")
// and its folder.
type Side struct {
	Name, Dir string
}

// SideRun is one measured run of one side: the whole run's wall time, the harness's and the
// drivers' CPU time (negative: unknown) and the run's parts as its bench printed them.
type SideRun struct {
	Side       string
	Round      int
	Wall       time.Duration
	HarnessCPU time.Duration
	DriversCPU time.Duration
	Parts      string
}

// SideFunc runs one side's bench once, its reports into reportDir.
type SideFunc func(ctx context.Context, side Side, reportDir string) (SideRun, error)

// SideBySide runs every side once per round, the sides in turn (A B A B …), so a machine shared
// with other work slows both alike; each run's reports go to reportDir/<side>-<round>. It hands
// each run to done as it ends.
func SideBySide(ctx context.Context, sides []Side, rounds int, reportDir string, run SideFunc, done func(SideRun)) ([]SideRun, error) {
	var out []SideRun
	for r := 1; r <= rounds; r++ {
		for _, s := range sides {
			if err := ctx.Err(); err != nil {
				return out, err
			}
			got, err := run(ctx, s, filepath.Join(reportDir, fmt.Sprintf("%s-%d", s.Name, r)))
			if err != nil {
				return out, fmt.Errorf("%s, round %d: %w", s.Name, r, err)
			}
			got.Side, got.Round = s.Name, r
			out = append(out, got)
			if done != nil {
				done(got)
			}
		}
	}
	return out, nil
}

// SideMedians is one side's median whole-run wall time and harness CPU time over its rounds.
type SideMedians struct {
	Side             string
	Wall, HarnessCPU time.Duration
	Runs             int
}

// Medians are each side's medians, in the order of sides.
func Medians(sides []Side, runs []SideRun) []SideMedians {
	var out []SideMedians
	for _, s := range sides {
		var wall, cpu []time.Duration
		for _, r := range runs {
			if r.Side == s.Name {
				wall = append(wall, r.Wall)
				cpu = append(cpu, r.HarnessCPU)
			}
		}
		out = append(out, SideMedians{Side: s.Name, Wall: median(wall), HarnessCPU: median(cpu), Runs: len(wall)})
	}
	return out
}

// median of ds (the mean of the middle two for an even count; 0 for none).
func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	} else {
		return (s[n/2-1] + s[n/2]) / 2
	}
}
