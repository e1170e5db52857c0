package main

import (
	"encoding/json"
	"fmt"
	"os"
	"text/tabwriter"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/sdks"
	"github.com/spf13/cobra"
)

func cacheCmd() *cobra.Command {
	var prune, all, asJSON bool
	var unusedFor time.Duration
	cmd := &cobra.Command{
		Use:   "cache",
		Short: "List the prepared drivers in the cache, and prune the ones nothing will reuse",
		Long: `Cache lists every driver preparation in the cache ($CONFORMANCE_CACHE or the user's cache
folder, copilot-sdk-conformance): SDK, version or source, size, last use, and whether a run from
this checkout reuses it. A preparation is stale when it was built from other driver code than this
checkout's, from a local source folder that is gone, or never finished.

--prune removes the stale preparations not used for --unused-for (default 24h: a run that is using
a preparation holds no lock on it, so a recent one is left alone); --all removes current ones too.
The shared build folders beside the preparations (cargo's target folders, docker's) are kept.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			root, err := repoRoot(cmd)
			if err != nil {
				return err
			}
			p := &sdks.Preparer{RepoRoot: root, CacheRoot: sdks.DefaultCacheRoot(), Log: os.Stderr}
			entries, err := p.CacheEntries()
			if err != nil {
				return err
			}
			if prune {
				cutoff := time.Now().Add(-unusedFor)
				removed, freed, err := p.PruneCache(entries, func(e sdks.CacheEntry) bool {
					return (all || e.Stale() != "") && e.LastUse.Before(cutoff)
				}, os.Stderr)
				for _, e := range removed {
					fmt.Printf("removed %s (%s, %s)\n", e.Dir, size(e.Bytes), orCurrent(e.Stale()))
				}
				fmt.Printf("pruned %d preparations, %s freed\n", len(removed), size(freed))
				return err
			}
			if asJSON {
				enc := json.NewEncoder(os.Stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(entries)
			}
			w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "SDK\tVERSION\tSIZE\tLAST USE\tSTATE\tFOLDER")
			var total, stale int64
			for _, e := range entries {
				what := e.Version
				if e.Source != "" {
					what = "source " + e.Source
				}
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\n", e.SDK, what, size(e.Bytes), e.LastUse.Format(time.DateTime), orCurrent(e.Stale()), e.Dir)
				total += e.Bytes
				if e.Stale() != "" {
					stale += e.Bytes
				}
			}
			_ = w.Flush()
			fmt.Printf("%d preparations, %s (%s stale: `conformance cache --prune`)\n", len(entries), size(total), size(stale))
			return nil
		},
	}
	cmd.Flags().BoolVar(&prune, "prune", false, "remove the stale preparations not used for --unused-for")
	cmd.Flags().BoolVar(&all, "all", false, "with --prune: remove current preparations too")
	cmd.Flags().DurationVar(&unusedFor, "unused-for", 24*time.Hour, "with --prune: only preparations whose last use is older than this")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the entries as JSON")
	return cmd
}

func orCurrent(stale string) string {
	if stale == "" {
		return "current"
	}
	return "stale: " + stale
}

func size(b int64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20))
	}
	return fmt.Sprintf("%d KiB", b>>10)
}
