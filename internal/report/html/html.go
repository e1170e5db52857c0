// Package html writes report.html: one self-contained page (inline CSS and JS, the results and
// transcripts embedded as JSON, nothing fetched when it is viewed) with the scenario × SDK
// matrix, each cell opening its transcript as a conversation and a side-by-side diff of a
// request against another SDK's.
//
// Everything shown comes from the SDKs and is untrusted: the data is embedded with
// encoding/json's HTML escaping (so no "</script>" can end the data block) and the page's script
// only ever sets textContent, never markup built from the data.
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
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
)

// FileName is the page written beside summary.md.
const FileName = "report.html"

//go:embed page.css
var css string

//go:embed page.js
var js string

// page is what the script reads.
type page struct {
	Harness     report.Harness      `json:"harness"`
	SDKs        []report.SDK        `json:"sdks"`
	Results     []result            `json:"results"`
	Comparisons []report.Comparison `json:"comparisons"`
	// Transcripts are indexed by result.Transcript.
	Transcripts [][]transcript.Entry `json:"transcripts"`
}

type result struct {
	report.Result
	TranscriptIndex int    `json:"transcriptIndex"` // -1: none
	TranscriptError string `json:"transcriptError,omitempty"`
}

// Render writes dir/report.html for res, reading each result's transcript from dir.
func Render(dir string, res *report.Results) error { return RenderFrom(transcript.NewStore(dir), res) }

// RenderFrom writes report.html into the store's folder, taking each transcript from the store
// (read once for the whole finish of a run).
func RenderFrom(ts *transcript.Store, res *report.Results) error {
	dir := ts.Dir()
	res = report.ByTarget(res) // the matrix has a column per SDK@version when a run has several
	p := page{Harness: res.Harness, SDKs: res.SDKs, Comparisons: res.Comparisons}
	loaded := map[string]int{}
	for _, r := range res.Results {
		out := result{Result: r, TranscriptIndex: -1}
		if r.Transcript != "" {
			if i, ok := loaded[r.Transcript]; ok {
				out.TranscriptIndex = i
			} else if es, err := ts.Read(r.Transcript); err == nil {
				loaded[r.Transcript] = len(p.Transcripts)
				out.TranscriptIndex = len(p.Transcripts)
				p.Transcripts = append(p.Transcripts, es)
			} else if errors.Is(err, fs.ErrNotExist) {
				out.TranscriptError = "transcript file missing: " + r.Transcript
			} else {
				out.TranscriptError = err.Error()
			}
		}
		p.Results = append(p.Results, out)
	}
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
	// No network at view time: a CSP that allows only what is inline.
	b.WriteString("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n")
	fmt.Fprintf(&b, "<title>%s</title>\n<style>\n%s</style>\n</head><body>\n", escapeText(title), css)
	b.WriteString(`<header><h1>Conformance report</h1><p id="meta"></p></header>
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

func escapeText(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}
