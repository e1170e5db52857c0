package render

import (
	"fmt"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/report"
)

// schemaCoverage is summary.md's compact view of report.Coverage: per SDK how many of the
// schema's methods it sent and answered, one line per exercised method (who, and from which
// features), and how many methods nothing exercised (their list is results.json's
// coverage.unexercised).
func schemaCoverage(r *report.Results) string {
	c := r.Coverage
	if c == nil || len(c.Exercised) == 0 {
		return ""
	}
	var b strings.Builder
	inSchema := map[string]bool{}
	for _, u := range c.Exercised {
		if u.InSchema {
			inSchema[u.Method] = true
		}
	}
	b.WriteString("\n## Runtime schema coverage\n\n")
	if c.Methods > 0 {
		fmt.Fprintf(&b, "%d of the schema's %d methods exercised (sent by an SDK, or a runtime request an SDK answered); "+
			"**%d never exercised** (listed in results.json, `coverage.unexercised`).\n\n", len(inSchema), c.Methods, len(c.Unexercised))
	} else {
		b.WriteString("No runtime schema was loaded: the methods below are what the SDKs exercised.\n\n")
	}
	b.WriteString("| SDK | methods sent | requests answered |\n|---|---|---|\n")
	for _, s := range c.SDKs {
		fmt.Fprintf(&b, "| %s | %d | %d |\n", cell(s.SDK), s.Sent, s.Answered)
	}
	b.WriteString("\n| method | | SDKs | features |\n|---|---|---|---|\n")
	for _, u := range c.Exercised {
		method := "`" + u.Method + "`"
		if !u.InSchema && c.Methods > 0 {
			method += " (not in the schema)"
		}
		sdks := strings.Join(u.SDKs, ", ")
		if len(u.SDKs) == len(c.SDKs) {
			sdks = "all"
		}
		features := strings.Join(u.Features, ", ")
		if len(u.Features) > 2 { // the summary stays short; results.json lists them all
			features = fmt.Sprintf("%d features", len(u.Features))
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", method, u.Direction, cell(sdks), cell(features))
	}
	return b.String()
}
