package render

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/text"
)

// JUnit is written from the final statuses rather than by godog's junit formatter, because
// godog knows only passed/failed/skipped: xfail, xpass, unsupported and unavailable are decided
// after a scenario ends (from the manifest and the driver's capabilities). godog's own cucumber
// JSON, per SDK, is kept beside it as the step-level record.
type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Body    string `xml:",chardata"`
}

// JUnit writes junit.xml: one test suite per SDK (per SDK@version in a run of several versions
// of one SDK) for CI test tabs.
func JUnit(dir string, r *report.Results) error {
	r = report.ByTarget(r)
	path := filepath.Join(dir, "junit.xml")
	bySDK := map[string]*junitSuite{}
	var order []string
	for _, x := range r.Results {
		s := bySDK[x.SDK]
		if s == nil {
			s = &junitSuite{Name: "conformance." + x.SDK}
			bySDK[x.SDK] = s
			order = append(order, x.SDK)
		}
		c := junitCase{Name: x.Scenario, Classname: x.SDK + "." + strings.TrimSuffix(x.Feature, ".feature")}
		out := "status: " + x.Status
		if x.Transcript != "" {
			out += "\ntranscript: " + x.Transcript
		}
		if x.Rerun != "" {
			out += "\nrerun: " + x.Rerun
		}
		c.SystemOut = out
		switch x.Status {
		case report.Failed, report.XPass:
			c.Failure = &junitMessage{Message: text.FirstLine(x.Message), Body: x.Message}
			s.Failures++
		case report.Passed:
		case report.XFail:
			c.Skipped = &junitMessage{Message: "expected failure: " + text.FirstLine(x.Message), Body: x.Message}
			s.Skipped++
		default:
			c.Skipped = &junitMessage{Message: x.Status + ": " + text.FirstLine(x.Message), Body: x.Message}
			s.Skipped++
		}
		s.Tests++
		s.Cases = append(s.Cases, c)
	}
	// Each planned result the run did not report is a failed case of its SDK's suite: a CI
	// test tab never shows an incomplete run green.
	if c := r.Completeness; c != nil {
		for _, m := range c.Missing {
			label := m.SDK // the suite of its SDK, or of its SDK@version in a run of several
			if bySDK[report.Target(m.SDK, m.Version)] != nil {
				label = report.Target(m.SDK, m.Version)
			}
			s := bySDK[label]
			if s == nil {
				s = &junitSuite{Name: "conformance." + label}
				bySDK[label] = s
				order = append(order, label)
			}
			s.Cases = append(s.Cases, junitCase{Name: m.Scenario, Classname: label + "." + strings.TrimSuffix(m.Feature, ".feature"),
				Failure:   &junitMessage{Message: "INCOMPLETE: no result: " + m.Reason, Body: "the run planned this scenario on " + report.Target(m.SDK, m.Version) + " and reported no result: " + m.Reason},
				SystemOut: "status: missing"})
			s.Tests++
			s.Failures++
		}
	}
	var doc junitSuites
	for _, n := range order {
		doc.Suites = append(doc.Suites, *bySDK[n])
	}
	b, err := xml.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append([]byte(xml.Header), append(b, '\n')...), 0o644)
}
