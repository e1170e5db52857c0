package fidelity

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/wire"
)

// RealAnswersFile is where the real runtime's answer shapes are kept, under fixtures/: made by
// `conformance reference --real-answers` from a real run, so the stand-in's answers are judged
// against the current runtime's in every run, with no real runtime at hand.
const RealAnswersFile = "reference/real-answers.json"

// Answers is the shape of every answer one runtime gave, per method: which JSON paths (with
// their types) its results had and which error codes it answered. Values are left out: they
// differ between runs (ids, times) and between runtimes by design.
type Answers struct {
	Comment string `json:"comment,omitempty"`
	Runtime string `json:"runtime"` // the run's runtime, as results.json names it
	// Version is the runtime's version as its connect answers said ("1.0.85").
	Version string                   `json:"version"`
	Methods map[string]MethodAnswers `json:"methods"`
}

// MethodAnswers is one method's answers.
type MethodAnswers struct {
	// Always are the "path: type" entries every result had; Sometimes those only some had.
	Always    []string `json:"always,omitempty"`
	Sometimes []string `json:"sometimes,omitempty"`
	// Errors are the error codes the method was answered with.
	Errors []int `json:"errors,omitempty"`
}

// versionOf is the version a connect answer reports.
func versionOf(result json.RawMessage) string {
	var r struct {
		Version string `json:"version"`
	}
	_ = json.Unmarshal(result, &r)
	return r.Version
}

type methodAnswers struct {
	results int
	paths   map[string]int
	errors  map[int]bool
}

func (o *observed) answer(method string, m wire.Message) {
	a := o.answers[method]
	if a == nil {
		a = &methodAnswers{paths: map[string]int{}, errors: map[int]bool{}}
		o.answers[method] = a
	}
	if m.Error != nil {
		a.errors[m.Error.Code] = true
		return
	}
	var v any
	if json.Unmarshal(m.Result, &v) != nil {
		return
	}
	a.results++
	if method == "connect" {
		o.versions[versionOf(m.Result)] = true
	}
	seen := map[string]bool{}
	for _, p := range paths(v, "") {
		if !seen[p] {
			seen[p] = true
			a.paths[p]++
		}
	}
}

// RunAnswers reads the shapes of every answer in a run's transcripts (dir holds results.json).
func RunAnswers(dir string) (*Answers, error) {
	res, err := report.ReadResults(filepath.Join(dir, "results.json"))
	if err != nil {
		return nil, err
	}
	o := observe(dir, res, nil, nil)
	out := &Answers{Runtime: res.Harness.Runtime, Methods: map[string]MethodAnswers{}}
	delete(o.versions, "")
	if len(o.versions) > 1 {
		return nil, fmt.Errorf("%s: connect answered several versions: %v", dir, slices.Sorted(maps.Keys(o.versions)))
	}
	for v := range o.versions {
		out.Version = v
	}
	for m, a := range o.answers {
		var ma MethodAnswers
		for p, n := range a.paths {
			if n == a.results {
				ma.Always = append(ma.Always, p)
			} else {
				ma.Sometimes = append(ma.Sometimes, p)
			}
		}
		for c := range a.errors {
			ma.Errors = append(ma.Errors, c)
		}
		sort.Strings(ma.Always)
		sort.Strings(ma.Sometimes)
		sort.Ints(ma.Errors)
		out.Methods[m] = ma
	}
	return out, nil
}

// LoadAnswers reads a file RunAnswers' result was written to.
func LoadAnswers(path string) (*Answers, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var a Answers
	if err := json.Unmarshal(b, &a); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if a.Runtime == "" || a.Version == "" || len(a.Methods) == 0 {
		return nil, fmt.Errorf("%s: no runtime, version or methods", path)
	}
	return &a, nil
}

// Mismatch is one way an answer's shape is not one the recorded runtime gave.
type Mismatch struct {
	Method string
	Path   string // the JSON path ("(result)" for the whole), or "error" for an error code
	Why    string
}

func (m Mismatch) String() string { return m.Method + ": " + m.Path + ": " + m.Why }

// Check judges one answer to method (its result, or its error) by the recorded answers: a path
// or type the recorded runtime never answered, a path every recorded result had that this one
// lacks (paths inside arrays are not required: an empty array has none), an error code it never
// answered with, or a result where it only answered errors. A method not recorded is not judged
// (Has says which are).
func (a *Answers) Check(method string, result json.RawMessage, rpcErr *wire.RPCError) []Mismatch {
	ma, ok := a.Methods[method]
	if !ok {
		return nil
	}
	if rpcErr != nil {
		if slices.Contains(ma.Errors, rpcErr.Code) {
			return nil
		}
		return []Mismatch{{method, "error", fmt.Sprintf("answered error %d (%s); the real runtime answered %s", rpcErr.Code, brief(rpcErr.Message), describe(ma))}}
	}
	var v any
	if err := json.Unmarshal(result, &v); err != nil {
		return []Mismatch{{method, "(result)", "not JSON: " + err.Error()}}
	}
	if len(ma.Always)+len(ma.Sometimes) == 0 {
		return []Mismatch{{method, "(result)", "answered a result; the real runtime answered " + describe(ma)}}
	}
	got := map[string]bool{}
	var out []Mismatch
	for _, p := range paths(v, "") {
		if got[p] {
			continue
		}
		got[p] = true
		if !slices.Contains(ma.Always, p) && !slices.Contains(ma.Sometimes, p) {
			path, typ, _ := strings.Cut(p, ": ")
			out = append(out, Mismatch{method, path, fmt.Sprintf("%s, which the real runtime never answered%s", typ, otherTypes(ma, path))})
		}
	}
	for _, p := range ma.Always {
		if !got[p] && !strings.Contains(p, "[]") {
			path, typ, _ := strings.Cut(p, ": ")
			out = append(out, Mismatch{method, path, "missing (every answer of the real runtime has it: " + typ + ")"})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

// Has says whether method's answers were recorded.
func (a *Answers) Has(method string) bool {
	_, ok := a.Methods[method]
	return ok
}

func describe(ma MethodAnswers) string {
	var parts []string
	if n := len(ma.Always) + len(ma.Sometimes); n > 0 {
		parts = append(parts, "results")
	}
	for _, c := range ma.Errors {
		parts = append(parts, fmt.Sprintf("error %d", c))
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, ", ")
}

// otherTypes names the types the real runtime answered at path, if any.
func otherTypes(ma MethodAnswers, path string) string {
	var ts []string
	for _, p := range append(slices.Clone(ma.Always), ma.Sometimes...) {
		if q, typ, _ := strings.Cut(p, ": "); q == path {
			ts = append(ts, typ)
		}
	}
	if len(ts) == 0 {
		return ""
	}
	return " (it answered " + strings.Join(ts, " or ") + ")"
}
