package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/sdks"
	"github.com/spf13/cobra"
)

// sdkFacts is one recipe as `conformance sdks --json` prints it: what scripts and workflows need
// to know about a language, so that none of them lists the languages itself.
type sdkFacts struct {
	Name        string   `json:"name"`
	Order       int      `json:"order"`
	MonorepoDir string   `json:"monorepoDir,omitempty"`
	LocalBase   bool     `json:"localBase"`
	Dockerfile  string   `json:"dockerfile"`
	DriverDir   string   `json:"driverDir"`
	Registry    string   `json:"registry,omitempty"`
	Package     string   `json:"package,omitempty"`
	Pin         string   `json:"pin,omitempty"`
	Toolchain   []string `json:"toolchain"`
}

func sdksCmd() *cobra.Command {
	var asJSON, localBase bool
	cmd := &cobra.Command{
		Use:   "sdks",
		Short: "List the SDKs the harness has a recipe for (for scripts and CI)",
		Long: `Sdks prints the SDK names, comma-separated in report order; with --local-base only those
whose driver image builds on a local base image (the SDKs a machine without an image registry
can run in containers); with --json every recipe's facts: its folder in a github/copilot-sdk
checkout, whether it has a local base, its Dockerfile and driver folder, its pin and the tools
it needs. .ci/run and .github/workflows/conformance.yml read it instead of listing languages.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			names := sdks.Names()
			if localBase {
				names = sdks.LocalBases()
			}
			if !asJSON {
				fmt.Println(strings.Join(names, ","))
				return nil
			}
			root, err := repoRoot(cmd)
			if err != nil {
				return err
			}
			pins, err := sdks.LoadPins(filepath.Join(root, "fixtures", "sdks.yaml"))
			if err != nil {
				return &exitError{2, err}
			}
			out := []sdkFacts{}
			for _, n := range names {
				d, _ := sdks.Lookup(n)
				f := sdkFacts{Name: n, Order: d.Order, MonorepoDir: d.MonorepoDir, LocalBase: d.LocalBase != nil,
					Dockerfile: "docker/" + n + ".Dockerfile", DriverDir: "drivers/" + n, Toolchain: []string{}}
				if p, ok := pins[n]; ok {
					f.Registry, f.Package, f.Pin = p.Registry, p.Package, p.Version
				}
				for _, t := range d.Toolchain {
					f.Toolchain = append(f.Toolchain, t.Bin)
				}
				out = append(out, f)
			}
			enc := json.NewEncoder(os.Stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(out)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "every recipe's facts as JSON")
	cmd.Flags().BoolVar(&localBase, "local-base", false, "only the SDKs with a local base image")
	return cmd
}
