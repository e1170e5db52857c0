// Package rundiff compares two runs (two results.json, with their transcripts when present) and
// lists only what changed, one entry per scenario and SDK: its statuses from → to and, where the
// scenario ran on both sides, its payload changes under it. It is the release gate: a candidate
// against the last release. A scenario that passed and no longer does (unsupported,
// unavailable, skipped, failed, gone) is a regression unless the user allowed it by naming the
// SDK or the capability (Allow).
package rundiff

import (
	"fmt"
	"os"
	"path/filepath"
	goruntime "runtime"
	"sort"
	"strings"
	"sync"

	"github.com/copilot-sdk-conformance/conformance/internal/compare"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
)

// Removed is the "to" status of a scenario that the candidate did not report.
const Removed = "removed"

// Allow lists, per status a passed scenario may go to, the SDKs and capabilities for which that
// is accepted (--allow-unsupported node, --allow-unsupported tool.isTerminal). A failure is
// never allowed here: known failures belong in the manifest of expected failures.
type Allow map[string][]string

// Change is one scenario on one SDK whose status or payload changed.
type Change struct {
	SDK, Feature, Scenario string           // SDK is the target's label (SDK or SDK@version)
	Target                 report.TargetKey `json:"-"`
	From, To               string           // statuses; From is "" for a new scenario, To is Removed for a gone one
	Capability             string           // the capability the candidate lacks (its result's capability)
	Message                string           // the candidate's first message line
	Rerun                  string
	Regression             bool
	AllowedBy              string // "--allow-unsupported node" when a regression was allowed
	Was                    string // "feature: scenario" the case had in the base, when it was renamed
	Payload                []Payload
}

// Payload is one JSON path whose normalized value differs between the runs. Where is Request
// and Path together; Path is "" when only one side sent the request (Base and Candidate are then
// "sent" or "not sent").
type Payload struct{ Where, Request, Path, Base, Candidate string }

// Report is the diff of two runs: what was compared, the capabilities each SDK's driver gained
// or lost, every changed scenario, and the payload changes grouped by field across SDKs.
type Report struct {
	Compared     []Compared
	Capabilities []CapabilityChange
	Changes      []Change
	Fields       []FieldChange
}

// Regressions counts the changes that fail the gate.
func (r *Report) Regressions() int {
	n := 0
	for _, c := range r.Changes {
		if c.Regression {
			n++
		}
	}
	return n
}

type key struct {
	target            report.TargetKey
	feature, scenario string
}

// pairRenamed finds the cases the candidate renamed: a base key the candidate lacks and a
// candidate key the base lacks with the same target and stable id (report.Result.ID) are one
// case. It files the candidate's result under the base key (so the case is compared, not
// reported removed and new) and returns the new name of each base key it moved.
func pairRenamed(b, c map[key]report.Result) map[key]key {
	type idKey struct {
		target report.TargetKey
		id     string
	}
	added := map[idKey]key{}
	for k, r := range c {
		if _, inBase := b[k]; !inBase && r.ID != "" {
			added[idKey{k.target, r.ID}] = k
		}
	}
	out := map[key]key{}
	for k, r := range b {
		if _, inCand := c[k]; inCand || r.ID == "" {
			continue
		}
		if now, ok := added[idKey{k.target, r.ID}]; ok {
			c[k] = c[now]
			delete(c, now)
			delete(added, idKey{k.target, r.ID})
			out[k] = now
		}
	}
	return out
}

// Runs compares the results.json files at base and candidate.
// Either file must be a complete run's (report.Load): a base or candidate that lacks planned
// results cannot show what changed.
func Runs(basePath, candPath string, allow Allow) (*Report, error) {
	base, err := loadComplete(basePath, "base")
	if err != nil {
		return nil, err
	}
	cand, err := loadComplete(candPath, "candidate")
	if err != nil {
		return nil, err
	}
	return Compare(base, cand, filepath.Dir(basePath), filepath.Dir(candPath), allow), nil
}

