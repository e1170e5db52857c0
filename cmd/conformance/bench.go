package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/campaign"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/spf13/cobra"
)

func benchCmd() *cobra.Command {
	var (
		cold    bool
		against string
		rounds  int
		suite   *suiteFlags
	)
	cmd := &cobra.Command{
		Use:   "bench [feature paths...]",
		Short: "Run the suite once and print, per SDK, where its time went",
		Long: `Bench runs the whole suite once (as run does) and prints, per SDK, measured in that one run:

  drivers    driver processes the run started for the SDK (see --jobs)
  wall       from the SDK's first scenario start to its last scenario's end
  SDK calls  the driver commands' round trips added up: the time spent inside the SDK, the
             floor of the SDK's run; wall÷calls is the goal's ratio (at most 3; below 1 when
             scenarios overlap)
  overhead   per scenario, its wall time minus its SDK calls and its wait for a driver: the
             harness's own time (p50 and p95; goal: p50 at most 5 ms)
  start      preparing (a cache hit when warm), the first driver's hello and the wait for the
             other SDKs' first drivers (scenarios start once every SDK's first driver has)

then, per SDK, where its time went:

  driver start  each driver process's start to its hello (p50 and max over the drivers)
  connect       the connect commands (creating the SDK client and connecting it), added up
  body          every other command (the scenario itself), added up
  stop          the stopClient commands, added up
  per scenario  connect / body / stop divided by the scenarios
  driver CPU    the driver processes' user+system CPU time (with the children they waited for,
                from the kernel's rusage when they exit), against their wall time from start
                to exit: CPU÷wall far below 1 means the SDK mostly sleeps or waits; and that
                CPU time per scenario (start-ups included)

and the whole run's wall time and its parts one after the other (loading the schema, the
scenarios, stopping the drivers, the reports: each with the harness's CPU time), with the CPU time of the harness itself (its recording runtimes,
the steps, the reports; per scenario) and of every SDK's drivers: on a machine of few cores the
sum bounds the wall time from below. The numbers come from the run's transcripts and the harness's
clock; they are also in results.json ("timing") and in summary.md's Timing section.

With --against CHECKOUT, bench measures two commits side by side on one machine: it builds the
CLI of that checkout (base) and of this one (head), each in its own folder, then runs each one's
bench in its own checkout (its features, steps and drivers), the sides in turn for --rounds
rounds (base, head, base, head: a machine shared with other work slows both alike), with the
suite flags given here; it prints each run's whole wall time, harness and driver CPU time and
parts, each side's medians, and head÷base for the wall time and the harness's CPU time (less
sensitive to other load). Each run's reports are in REPORT-DIR/<side>-<round>.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := suite.config(args)
			if err != nil {
				return err
			}
			if cold && cfg.CacheRoot != "" {
				return usage("--cold runs from an empty cache of its own: not with --cache-dir")
			}
			if cfg.ReportDir == "" {
				if cfg.ReportDir, err = os.MkdirTemp("", "conformance-bench-"); err != nil {
					return err
				}
			}
			reportDir := cfg.ReportDir
			// The run's log is dropped but for the real runtimes' line (processes started and
			// reused, their CPU): what a real run's time went to beside the tables.
			cfg.Log = linesWith{prefix: "real runtime:", w: os.Stdout}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
			defer stop()
			if against != "" {
				if cold || rounds < 1 {
					return usage("--against runs warm benches, --rounds at least 1: not with --cold")
				}
				return benchAgainst(ctx, cmd, against, rounds, args, reportDir, os.Stdout)
			}
			if !cold {
				b, err := campaign.Bench(ctx, cfg, nil)
				if err != nil {
					return err
				}
				printBenchRun(os.Stdout, b, cfg.Jobs)
				fmt.Printf("reports: %s\n", reportDir)
				return nil
			}
			c, w, err := campaign.ColdWarm(ctx, cfg, nil, os.Stdout, func(b *campaign.BenchRun) { printBenchRun(os.Stdout, b, cfg.Jobs) })
			if err != nil {
				return err
			}
			printColdWarm(os.Stdout, c.Results, w.Results, c.Took, w.Took)
			fmt.Printf("reports: %s/{cold,warm}\n", reportDir)
			return nil
		},
	}
	suite = bindSuite(cmd, suiteOptions{reportDirHelp: "where the run's reports go (default a new temporary folder)"})
	f := cmd.Flags()
	f.BoolVar(&cold, "cold", false, "run twice, first from an empty harness cache of its own (removed after), then warm, and print each SDK's preparation time both ways")
	f.StringVar(&against, "against", "", "another checkout of the harness (a worktree of an older commit): build both, run their benches in turn (base, head, base, head…) with these suite flags, and print each side's median and head÷base")
	f.IntVar(&rounds, "rounds", 2, "with --against: how many times each side runs")
	return cmd
}

// printBenchRun prints one measured run's tables and parts.
func printBenchRun(w io.Writer, b *campaign.BenchRun, jobs int) {
	printBench(w, b.Results, b.Took, jobs, b.HarnessCPU)
	printPhases(w, b.Phases, b.CPUKnown)
}

// printColdWarm prints, per SDK, what preparing it cost from an empty harness cache and from
// the cache that run left, and each run's whole wall time: the first run's cost on a fresh
// machine (the package managers' own download caches are as this machine has them).
func printColdWarm(w io.Writer, cold, warm *report.Results, coldTook, warmTook time.Duration) {
	warmOf := map[string]report.Timing{}
	for _, t := range warm.Timing {
		warmOf[t.SDK] = t
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "SDK\tprepare cold\twarm\tstart cold\twarm\t")
	for _, c := range cold.Timing {
		h := warmOf[c.SDK]
		fmt.Fprintf(tw, "%s\t%.1f s\t%.2f s\t%.1f s\t%.2f s\t\n", c.SDK, c.PrepareMS/1000, h.PrepareMS/1000, c.StartMS/1000, h.StartMS/1000)
	}
	tw.Flush()
	fmt.Fprintf(w, "whole run: cold %.1f s, warm %.1f s\n", coldTook.Seconds(), warmTook.Seconds())
}

// printBench prints the tables; harnessCPU is the harness's own CPU time over the run (its
// recording runtimes, steps and reports; negative: unknown).
func printBench(w io.Writer, res *report.Results, took time.Duration, jobs int, harnessCPU time.Duration) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "SDK\tscenarios\tdrivers\twall\tSDK calls\twall÷calls\toverhead p50\tp95\tstart\t")
	for _, t := range res.Timing {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.2f s\t%.2f s\t%.2f\t%.1f ms\t%.1f ms\t%.2f s\t\n", t.SDK, t.Scenarios, t.Drivers,
			t.WallMS/1000, t.SDKCallsMS/1000, ratio(t.WallMS, t.SDKCallsMS), t.Overhead.P50, t.Overhead.P95, t.StartMS/1000)
	}
	tw.Flush()
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "SDK\tdriver start p50\tmax\tconnect\tbody\tstop\tper scenario\tdriver CPU\tdriver wall\tCPU÷wall\tCPU/scenario\t")
	for _, t := range res.Timing {
		per := "-"
		if n := float64(t.Scenarios); n > 0 {
			per = fmt.Sprintf("%.0f / %.0f / %.0f ms", t.ConnectMS/n, t.BodyMS/n, t.StopMS/n)
		}
		cpu, life, share, perCPU := "-", "-", "-", "-"
		if t.CPUDrivers > 0 {
			cpu, life = fmt.Sprintf("%.2f s", t.DriverCPUMS/1000), fmt.Sprintf("%.2f s", t.DriverLifeMS/1000)
			share = fmt.Sprintf("%.2f", ratio(t.DriverCPUMS, t.DriverLifeMS))
			if t.Scenarios > 0 {
				perCPU = fmt.Sprintf("%.0f ms", t.DriverCPUMS/float64(t.Scenarios))
			}
		}
		fmt.Fprintf(tw, "%s\t%.0f ms\t%.0f ms\t%.2f s\t%.2f s\t%.2f s\t%s\t%s\t%s\t%s\t%s\t\n", t.SDK, t.DriverStart.P50, t.DriverStart.Max,
			t.ConnectMS/1000, t.BodyMS/1000, t.StopMS/1000, per, cpu, life, share, perCPU)
	}
	tw.Flush()
	fmt.Fprintf(w, "whole run: %.2f s with --jobs %d\n", took.Seconds(), jobs)
	if harnessCPU >= 0 {
		var drivers float64
		scenarios := 0
		for _, t := range res.Timing {
			drivers += t.DriverCPUMS
			scenarios += t.Scenarios
		}
		fmt.Fprintf(w, "CPU: harness %.2f s (%.0f ms per scenario), drivers %.2f s\n", harnessCPU.Seconds(),
			ratio(float64(harnessCPU.Milliseconds()), float64(scenarios)), drivers/1000)
	}
}

// printPhases prints the run's parts one after the other (each's wall and harness CPU time):
// what runs before the first scenario and after the last is on every run's critical path.
func printPhases(w io.Writer, phases []campaign.Phase, cpuKnown bool) {
	var parts []string
	var at, cpu time.Duration
	for _, p := range phases {
		s := fmt.Sprintf("%s %.2f s", p.Name, (p.At - at).Seconds())
		if cpuKnown {
			s += fmt.Sprintf(" (CPU %.2f s)", (p.CPU - cpu).Seconds())
		}
		parts = append(parts, s)
		at, cpu = p.At, p.CPU
	}
	if len(parts) > 0 {
		fmt.Fprintf(w, "parts: %s\n", strings.Join(parts, ", "))
	}
}

// linesWith passes on to w the lines written to it that begin with prefix, and drops the rest
// (the harness writes its log a line per Write).
type linesWith struct {
	prefix string
	w      io.Writer
}

func (l linesWith) Write(b []byte) (int, error) {
	for _, line := range strings.SplitAfter(string(b), "\n") {
		if strings.HasPrefix(line, l.prefix) {
			_, _ = io.WriteString(l.w, line)
		}
	}
	return len(b), nil
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}
