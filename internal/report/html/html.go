// Package html writes report.html: a page (inline CSS and JS, the results embedded as JSON,
// nothing fetched from the network when it is viewed) with the scenario × SDK matrix, each cell
// opening its transcript as a conversation and a side-by-side diff of a request against another
// SDK's.
//
// The transcripts are most of a run's bytes (tens of MB for a full run), so they are not in the
// page: each is one small script, report-transcripts/<n>.js beside the page, which the page adds
// as a <script> element when a cell is opened and which hands its entries to the page. A script
// element rather than fetch() because Chromium blocks fetch() and XHR of file:// URLs, and the
// page must open from a report folder on disk.
//
// Everything shown comes from the SDKs and is untrusted: the data is written with encoding/json
// (HTML-escaped, and U+2028/U+2029 escaped, so a JSON value is a JavaScript literal and no
// "</script>" can end the data block) and the page's script only ever sets textContent, never
// markup built from the data.
package html

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/compare"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
)

// FileName is the page written beside summary.md.
const FileName = "report.html"

// TranscriptDir holds the page's transcripts, one script per transcript, beside the page.
const TranscriptDir = "report-transcripts"

// loader is the function each transcript script calls with its index and entries.
const loader = "__conformanceTranscript"

//go:embed page.css
var css string

//go:embed page.js
var js string

// page is what the script reads, and only that: the run's comparisons and each result's checked
// values (most of the rest of results.json) are not shown, the page diffs requests itself.
type page struct {
	Harness report.Harness `json:"harness"`
	SDKs    []report.SDK   `json:"sdks"`
	Results []result       `json:"results"`
	// Transcripts is how many scripts TranscriptDir holds; result.TranscriptIndex names one.
	Transcripts int `json:"transcripts"`
	// TranscriptDir is where they are, relative to the page.
	TranscriptDir string `json:"transcriptDir"`
}

type result struct {
	report.Result
	TranscriptIndex int    `json:"transcriptIndex"` // -1: none
	TranscriptError string `json:"transcriptError,omitempty"`
	// RequestKeys names each request of the transcript (by its entry's seq) as the cross-SDK
	// comparison pairs it (compare.Align, against the scenario's first SDK): the page's side
	// by side view shows a request against the other SDK's request of the same key.
	RequestKeys map[int]string `json:"requestKeys,omitempty"`
}

// Render writes dir/report.html for res, reading each result's transcript from dir.
func Render(dir string, res *report.Results) error { return RenderFrom(transcript.NewStore(dir), res) }

