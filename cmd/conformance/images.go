package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/container"
	"github.com/copilot-sdk-conformance/conformance/internal/sdks"
	"github.com/spf13/cobra"
)

// imagesCmd builds the container images of --runner docker ahead of a run: the local base images
// (for machines without an image registry) and the driver images at the pinned SDK versions.
func imagesCmd() *cobra.Command {
	var localBases, drivers bool
	var sdkList string
	cmd := &cobra.Command{
		Use:   "images",
		Short: "Build the container images of --runner docker (local bases without a registry; driver images)",
		Long: "Builds, on the engine at $DOCKER_HOST (docker/engine.sh start runs one), the images that\n" +
			"`--runner docker` uses. --local-bases builds a Debian 12 root with debootstrap and one base\n" +
			"image per language from docker/local/, standing in for the official images the Dockerfiles\n" +
			"default to. --drivers builds each SDK's driver image at its pinned version (on the local\n" +
			"bases when --local-bases is given). Images whose content did not change are reused.",
		RunE: func(cmd *cobra.Command, args []string) error {
			if !localBases && !drivers {
				return &exitError{2, fmt.Errorf("say what to build: --local-bases and/or --drivers")}
			}
			root, pins, err := rootAndPins(cmd)
			if err != nil {
				return err
			}
			var langs []string
			if sdkList != "" {
				langs = strings.Split(sdkList, ",")
			}
			pool, err := container.Connect(cmd.Context())
			if err != nil {
				return &exitError{2, err}
			}
			if localBases {
				start := time.Now()
				b := &container.Bases{RepoRoot: root, WorkDir: filepath.Join(sdks.DefaultCacheRoot(), "docker"), Log: os.Stdout}
				var baseLangs []string
				for _, l := range langs {
					if _, ok := container.LocalBuildArgs(l); ok {
						baseLangs = append(baseLangs, l)
					} else {
						fmt.Printf("%s: no local base (it needs its vendor's registry); skipped\n", l)
					}
				}
				if len(langs) > 0 && len(baseLangs) == 0 {
					return nil
				}
				if err := b.Ensure(cmd.Context(), pool, baseLangs); err != nil {
					return &exitError{1, err}
				}
				fmt.Printf("local bases ready in %s\n", time.Since(start).Round(time.Second))
			}
			if drivers {
				if len(langs) == 0 {
					langs = sdks.Names()
				}
				for _, l := range langs {
					pin, ok := pins[l]
					if !ok {
						return &exitError{2, fmt.Errorf("unknown SDK %q (known: %s)", l, strings.Join(sdks.Names(), ", "))}
					}
					img := container.DriverImage{SDK: l, Version: pin.Version, RepoRoot: root, Log: os.Stdout}
					if localBases {
						args, ok := container.LocalBuildArgs(l)
						if !ok {
							fmt.Printf("%s: unavailable: no local base image (its official base needs a registry)\n", l)
							continue
						}
						img.BuildArgs = args
					}
					start := time.Now()
					tag, err := img.Ensure(cmd.Context(), pool)
					if err != nil {
						return &exitError{1, err}
					}
					fmt.Printf("%s: %s ready in %s\n", l, tag, time.Since(start).Round(time.Second))
				}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVar(&localBases, "local-bases", false, "build the local base images (Debian 12 from debootstrap, plus each language's toolchain)")
	f.BoolVar(&drivers, "drivers", false, "build the driver images at the pinned SDK versions")
	f.StringVar(&sdkList, "sdk", "", "comma-separated languages (default: all)")
	return cmd
}
