package main

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/driver"
	"github.com/copilot-sdk-conformance/conformance/internal/runner"
	"github.com/copilot-sdk-conformance/conformance/internal/runschema"
	"github.com/copilot-sdk-conformance/conformance/internal/sdks"
	"github.com/copilot-sdk-conformance/conformance/internal/surface"
	"github.com/spf13/cobra"
)

// surfaceCmd prints an SDK's application surface as its driver reads it from the SDK (every
// field and handler of its configuration types), with the wire key each session config field
// reached when the harness set it alone (found by running, package surface).
func surfaceCmd() *cobra.Command {
	var sdk, version, source string
	var timeout time.Duration
	var noProbe bool
	cmd := &cobra.Command{
		Use:   "surface --sdk NAME [--sdk-version V]",
		Short: "Print an SDK's application surface (every config field and handler, read from the SDK) with the wire key of each field",
		RunE: func(cmd *cobra.Command, args []string) error {
			root, pins, l, err := localDriver(cmd, sdk, version, source, os.Stderr)
			if err != nil {
				return err
			}
			ctx := context.Background()
			c, hello, err := driver.Handshake(ctx, l, sdk, timeout, nil)
			if err != nil {
				return &exitError{2, fmt.Errorf("%s driver: %w", sdk, err)}
			}
			defer c.Kill()
			if !hello.Capabilities["surface"] {
				return &exitError{2, fmt.Errorf("the %s driver (SDK %s) does not read its surface (capability surface): %s", sdk, hello.Version, hello.Notes["surface"])}
			}
			entries, err := surface.Read(ctx, c, timeout)
			if err != nil {
				return &exitError{1, fmt.Errorf("%s %s: %w", sdk, hello.Version, err)}
			}
			wire := map[string]string{}
			var problems []string
			var tally []surface.Tally
			if !noProbe {
				// The runtime's schema, as a run loads it, for the values of the types it defines
				// and the runtime's answers to its methods.
				l := runschema.Load(ctx, runner.Local{RepoRoot: root, CacheRoot: sdks.DefaultCacheRoot()}, pins, os.Stderr)
				live, stop, err := surface.NewLive(ctx, c, timeout, l.Answers)
				if err != nil {
					return err
				}
				if l.Gen != nil {
					live.Defs = l.Gen.Definition
					if hello.Capabilities["rpc.handlers"] {
						live.Providers = l.Gen.RuntimeMethods()
					}
				}
				live.Callbacks = hello.Capabilities["surface.callbacks"]
				if hello.Capabilities["transport.stdio"] {
					live.SpawnWith = selfArgv()
				}
				res, err := surface.Probe(live, entries)
				if err == nil {
					var client surface.Result
					client, err = surface.ProbeClient(live, entries)
					if err == nil && live.SpawnWith != nil {
						err = surface.ProbeSpawned(live, entries, &client)
					}
					res.Findings = append(res.Findings, client.Findings...)
					res.Unchecked = append(res.Unchecked, client.Unchecked...)
				}
				stop()
				if err != nil {
					return &exitError{1, fmt.Errorf("%s %s: %w", sdk, hello.Version, err)}
				}
				wire = res.WireKeys()
				problems = res.Problems()
				tally = res.Tally(entries)
			}
			printSurface(sdk, hello.Version, entries, wire, problems)
			printTally(tally)
			if len(problems) > 0 {
				return &exitError{1, fmt.Errorf("%d field values did not reach the wire as set", len(problems))}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&sdk, "sdk", "", "the SDK whose surface to print")
	cmd.Flags().StringVar(&version, "sdk-version", "", "SDK version (default the pinned one)")
	cmd.Flags().StringVar(&source, "sdk-source", "", "a local SDK folder instead of the registry")
	cmd.Flags().DurationVar(&timeout, "timeout", 60*time.Second, "longest one driver command may take")
	cmd.Flags().BoolVar(&noProbe, "no-probe", false, "only list the declared surface, without finding wire keys")
	_ = cmd.MarkFlagRequired("sdk")
	return cmd
}

func printSurface(sdk, version string, entries []surface.Entry, wire map[string]string, problems []string) {
	counts := surface.Counts(entries)
	owners := slices.Sorted(maps.Keys(counts))
	fmt.Printf("%s %s: %d entries\n", sdk, version, len(entries))
	for _, o := range owners {
		fmt.Printf("  %-14s %3d fields, %2d handlers\n", o, counts[o]["field"], counts[o]["handler"])
	}
	fmt.Println()
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "OWNER\tNAME\tKIND\tSHAPE\tTYPE\tWIRE KEY")
	for _, e := range entries {
		key := ""
		switch e.Owner {
		case "sessionConfig":
			key = wire["session.create "+e.Key()]
		case "resumeConfig":
			key = wire["session.resume "+e.Key()]
		case "clientOptions":
			key = wire["connect "+e.Key()]
		}
		if e.Owner != "sessionConfig" && e.Owner != "resumeConfig" && e.Owner != "clientOptions" {
			// A definition's field: where it went inside each field holding the definition.
			var at []string
			for k, v := range wire {
				_, field, _ := strings.Cut(k, " ")
				holder, _, _ := strings.Cut(field, ".")
				if o := surface.Normalize(e.Owner); strings.HasSuffix(k, "."+e.Key()) && (holder == o || holder == o+"s") {
					at = append(at, k[:strings.Index(k, " ")]+": "+v)
				}
			}
			sort.Strings(at)
			key = strings.Join(slices.Compact(at), "; ")
		}
		if key == "" && len(wire) > 0 && (e.Owner == "sessionConfig" || e.Owner == "resumeConfig") {
			key = "(not probed: no generated value for " + e.Shape + ")"
		}
		t := e.Type
		if len(t) > 50 {
			t = t[:47] + "..."
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", e.Owner, e.Name, e.Kind, e.Shape, t, key)
	}
	tw.Flush()
	if len(problems) > 0 {
		fmt.Printf("\n%d field values did not reach the wire as set:\n  %s\n", len(problems), strings.Join(problems, "\n  "))
	}
}

// printTally is the account a reader checks "every inventoried field has a generated check"
// against: per owner, the fields declared and the fields checked, and why each other has none.
func printTally(tally []surface.Tally) {
	if len(tally) == 0 {
		return
	}
	fields, checked := 0, 0
	for _, t := range tally {
		fields += t.Fields
		checked += t.Checked
	}
	fmt.Printf("\nGenerated checks: %d of %d inventoried fields\n", checked, fields)
	for _, t := range tally {
		fmt.Printf("  %-14s %3d of %3d fields\n", t.Owner, t.Checked, t.Fields)
		for _, u := range t.Unchecked {
			fmt.Printf("      %s: %s\n", u.Entry.Name, u.Reason)
		}
	}
}
