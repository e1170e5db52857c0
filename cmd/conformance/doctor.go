package main

import (
	"fmt"
	"os"
	"path/filepath"
	"text/tabwriter"

	"github.com/copilot-sdk-conformance/conformance/internal/container"
	"github.com/copilot-sdk-conformance/conformance/internal/sdks"
	"github.com/spf13/cobra"
)

func doctorCmd() *cobra.Command {
	var docker, dockerClean bool
	cmd := &cobra.Command{
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
			if err := w.Flush(); err != nil {
				return err
			}
			for _, name := range sdks.Names() {
				if d, ok := sdks.Lookup(name); ok && d.Newer != "" {
					fmt.Printf("\n%s (pinned %s): %s\n", name, pins[name].Version, d.Newer)
				}
			}
			if docker || dockerClean {
				return doctorDocker(cmd, dockerClean)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&docker, "docker", false, "also list the containers, networks and untagged images runs left in the Docker engine ($DOCKER_HOST)")
	cmd.Flags().BoolVar(&dockerClean, "docker-clean", false, "remove what --docker lists (the cached driver and base images stay)")
	return cmd
}

// doctorDocker lists (and with clean removes) what runs with --runner docker left behind: found by
// their labels, so an interrupted run's containers are found too.
func doctorDocker(cmd *cobra.Command, clean bool) error {
	pool, err := container.Connect(cmd.Context())
	if err != nil {
		return &exitError{2, err}
	}
	items, err := container.Leftovers(pool, "")
	if err != nil {
		return &exitError{2, err}
	}
	fmt.Printf("\ndocker (%s): ", pool.Client.Endpoint())
	if len(items) == 0 {
		fmt.Println("nothing left by a run")
		return nil
	}
	fmt.Printf("%d left by runs\n", len(items))
	w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "KIND\tID\tRUN\tNAME")
	for _, it := range items {
		id := it.ID
		if len(id) > 19 {
			id = id[:19]
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", it.Kind, id, it.RunID, it.Name)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if !clean {
		fmt.Println("remove them with: conformance doctor --docker-clean")
		return nil
	}
	if err := container.Remove(pool, items); err != nil {
		return &exitError{1, err}
	}
	fmt.Printf("removed %d\n", len(items))
	return nil
}
