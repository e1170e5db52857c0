package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/sdks"
	"github.com/spf13/cobra"
)

func prepareCmd() *cobra.Command {
	var sdk, version, source, cache, launchFile string
	cmd := &cobra.Command{
		Use:   "prepare --sdk SDK [--sdk-version V | --sdk-source PATH] [--launch FILE]",
		Short: "Prepare one SDK's driver on this machine (install and build it into the cache) and print how to start it",
		Long: `Prepare runs the SDK's recipe (internal/sdks) as a run does before its first scenario: the SDK
at its pin (or --sdk-version, or the local --sdk-source) installed and the driver built into the
cache, reused when nothing changed. It prints the driver's launch (argv, folder, environment) as
JSON, or writes it to --launch. docker/source.Dockerfile runs it inside the language's build
image, which is how --runner docker builds a driver from a local source.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			root, err := repoRoot(cmd)
			if err != nil {
				return err
			}
			if version == "" {
				pins, err := sdks.LoadPins(root + "/fixtures/sdks.yaml")
				if err != nil {
					return &exitError{2, err}
				}
				version = pins[sdk].Version
			}
			if cache == "" {
				cache = sdks.DefaultCacheRoot()
			}
			// As run writes it: --sdk-source LANG=PATH names this SDK's source.
			if lang, path, ok := strings.Cut(source, "="); ok && lang == sdk {
				source = path
			}
			prep, err := (&sdks.Preparer{RepoRoot: root, CacheRoot: cache, Log: os.Stdout}).Prepare(cmd.Context(), sdk, version, source)
			if err != nil {
				return &exitError{1, err}
			}
			b, _ := json.MarshalIndent(prep.Launch, "", "  ")
			if launchFile == "" {
				fmt.Println(string(b))
				return nil
			}
			return os.WriteFile(launchFile, b, 0o644)
		},
	}
	cmd.Flags().StringVar(&sdk, "sdk", "", "the SDK")
	cmd.Flags().StringVar(&version, "sdk-version", "", "the SDK version (default: its pin in fixtures/sdks.yaml)")
	cmd.Flags().StringVar(&source, "sdk-source", "", "a local SDK source instead of the registry")
	cmd.Flags().StringVar(&cache, "cache", "", "the preparation cache (default $CONFORMANCE_CACHE or the user's cache folder)")
	cmd.Flags().StringVar(&launchFile, "launch", "", "write the launch JSON here instead of printing it")
	_ = cmd.MarkFlagRequired("sdk")
	return cmd
}

// execDriverCmd starts a prepared driver in place of this process: the entrypoint of a source
// image (docker/source.Dockerfile), whose launch the recipe chose at build time.
func execDriverCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "exec-driver LAUNCH.json",
		Short:  "Replace this process with the driver a launch file describes (a source image's entrypoint)",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			b, err := os.ReadFile(args[0])
			if err != nil {
				return &exitError{2, err}
			}
			var l sdks.Launch
			if err := json.Unmarshal(b, &l); err != nil || len(l.Argv) == 0 {
				return &exitError{2, fmt.Errorf("%s: not a driver launch (%v)", args[0], err)}
			}
			bin, err := exec.LookPath(l.Argv[0])
			if err != nil {
				return &exitError{2, err}
			}
			if l.Dir != "" {
				if err := os.Chdir(l.Dir); err != nil {
					return &exitError{2, err}
				}
			}
			// exec, not a child: the driver's stdin, stdout and exit are the container's.
			return execProcess(bin, l.Argv, append(os.Environ(), l.Env...))
		},
	}
}
