package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/compare"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/spf13/cobra"
)

func referenceCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "reference RUN/results.json",
		Short: "Record the pinned SDKs' surface observations as the reference other runs compare with",
		Long: `Reference writes fixtures/reference/surface.json from a run of the pinned SDKs: where each
field of each SDK's surface went when set alone (the surface scenarios' observations). A run that
leaves an SDK out (one SDK, a release candidate, an older version, a checkout) compares the SDKs
it ran with these, so the cross-SDK judgement of every field's key, place and shape holds in
every run. Make it after a pin moves:

  conformance run features/surface --report-dir reports/pins
  conformance reference reports/pins/results.json

Exit status: 0 written, 2 when the run is not of the pins or has no surface observations.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			root, pins, err := rootAndPins(cmd)
			if err != nil {
				return err
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
}