// RenderFrom writes report.html into the store's folder, taking each transcript from the store
// (read once for the whole finish of a run).
func RenderFrom(ts *transcript.Store, res *report.Results) error {
	dir := ts.Dir()
	res = report.ByTarget(res) // the matrix has a column per SDK@version when a run has several
	p := page{Harness: res.Harness, SDKs: res.SDKs, TranscriptDir: TranscriptDir}
	scripts := filepath.Join(dir, TranscriptDir)
	if err := os.RemoveAll(scripts); err != nil { // a previous render's transcripts
		return fmt.Errorf("report.html: %w", err)
	}
	if err := os.MkdirAll(scripts, 0o755); err != nil {
		return fmt.Errorf("report.html: %w", err)
	}
	loaded := map[string]int{}
	requests := map[string][]compare.Request{} // transcript -> its requests
	for _, r := range res.Results {
		out := result{Result: r, TranscriptIndex: -1}
		out.Checked = nil // not shown
		if r.Transcript != "" {
			if i, ok := loaded[r.Transcript]; ok {
				out.TranscriptIndex = i
			} else if es, err := ts.Read(r.Transcript); err == nil {
				if err := writeTranscript(scripts, p.Transcripts, es); err != nil {
					return err
				}
				loaded[r.Transcript] = p.Transcripts
				requests[r.Transcript] = compare.RequestList(es)
				out.TranscriptIndex = p.Transcripts
				p.Transcripts++
			} else if errors.Is(err, fs.ErrNotExist) {
				out.TranscriptError = "transcript file missing: " + r.Transcript
			} else {
				out.TranscriptError = err.Error()
			}
		}
		p.Results = append(p.Results, out)
	}
	requestKeys(res.Results, p.Results, requests)
	data, err := json.Marshal(p) // escapes <, > and & as \u003c…: nothing can close the script element
	if err != nil {
		return fmt.Errorf("report.html: %w", err)
	}
	var b bytes.Buffer
	title := "Conformance report"
	if res.Harness.StartedAt != "" {
		title += " " + res.Harness.StartedAt
	}
	b.WriteString("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n")
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	// No network at view time: a CSP that allows only what is inline and the page's own
	// transcript scripts ('self'; file: for a page opened from disk, whose origin is opaque).
	b.WriteString("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline' 'self' file:; img-src data:\">\n")
	fmt.Fprintf(&b, "<title>%s</title>\n<style>\n%s</style>\n</head><body>\n", escapeText(title), css)
	b.WriteString(`<header><h1>Conformance report</h1><p id="meta"></p>`)
	// An incomplete run says so before anything else (written here, escaped: the page's script
	// shows only what ran).
	if c := res.Completeness; res.Incomplete() {
		fmt.Fprintf(&b, "\n<div id=\"incomplete\" role=\"alert\"><strong>%s</strong><ul>", escapeText(c.Headline()))
		for i, m := range c.Missing {
			if i == 50 {
				fmt.Fprintf(&b, "<li>and %d more: completeness.missing in results.json</li>", len(c.Missing)-i)
				break
			}
			fmt.Fprintf(&b, "<li>%s</li>", escapeText(fmt.Sprintf("%s / %s on %s: %s", m.Feature, m.Scenario, report.Target(m.SDK, m.Version), m.Reason)))
		}
		b.WriteString("</ul></div>")
	}
	b.WriteString(`</header>
<section id="filters"></section>
<section id="totals"></section>
<main><table id="matrix"></table></main>
<aside id="detail" hidden></aside>
<script id="data" type="application/json">`)
	b.Write(data)
	b.WriteString("</script>\n<script>\n")
	b.WriteString(js)
	b.WriteString("</script>\n</body></html>\n")
	return os.WriteFile(filepath.Join(dir, FileName), b.Bytes(), 0o644)
}

// requestKeys sets each result's RequestKeys: per scenario, every SDK's requests keyed as the
// cross-SDK comparison keys them (compare.Scenarios: against the first SDK by name, the order
// kept only where a feature checks it), so the page pairs what the comparison pairs.
func requestKeys(in []report.Result, out []result, requests map[string][]compare.Request) {
	type scenario struct{ feature, name string }
	groups := map[scenario][]int{}
	for i, r := range in {
		if _, ok := requests[r.Transcript]; ok {
			k := scenario{r.Feature, r.Scenario}
			groups[k] = append(groups[k], i)
		}
	}
	for _, idx := range groups {
		sort.SliceStable(idx, func(a, b int) bool { return in[idx[a]].SDK < in[idx[b]].SDK })
		checked := map[report.Check]bool{}
		for _, i := range idx {
			for _, c := range in[i].Checked {
				checked[c] = true
			}
		}
		ref := requests[in[idx[0]].Transcript]
		for n, i := range idx {
			list := requests[in[i].Transcript]
			bk, ck := compare.Align(ref, list, compare.Ordered(checked))
			keys := ck
			if n == 0 {
				keys = bk
			}
			out[i].RequestKeys = map[int]string{}
			for j, k := range keys {
				out[i].RequestKeys[list[j].Seq] = k
			}
		}
	}
}

// writeTranscript writes TranscriptDir/<i>.js: one call handing the page transcript i.
func writeTranscript(dir string, i int, entries []transcript.Entry) error {
	if entries == nil {
		entries = []transcript.Entry{}
	}
	data, err := json.Marshal(entries) // a JSON value is a JavaScript literal (see the package comment)
	if err != nil {
		return fmt.Errorf("report.html: transcript %d: %w", i, err)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s(%d,", loader, i)
	b.Write(data)
	b.WriteString(");\n")
	return os.WriteFile(filepath.Join(dir, fmt.Sprintf("%d.js", i)), b.Bytes(), 0o644)
}

func escapeText(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}
