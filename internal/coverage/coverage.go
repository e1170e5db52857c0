// Package coverage tells which methods of the runtime's published schema each SDK exercised in a
// run: what it sent (requests and notifications) and which runtime->SDK requests it answered,
// read from the results' transcripts, and which features did so. It is a step after the run
// (like the cross-SDK comparison), over the result records and transcripts only.
package coverage

import (
	"encoding/json"
	"maps"
	"slices"
	"sort"

	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
)

const (
	Sent     = "sent"
	Answered = "answered"
)

// Compute reads each result's transcript from ts. schemaMethods is the schema's method list
// (empty when no schema was loaded: then nothing is listed as unexercised). Results are named
// by their target label (report.Labels), so a run of several versions has a column per
// SDK@version.
//
// catalog, when given, is every method and event type of the runtime's schemas: the coverage
// then accounts, per SDK, for each one (Coverage.Sweep).
func Compute(ts *transcript.Store, res *report.Results, schemaMethods []string, schemaSource string, catalog []report.SchemaItem) *report.Coverage {
	inSchema := map[string]bool{}
	for _, m := range schemaMethods {
		inSchema[m] = true
	}
	label := report.Labels(res)
	type use struct{ sdks, features map[string]bool }
	uses := map[[2]string]*use{} // (method, direction)
	perSDK := map[string]map[[2]string]bool{}
	var order []string
	read := map[string]bool{}
	acct := map[string]*sdkAccount{}
	account := func(sdk string) *sdkAccount {
		if acct[sdk] == nil {
			acct[sdk] = newAccount()
		}
		return acct[sdk]
	}
	for _, r := range res.Results {
		account(label(r.SDK, r.Version)).gate(r)
		if r.Transcript == "" || read[r.Transcript] {
			continue
		}
		read[r.Transcript] = true
		entries, err := ts.Read(r.Transcript)
		if err != nil {
			continue // a missing transcript is reported by the formats that show it
		}
		sdk := label(r.SDK, r.Version)
		if perSDK[sdk] == nil {
			perSDK[sdk] = map[[2]string]bool{}
			order = append(order, sdk)
		}
		a := account(sdk)
		a.read(entries)
		for _, k := range exercised(entries) {
			if k[1] == Sent {
				a.sent[k[0]] = true
			} else {
				a.answered[k[0]] = true
			}
			u := uses[k]
			if u == nil {
				u = &use{map[string]bool{}, map[string]bool{}}
				uses[k] = u
			}
			u.sdks[sdk], u.features[r.Feature] = true, true
			perSDK[sdk][k] = true
		}
	}
	c := &report.Coverage{Schema: schemaSource, Methods: len(schemaMethods), Catalog: catalog}
	var noTranscript []string // an SDK whose every result was unsupported still gets its account
	for sdk := range acct {
		if perSDK[sdk] == nil {
			noTranscript = append(noTranscript, sdk)
		}
	}
	sort.Strings(noTranscript)
	c.Sweep = sweep(catalog, append(append([]string(nil), order...), noTranscript...), acct)
	seen := map[string]bool{}
	for k, u := range uses {
		c.Exercised = append(c.Exercised, report.MethodUse{Method: k[0], Direction: k[1], InSchema: inSchema[k[0]],
			SDKs: slices.Sorted(maps.Keys(u.sdks)), Features: slices.Sorted(maps.Keys(u.features))})
		seen[k[0]] = true
	}
	sort.Slice(c.Exercised, func(i, j int) bool {
		a, b := c.Exercised[i], c.Exercised[j]
		if a.Method != b.Method {
			return a.Method < b.Method
		}
		return a.Direction < b.Direction
	})
	for _, m := range schemaMethods {
		if !seen[m] {
			c.Unexercised = append(c.Unexercised, m)
		}
	}
	for _, sdk := range order {
		s := report.SDKCoverage{SDK: sdk}
		for k := range perSDK[sdk] {
			if !inSchema[k[0]] {
				continue
			}
			if k[1] == Sent {
				s.Sent++
			} else {
				s.Answered++
			}
		}
		c.SDKs = append(c.SDKs, s)
	}
	return c
}

// exercised lists the (method, direction) pairs of one transcript: each method the SDK sent, and
// each runtime->SDK request the SDK answered (with a result or an error).
func exercised(entries []transcript.Entry) [][2]string {
	type frame struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	asked := map[string]string{} // conn+id -> method of a runtime->SDK request
	var out [][2]string
	for _, e := range entries {
		if len(e.Frame) == 0 || (e.Dir != transcript.SDKToRuntime && e.Dir != transcript.RuntimeToSDK) {
			continue
		}
		var f frame
		if json.Unmarshal(e.Frame, &f) != nil {
			continue
		}
		switch {
		case e.Dir == transcript.SDKToRuntime && f.Method != "":
			out = append(out, [2]string{f.Method, Sent})
		case e.Dir == transcript.RuntimeToSDK && f.Method != "" && len(f.ID) > 0:
			asked[e.Conn+"\x00"+string(f.ID)] = f.Method
		case e.Dir == transcript.SDKToRuntime && len(f.ID) > 0 && (len(f.Result) > 0 || len(f.Error) > 0):
			if m, ok := asked[e.Conn+"\x00"+string(f.ID)]; ok {
				out = append(out, [2]string{m, Answered})
			}
		}
	}
	return out
}
