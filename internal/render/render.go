// Package render turns a run's records (report.Results) into report files. Every format is a
// function over the same records and the report folder, so a new format (or a merge of
// several runs) is one more function in All, never a change to how a run collects results.
package render

import (
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/report/html"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
)

// Renderer writes one format into the report folder (the store's folder), reading any
// transcript it shows from the store.
type Renderer struct {
	File   string // the file it writes, for messages
	Render func(ts *transcript.Store, r *report.Results) error
}

// in adapts a renderer that needs only the folder.
func in(f func(dir string, r *report.Results) error) func(*transcript.Store, *report.Results) error {
	return func(ts *transcript.Store, r *report.Results) error { return f(ts.Dir(), r) }
}

// All are the formats a run writes, in order.
var All = []Renderer{
	{"results.json", in(JSON)},
	{"junit.xml", in(JUnit)},
	{"summary.md", in(Markdown)},
	{html.FileName, html.RenderFrom},
}

// Write tallies the results and renders every format into dir.
func Write(dir string, r *report.Results) error { return WriteFrom(transcript.NewStore(dir), r) }

// WriteFrom tallies the results and renders every format into the store's folder.
func WriteFrom(ts *transcript.Store, r *report.Results) error {
	dir := ts.Dir()
	r.Tally()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, f := range All {
		if err := f.Render(ts, r); err != nil {
			return err
		}
	}
	return nil
}

// JSON writes results.json: the complete machine-readable record (what diff and merge read).
func JSON(dir string, r *report.Results) error {
	// An empty list is [] (a run interrupted before its first result): diff, merge and replay
	// refuse a null where a list belongs (report.Load).
	if r.Results == nil {
		r.Results = []report.Result{}
	}
	if r.SDKs == nil {
		r.SDKs = []report.SDK{}
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "results.json"), append(b, '\n'), 0o644)
}