// loadComplete reads one side of the diff and refuses an incomplete run, naming what it lacks.
func loadComplete(path, side string) (*report.Results, error) {
	r, err := report.Load(path)
	if err != nil {
		return nil, err
	}
	if r.Incomplete() {
		c := r.Completeness
		first := c.Missing[0]
		return nil, fmt.Errorf("%s: %w: the %s is an incomplete run (%s; the first: %s / %s on %s, %s): rerun it whole",
			path, report.ErrUnreadable, side, c.Headline(), first.Feature, first.Scenario, report.Target(first.SDK, first.Version), first.Reason)
	}
	return r, nil
}

// ran reports whether a scenario with this status ran its steps against the SDK, so that its
// transcript holds payloads worth comparing.
func ran(status string) bool {
	switch status {
	case report.Passed, report.Failed, report.XFail, report.XPass:
		return true
	}
	return false
}

// Compare diffs two runs; baseDir and candDir hold their transcripts (payloads are compared
// only where the scenario ran on both sides and both transcripts exist).
func Compare(base, cand *report.Results, baseDir, candDir string, allow Allow) *Report {
	return CompareWith(nil, base, cand, baseDir, candDir, allow)
}

// Requests keeps each transcript's requests once read, for a caller comparing one run with
// several (history compares each version with the one before and the one after: every
// transcript would be read twice). Safe for concurrent use; nil reads every time.
type Requests struct {
	mu sync.Mutex
	m  map[string][]compare.Request
}

func (rq *Requests) load(p string) []compare.Request {
	if rq != nil {
		rq.mu.Lock()
		l, ok := rq.m[p]
		rq.mu.Unlock()
		if ok {
			return l
		}
	}
	var l []compare.Request
	if _, err := os.Stat(p); err == nil {
		if entries, err := transcript.Read(p); err == nil {
			l = compare.RequestList(entries)
		}
	}
	if rq != nil {
		rq.mu.Lock()
		if rq.m == nil {
			rq.m = map[string][]compare.Request{}
		}
		rq.m[p] = l
		rq.mu.Unlock()
	}
	return l
}

// Forget drops the requests of the transcripts under dir (a run no later comparison reads).
func (rq *Requests) Forget(dir string) {
	rq.mu.Lock()
	defer rq.mu.Unlock()
	for p := range rq.m {
		if strings.HasPrefix(p, filepath.Clean(dir)+string(filepath.Separator)) {
			delete(rq.m, p)
		}
	}
}

