// Command conformance runs the Copilot SDK conformance suite: the features on every SDK's driver
// against the recording runtime, with reports. See README.md.
package main

import (
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"runtime/pprof"

	"github.com/copilot-sdk-conformance/conformance/internal/harness"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/spf13/cobra"
)

// exitError carries a process exit code: 1 for failures, 2 for usage or setup errors.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }

func main() {
	// The GitHub token variables of this process never reach a transcript in clear.
	transcript.AddSecretsFromEnv(os.Environ())
	tuneGC()
	root := newRoot()
	defer pprof.StopCPUProfile() // a no-op without --cpuprofile; before any os.Exit below
	if err := root.Execute(); err != nil {
		pprof.StopCPUProfile()
		fmt.Fprintln(os.Stderr, "conformance:", err)
		var ee *exitError
		switch {
		case errors.As(err, &ee):
			os.Exit(ee.code)
		case errors.Is(err, harness.ErrInterrupted):
			os.Exit(130)
		case errors.Is(err, harness.ErrSetup):
			os.Exit(2)
		default:
			os.Exit(2) // flag and usage errors
		}
	}
}

// newRoot is the command tree.
func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:           "conformance",
		Short:         "Cross-SDK conformance harness for the GitHub Copilot SDKs",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentFlags().String("root", "", "the harness checkout (default: found from the working directory)")
	// The harness's own CPU profile, to choose the next optimisation from (README "Speed").
	root.PersistentFlags().String("cpuprofile", "", "write the harness's own CPU profile to this file (read it with go tool pprof -top)")
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		path, _ := cmd.Flags().GetString("cpuprofile")
		if path == "" {
			return nil
		}
		f, err := os.Create(path)
		if err != nil {
			return err
		}
		return pprof.StartCPUProfile(f)
	}
	root.AddCommand(runCmd(), benchCmd(), doctorCmd(), smokeCmd(), serveCmd(), runtimeCmd(), diffCmd(), replayCmd(), selftestCmd(), imagesCmd(), mergeCmd(), bisectCmd(), historyCmd(), sdksCmd(), surfaceCmd(), fidelityCmd(), cacheCmd(), prepareCmd(), execDriverCmd(), referenceCmd())
	return root
}

// tuneGC trades memory for CPU where the user set neither GOGC nor GOMEMLIMIT: a run allocates
// and drops every frame it records (decoded, redacted, encoded), and on a machine of few cores
// the harness's CPU is part of the run's floor. At GOGC=400 the harness took 12% less CPU on the
// converters and behaviour features (16.4-16.6 s against 18.3-19.4 s, two runs each); the soft
// memory limit makes the collector work harder again before the heap outgrows it.
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(gcMemoryLimit)
	}
}

const gcMemoryLimit = 3 << 30
