package main

import (
	"fmt"
	"os"
	"path/filepath"
	"text/tabwriter"

	"github.com/copilot-sdk-conformance/conformance/internal/sdks"
	"github.com/spf13/cobra"
)

func doctorCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "doctor",
		Short: "Say which SDK toolchains and versions are present, and how to get what is missing",
		RunE: func(cmd *cobra.Command, args []string) error {
			_, pins, err := rootAndPins(cmd)
			if err != nil {
				return err
			}
			cache := sdks.DefaultCacheRoot()
			w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "SDK\tSTATUS\tPINNED SDK\tTOOLCHAIN / WHAT IS MISSING")
			for _, name := range sdks.Names() {
				d, ok := sdks.Lookup(name)
				pin := pins[name]
				if !ok {
					fmt.Fprintf(w, "%s\tunavailable\t%s %s %s\tno driver recipe in this build\n", name, pin.Registry, pin.Package, pin.Version)
					continue
				}
				tc, err := sdks.CheckToolchain(d)
				status, detail := "available", fmt.Sprint(tc)
				if err != nil {
					status, detail = "unavailable", err.Error()
				} else if cached, _ := filepath.Glob(filepath.Join(cache, name, "*", "prepared.json")); len(cached) == 0 {
					detail += " (driver not prepared yet: the first run installs it)"
				}
				fmt.Fprintf(w, "%s\t%s\t%s %s %s\t%s\n", name, status, pin.Registry, pin.Package, pin.Version, detail)
			}
			fmt.Fprintf(w, "\ncache: %s\n", cache)
			return w.Flush()
		},
	}
}
