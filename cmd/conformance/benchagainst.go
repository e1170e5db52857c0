package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/campaign"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// benchAgainst runs bench side by side: the checkout against (base) and this one (head), each
// built from its own folder and run there (its own features, steps and drivers), in turn for
// rounds rounds, with the suite flags this bench was given; then each side's medians and
// head÷base.
func benchAgainst(ctx context.Context, cmd *cobra.Command, against string, rounds int, args []string, reportDir string, out io.Writer) error {
	head, err := repoRoot(cmd)
	if err != nil {
		return err
	}
	base, err := filepath.Abs(against)
	if err != nil {
		return err
	}
	if !fileExists(filepath.Join(base, "cmd", "conformance")) {
		return usage("--against %s: not a conformance checkout (no cmd/conformance)", against)
	}
	sides := []campaign.Side{{Name: "base", Dir: base}, {Name: "head", Dir: head}}
	bins := map[string]string{}
	for _, s := range sides {
		bin := filepath.Join(reportDir, "bin", s.Name, "conformance")
		build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/conformance")
		build.Dir = s.Dir
		if b, err := build.CombinedOutput(); err != nil {
			return fmt.Errorf("building %s (%s): %v\n%s", s.Name, s.Dir, err, b)
		}
		bins[s.Name] = bin
	}
	passed := append(passThrough(cmd), args...)
	fmt.Fprintf(out, "base %s, head %s: %d round(s), the sides in turn\n", base, head, rounds)
	run := func(ctx context.Context, s campaign.Side, dir string) (campaign.SideRun, error) {
		c := exec.CommandContext(ctx, bins[s.Name], append([]string{"bench", "--report-dir", dir}, passed...)...)
		c.Dir = s.Dir
		var b bytes.Buffer
		c.Stdout, c.Stderr = &b, &b
		if err := c.Run(); err != nil {
			return campaign.SideRun{}, fmt.Errorf("%v\n%s", err, b.String())
		}
		return parseBench(b.String())
	}
	runs, err := campaign.SideBySide(ctx, sides, rounds, reportDir, run, func(r campaign.SideRun) {
		fmt.Fprintf(out, "%s %d: whole run %.2f s, CPU: harness %.2f s, drivers %.2f s; parts: %s\n", r.Side, r.Round, r.Wall.Seconds(), r.HarnessCPU.Seconds(), r.DriversCPU.Seconds(), r.Parts)
	})
	if err != nil {
		return err
	}
	printSideBySide(out, campaign.Medians(sides, runs))
	fmt.Fprintf(out, "reports: %s/{base,head}-<round>\n", reportDir)
	return nil
}

// passThrough is the command line of the flags cmd was given that each side's bench takes as
// they are (the suite's): not the side-by-side flags, nor the report folder, which is per run.
func passThrough(cmd *cobra.Command) []string {
	var out []string
	cmd.Flags().Visit(func(f *pflag.Flag) {
		switch f.Name {
		case "against", "rounds", "report-dir", "root", "cpuprofile":
			return
		}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			for _, v := range sv.GetSlice() {
				out = append(out, "--"+f.Name+"="+v)
			}
			return
		}
		out = append(out, "--"+f.Name+"="+f.Value.String())
	})
	return out
}

var (
	benchWholeRE = regexp.MustCompile(`(?m)^whole run: ([0-9.]+) s`)
	benchCPURE   = regexp.MustCompile(`(?m)^CPU: harness ([0-9.]+) s .*drivers ([0-9.]+) s`)
	benchPartsRE = regexp.MustCompile(`(?m)^parts: (.*)$`)
)

// parseBench reads a bench's printed whole-run wall time, CPU times and parts (printBench,
// printPhases), as every version of bench since the parts were added prints them.
func parseBench(out string) (campaign.SideRun, error) {
	r := campaign.SideRun{HarnessCPU: -1, DriversCPU: -1}
	m := benchWholeRE.FindStringSubmatch(out)
	if m == nil {
		return r, fmt.Errorf("no \"whole run\" line in the bench's output:\n%s", out)
	}
	r.Wall = seconds(m[1])
	if m := benchCPURE.FindStringSubmatch(out); m != nil {
		r.HarnessCPU, r.DriversCPU = seconds(m[1]), seconds(m[2])
	}
	if m := benchPartsRE.FindStringSubmatch(out); m != nil {
		r.Parts = m[1]
	}
	return r, nil
}

func seconds(s string) time.Duration {
	f, _ := strconv.ParseFloat(s, 64)
	return time.Duration(f * float64(time.Second))
}

// printSideBySide prints each side's medians and head÷base (the last side over the first).
func printSideBySide(w io.Writer, ms []campaign.SideMedians) {
	for _, m := range ms {
		fmt.Fprintf(w, "%s: median of %d run(s) %.2f s, harness CPU %.2f s\n", m.Side, m.Runs, m.Wall.Seconds(), m.HarnessCPU.Seconds())
	}
	if len(ms) < 2 {
		return
	}
	a, b := ms[0], ms[len(ms)-1]
	fmt.Fprintf(w, "%s÷%s: wall %.2f, harness CPU %.2f\n", b.Side, a.Side, ratio(b.Wall.Seconds(), a.Wall.Seconds()), ratio(b.HarnessCPU.Seconds(), a.HarnessCPU.Seconds()))
}
