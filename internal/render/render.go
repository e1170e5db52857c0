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
)

// Renderer writes one format into the report folder.
type Renderer struct {
	File   string // the file it writes, for messages
	Render func(dir string, r *report.Results) error
}

// All are the formats a run writes, in order.
var All = []Renderer{
	{"results.json", JSON},
	{"junit.xml", JUnit},
	{"summary.md", Markdown},
	{html.FileName, html.Render},
}

// Write tallies the results and renders every format into dir.
func Write(dir string, r *report.Results) error {
	r.Tally()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, f := range All {
		if err := f.Render(dir, r); err != nil {
			return err
		}
	}
	return nil
}

// JSON writes results.json: the complete machine-readable record (what diff and merge read).
func JSON(dir string, r *report.Results) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "results.json"), append(b, '\n'), 0o644)
}