// CompareWith is Compare reading the transcripts through rq.
func CompareWith(rq *Requests, base, cand *report.Results, baseDir, candDir string, allow Allow) *Report {
	// A run of several versions of one SDK is keyed by SDK@version; a run of one version by
	// the SDK alone, so that a candidate version is compared with the base's.
	index := func(r *report.Results) map[key]report.Result {
		m := map[key]report.Result{}
		target := report.Keys(r)
		for _, x := range r.Results {
			m[key{target(x.SDK, x.Version), x.Feature, x.Scenario}] = x
		}
		return m
	}
	b, c := index(base), index(cand)
	renamed := pairRenamed(b, c)
	keys := map[key]bool{}
	for k := range b {
		keys[k] = true
	}
	for k := range c {
		keys[k] = true
	}
	var out []Change
	// The payloads are compared at once, a worker per core: reading the transcripts is most of
	// a comparison's time (history compares every version with the one before).
	type payloadJob struct {
		i          int
		base, cand string
	}
	var jobs []payloadJob
	for k := range keys {
		br, inBase := b[k]
		cr, inCand := c[k]
		ch := Change{SDK: k.target.String(), Target: k.target, Feature: k.feature, Scenario: k.scenario, To: Removed}
		if now, ok := renamed[k]; ok { // the case under its new name
			ch.Feature, ch.Scenario, ch.Was = now.feature, now.scenario, k.feature+": "+k.scenario
		}
		if inBase {
			ch.From = br.Status
		}
		if inCand {
			ch.To, ch.Message, ch.Rerun, ch.Capability = cr.Status, report.Gist(cr.Message), cr.Rerun, cr.Capability
		}
		if inBase && inCand && ran(br.Status) && ran(cr.Status) && br.Transcript != "" && cr.Transcript != "" {
			jobs = append(jobs, payloadJob{len(out), filepath.Join(baseDir, br.Transcript), filepath.Join(candDir, cr.Transcript)})
		} else if ch.From == ch.To {
			continue
		}
		out = append(out, ch)
	}
	var wg sync.WaitGroup
	next := make(chan payloadJob)
	for range min(len(jobs), goruntime.NumCPU()) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range next {
				out[j.i].Payload = payloadChanges(rq, j.base, j.cand)
			}
		}()
	}
	for _, j := range jobs {
		next <- j
	}
	close(next)
	wg.Wait()
	kept := out[:0]
	for _, ch := range out {
		if ch.From == ch.To && len(ch.Payload) == 0 {
			continue
		}
		switch {
		case report.Failing(ch.To) && !report.Failing(ch.From):
			ch.Regression = true // a new failure, whatever it was before (xfail → failed included)
		case ch.From == report.Passed && ch.To != report.Passed:
			ch.AllowedBy = allow.by(ch)
			ch.Regression = ch.AllowedBy == ""
		}
		kept = append(kept, ch)
	}
	out = kept
	sort.Slice(out, func(i, j int) bool {
		a, z := out[i], out[j]
		if a.rank() != z.rank() {
			return a.rank() < z.rank()
		}
		return a.SDK+"\x00"+a.Feature+"\x00"+a.Scenario < z.SDK+"\x00"+z.Feature+"\x00"+z.Scenario
	})
	return &Report{Compared: compared(base, cand), Capabilities: capabilities(base, cand), Changes: out, Fields: fields(out)}
}

// by returns the flag that allows ch, or "".
func (a Allow) by(ch Change) string {
	for _, name := range a[ch.To] {
		// --allow-unsupported node covers node@1.0.8
		if name == ch.SDK || name == ch.Target.SDK || (ch.Capability != "" && name == ch.Capability) {
			return fmt.Sprintf("--allow-%s %s", ch.To, name)
		}
	}
	return ""
}

// Sections of the changed scenarios, most important first.
const (
	secRegression = iota
	secDivergence
	secFixed
	secSupported
	secAllowed
	secStatus
	secPayload
)

func (c Change) rank() int {
	switch {
	case c.Regression:
		return secRegression
	case c.AllowedBy != "":
		return secAllowed
	case report.Failing(c.From) && (c.To == report.Passed || c.To == report.XFail):
		return secFixed
	case c.To == report.XFail && c.From != report.XFail:
		return secDivergence // a known divergence the candidate now shows (an expected failure)
	case c.From == report.Unsupported && c.To == report.Passed:
		return secSupported // a capability gained, and the scenario passes with it
	case c.From != c.To:
		return secStatus
	}
	return secPayload
}

// payloadChanges compares the normalized requests of one scenario in two runs.
func payloadChanges(rq *Requests, basePath, candPath string) []Payload {
	bl, cl := rq.load(basePath), rq.load(candPath)
	if bl == nil || cl == nil {
		return nil
	}
	bp, cp := compare.Aligned(bl, cl)
	var out []Payload
	for _, d := range compare.Payloads(map[string]map[string]any{"base": bp, "candidate": cp}, nil) {
		where := d.Request
		if d.Path != "" {
			where += " " + d.Path
		}
		out = append(out, Payload{Where: where, Request: d.Request, Path: d.Path, Base: d.Values["base"], Candidate: d.Values["candidate"]})
	}
	return out
}

// Allowable lists the statuses a passed scenario may be allowed to go to.
var Allowable = []string{report.Unsupported, report.Unavailable, report.Skipped, Removed}
