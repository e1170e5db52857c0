package render

import (
	"compress/gzip"
	"encoding/json"
	"maps"
	"os"
	"strings"
	"testing"

	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fullRun is the results.json of a full run on the pins (node, go, python, java, every feature:
// 612 results, the sweeps, the surface matrix, the coverage), as `conformance run` wrote it.
func fullRun(t *testing.T) *report.Results {
	t.Helper()
	f, err := os.Open("testdata/full-run.results.json.gz")
	require.NoError(t, err)
	defer f.Close()
	z, err := gzip.NewReader(f)
	require.NoError(t, err)
	var r report.Results
	require.NoError(t, json.NewDecoder(z).Decode(&r))
	require.Len(t, r.SDKs, 4)
	require.Greater(t, len(r.Results), 600, "a full run's results, not a small run's")
	return &r
}

func TestSummaryOfAFullRun(t *testing.T) {
	md := MarkdownText(fullRun(t))
	if p := os.Getenv("SUMMARY_OUT"); p != "" { // to read what the test holds
		require.NoError(t, os.WriteFile(p, []byte(md), 0o644))
	}
	t.Logf("summary.md of the full run: %d bytes", len(md))
	assert.LessOrEqual(t, len(md), MaxSummaryBytes)
	assert.LessOrEqual(t, len(md), 15*1024, "room for a fifth and a sixth SDK under MaxSummaryBytes")
	assert.NotContains(t, md, "Left out to keep this summary", "every section fits")

	lines := strings.SplitN(md, "\n", 4)
	assert.Equal(t, "# Copilot SDK conformance", lines[0])
	assert.True(t, strings.HasPrefix(lines[2], "✅ **PASS**: every result passed or failed only as known. 498 passed, 56 xfail, 58 unsupported."), "the verdict first: %s", lines[2])

	// What a section collapses says how much there is and where the rest is.
	for _, tc := range []struct{ section, want string }{
		{"## Expected failures", "56 results failed as their manifest entry"},
		{"## Expected failures", "| session/options | 16 | go 8, python 2, java 6 |"},
		{"## Expected failures", "more features | "},
		{"## Expected failures", "`expected`, `message` in results.json"},
		{"## Expected failures", "(schema/generated_events): go 26, python 2, java 600: generated events did not reach the application"},
		{"## Expected failures", "more scenarios on several SDKs"},
		{"## Cross-SDK field differences", "8 fields: 8 xfail."},
		{"## Cross-SDK field differences", "4 more (every key whole, with the reason): `crossSDK` in results.json."},
		{"## Payload differences", "more rows | | `comparisons` in results.json |"},
		{"## Payload differences", "more groups | `comparisons` in results.json, or report.html |"},
		{"## Payload differences", "more, each in fewer scenarios: `comparisons` in results.json, or report.html."},
		{"## How the SDKs differ", "more, and each fact whole: a result's `observations` in results.json, or its cell in report.html."},
		{"## Not run", "more lines ("},
		{"## Runtime schema\n", "more: each result's `schemaViolations` in results.json."},
		{"## Runtime schema coverage", "more kinds of use: `coverage.exercised` in results.json"},
		{"## Runtime schema coverage", "- node, go: no public handler API"},
		{"## Application surface", "| java | 122 | 5 |"},
		{"## Application surface", "`observations` of each SDK's surface/fields result in results.json"},
		{"## Timing", "| python | 1 | 24.7 s |"},
	} {
		t.Run(tc.section+": "+tc.want, func(t *testing.T) {
			_, rest, ok := strings.Cut(md, "\n"+tc.section)
			require.True(t, ok, "the summary has %s", tc.section)
			section, _, _ := strings.Cut(rest, "\n## ")
			assert.Contains(t, section, tc.want)
		})
	}
	order := []string{"**PASS**", "## Features by SDK", "## Expected failures", "## Cross-SDK field differences", "## Payload differences", "## How the SDKs differ", "## Not run", "## Runtime schema\n", "## Runtime schema coverage", "## Timing", "## Application surface"}
	for i := 1; i < len(order); i++ {
		assert.Less(t, strings.Index(md, order[i-1]), strings.Index(md, order[i]), "%s comes before %s", order[i-1], order[i])
	}
}

// sixSDKs is the full run with two more SDKs: copies of node's and go's results, sdks[] entries,
// timing and coverage under other names (a run of every SDK the harness has a recipe for).
func sixSDKs(r *report.Results) *report.Results {
	for _, c := range []struct{ from, to string }{{"node", "rust"}, {"go", "dotnet"}} {
		for _, s := range r.SDKs {
			if s.Name == c.from {
				s.Name = c.to
				r.SDKs = append(r.SDKs, s)
			}
		}
		for _, x := range r.Results {
			if x.SDK == c.from {
				x.SDK = c.to
				r.Results = append(r.Results, x)
			}
		}
		for _, tm := range r.Timing {
			if tm.SDK == c.from {
				tm.SDK = c.to
				r.Timing = append(r.Timing, tm)
			}
		}
		for i := range r.Comparisons {
			cmp := &r.Comparisons[i]
			cmp.SDKs = append(cmp.SDKs, c.to)
			for j := range cmp.Differences {
				d := &cmp.Differences[j]
				vals := maps.Clone(d.Values)
				if v, ok := vals[c.from]; ok {
					vals[c.to] = v + " (" + c.to + ")"
				}
				d.Values = vals
			}
		}
		if r.Coverage != nil {
			for _, s := range r.Coverage.SDKs {
				if s.SDK == c.from {
					s.SDK = c.to
					r.Coverage.SDKs = append(r.Coverage.SDKs, s)
				}
			}
			for _, s := range r.Coverage.Sweep {
				if s.SDK == c.from {
					s.SDK = c.to
					r.Coverage.Sweep = append(r.Coverage.Sweep, s)
				}
			}
		}
	}
	r.Tally()
	return r
}

func TestSummaryOfAFullRunOfMoreSDKs(t *testing.T) {
	md := MarkdownText(sixSDKs(fullRun(t)))
	t.Logf("summary.md of the full run on 6 SDKs: %d bytes", len(md))
	assert.LessOrEqual(t, len(md), MaxSummaryBytes)
	assert.NotContains(t, md, "Left out to keep this summary", "every section fits, capped")
	assert.Contains(t, md, "| rust | 1.0.14 | 140 passed, 6 xfail, 7 unsupported |")
	assert.Contains(t, md, "## Application surface")
}
