package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/compare"
	"github.com/copilot-sdk-conformance/conformance/internal/fidelity"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/spf13/cobra"
)

func referenceCmd() *cobra.Command {
	var realAnswers bool
	cmd := &cobra.Command{
		Use:   "reference RUN/results.json",
		Short: "Record the pinned SDKs' surface observations as the reference other runs compare with",
		Long: `Reference writes fixtures/reference/surface.json from a run of the pinned SDKs: where each
field of each SDK's surface went when set alone (the surface scenarios' observations). A run that
leaves an SDK out (one SDK, a release candidate, an older version, a checkout) compares the SDKs
it ran with these, so the cross-SDK judgement of every field's key, place and shape holds in
every run. Make it after a pin moves:

  conformance run features/surface --report-dir reports/pins
  conformance reference reports/pins/results.json

With --real-answers it writes fixtures/reference/real-answers.json instead, from a run on the
real runtime: per method, the shape of the real runtime's answers (each JSON path with its type,
which every result had and which only some, the error codes), and the runtime's version. The
stand-in's answers are judged against it in every test run (internal/standin). Make it after the
runtime moves (the pinned Node SDK's platform package ships it):

  conformance run --runtime real --sdk node,go,python,rust --report-dir reports/real
  conformance reference --real-answers reports/real/results.json

Exit status: 0 written, 2 when the run is not of the pins or has no surface observations (or,
with --real-answers, is not of the real runtime).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			root, pins, err := rootAndPins(cmd)
			if err != nil {
				return err
			}
			if realAnswers {
				return writeRealAnswers(root, args[0])
			}
			res, err := report.ReadResults(args[0])
			if err != nil {
				return &exitError{2, err}
			}
			ref, err := compare.MakeReference(res, func(sdk, version string) bool {
				return strings.TrimPrefix(pins[sdk].Version, "v") == strings.TrimPrefix(version, "v")
			})
			if err != nil {
				return &exitError{2, fmt.Errorf("reference: %w", err)}
			}
			b, err := json.MarshalIndent(ref, "", " ")
			if err != nil {
				return err
			}
			out := filepath.Join(root, "fixtures", compare.ReferenceFile)
			if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(out, append(b, '\n'), 0o644); err != nil {
				return err
			}
			var names []string
			for _, s := range ref.SDKs {
				names = append(names, s.SDK+"@"+s.Version)
			}
			fmt.Printf("%s: %s\n", out, strings.Join(names, ", "))
			return nil
		},
	}
	cmd.Flags().BoolVar(&realAnswers, "real-answers", false, "write the real runtime's answer shapes (fixtures/"+fidelity.RealAnswersFile+") from a run on the real runtime")
	return cmd
}

// writeRealAnswers keeps the shapes of a real run's answers as the stand-in's reference.
func writeRealAnswers(root, resultsFile string) error {
	a, err := fidelity.RunAnswers(filepath.Dir(resultsFile))
	if err != nil {
		return &exitError{2, err}
	}
	if !strings.HasPrefix(a.Runtime, "real: ") || len(a.Methods) == 0 || a.Version == "" {
		return &exitError{2, fmt.Errorf("%s: not a run on the real runtime with answers (runtime %q)", resultsFile, a.Runtime)}
	}
	a.Comment = "The real runtime's answers, per method: each JSON path with its type (in every result, or in some), and the error codes. " +
		"Made by `conformance reference --real-answers RUN/results.json` from a run on the real runtime; the stand-in's answers are judged by it (internal/standin)."
	b, err := json.MarshalIndent(a, "", " ")
	if err != nil {
		return err
	}
	out := filepath.Join(root, "fixtures", fidelity.RealAnswersFile)
	if err := os.WriteFile(out, append(b, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Printf("%s: %d methods, runtime %s (%s)\n", out, len(a.Methods), a.Version, a.Runtime)
	return nil
}
