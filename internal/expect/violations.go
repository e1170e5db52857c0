package expect

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/Masterminds/semver/v3"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"gopkg.in/yaml.v3"
)

// ViolationsFile is the known schema violations, beside the expected failures.
const ViolationsFile = "expected-violations.yaml"

// Violation is a known schema violation: a request (or an answer to a runtime-to-SDK call) an
// SDK version puts on the wire that the runtime's schema rejects, known and explained. Every
// scenario of every feature is judged against the schema: a violation no entry names fails its
// scenario; one an entry names is reported as known.
type Violation struct {
	SDK      string `yaml:"sdk"`
	Versions string `yaml:"versions"`
	// Method is the request's method, or "<method> answer" for the SDK's answer to the runtime's
	// call of method.
	Method  string `yaml:"method"`
	Pointer string `yaml:"pointer"` // regexp the JSON pointer must match in full (optional)
	Message string `yaml:"message"` // regexp the schema's message must match (unanchored)
	Reason  string `yaml:"reason"`
	Link    string `yaml:"link"`

	File string `yaml:"-"`
	Line int    `yaml:"-"`

	con     *semver.Constraints
	pointer *regexp.Regexp
	msg     *regexp.Regexp
}

var violationKeys = []string{"sdk", "versions", "method", "pointer", "message", "reason", "link"}

// Where is file:line.
func (v *Violation) Where() string { return fmt.Sprintf("%s:%d", v.File, v.Line) }

// Explains says whether the entry names violation tv of this SDK version.
func (v *Violation) Explains(sdk, version string, tv transcript.Violation) bool {
	method := tv.Method
	if tv.Answer {
		method += transcript.AnswerSuffix
	}
	return v.SDK == sdk && v.Method == method && inRange(v.con, version) &&
		(v.pointer == nil || v.pointer.MatchString(tv.Pointer)) && v.msg.MatchString(tv.Message)
}

// Holds says whether the entry holds for this SDK version at all.
func (v *Violation) Holds(sdk, version string) bool {
	return v.SDK == sdk && inRange(v.con, version)
}

// LoadViolations reads the known schema violations (a missing file is none); a malformed entry
// is an error naming the file and line.
func LoadViolations(path string, sdks []string) ([]*Violation, error) {
	list, name, err := readList(path, "known violations")
	if err != nil {
		return nil, err
	}
	var out []*Violation
	for _, n := range list {
		if n.Kind != yaml.MappingNode {
			return nil, fmt.Errorf("%s:%d: a known violation must be a mapping of %s", name, n.Line, strings.Join(violationKeys, ", "))
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if k := n.Content[i]; !slices.Contains(violationKeys, k.Value) {
				return nil, fmt.Errorf("%s:%d: unknown key %q (known: %s)", name, k.Line, k.Value, strings.Join(violationKeys, ", "))
			}
		}
		v := &Violation{File: name, Line: n.Line}
		if err := n.Decode(v); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, n.Line, err)
		}
		if err := v.validate(sdks); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, n.Line, err)
		}
		out = append(out, v)
	}
	return out, nil
}

func (v *Violation) validate(sdks []string) error {
	if v.SDK == "" || v.Method == "" || v.Message == "" || v.Reason == "" || v.Link == "" {
		return fmt.Errorf("a known violation needs sdk, method, message, reason and link")
	}
	if !slices.Contains(sdks, v.SDK) {
		return fmt.Errorf("unknown sdk %q (known: %s)", v.SDK, strings.Join(sdks, ", "))
	}
	if !methodRE.MatchString(strings.TrimSuffix(v.Method, transcript.AnswerSuffix)) {
		return fmt.Errorf("method %q is not a method name such as session.create (or \"<method> answer\")", v.Method)
	}
	var err error
	if v.con, err = versionRange(v.Versions); err != nil {
		return err
	}
	if v.msg, err = regexp.Compile(v.Message); err != nil {
		return fmt.Errorf("message %q is not a regular expression: %w", v.Message, err)
	}
	if v.Pointer != "" {
		if v.pointer, err = regexp.Compile("^(?:" + v.Pointer + ")$"); err != nil {
			return fmt.Errorf("pointer %q is not a regular expression: %w", v.Pointer, err)
		}
	}
	return nil
}
