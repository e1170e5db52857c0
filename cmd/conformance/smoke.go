package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/driver"
	"github.com/spf13/cobra"
)

func smokeCmd() *cobra.Command {
	var sdk, version, source string
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "smoke --sdk NAME",
		Short: "Check that a driver speaks the protocol: hello, capabilities, one session, clean shutdown",
		RunE: func(cmd *cobra.Command, args []string) error {
			root, _, l, err := localDriver(cmd, sdk, version, source, os.Stdout)
			if err != nil {
				return err
			}
			v, err := driver.LoadValidator(filepath.Join(root, "drivers", "protocol.schema.json"))
			if err != nil {
				return &exitError{2, err}
			}
			if err := driver.Smoke(context.Background(), l, sdk, timeout, v, os.Stdout); err != nil {
				return &exitError{1, fmt.Errorf("smoke test of %s failed: %w", sdk, err)}
			}
			fmt.Printf("smoke test of %s passed\n", sdk)
			return nil
		},
	}
	cmd.Flags().StringVar(&sdk, "sdk", "", "the SDK whose driver to check")
	cmd.Flags().StringVar(&version, "sdk-version", "", "SDK version (default the pinned one)")
	cmd.Flags().StringVar(&source, "sdk-source", "", "a local SDK folder instead of the registry")
	cmd.Flags().DurationVar(&timeout, "timeout", 60*time.Second, "longest one command may take")
	_ = cmd.MarkFlagRequired("sdk")
	return cmd
}
