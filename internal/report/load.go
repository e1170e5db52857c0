package report

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// english prints the schema library's messages (it needs a printer).
var english = message.NewPrinter(language.English)

// resultsSchema is the contract of a results.json that diff, merge and replay read: the schema
// version they know, the fields they rely on and the known statuses.
//
//go:embed results.schema.json
var resultsSchema []byte

const resultsSchemaURL = "https://copilot-sdk-conformance.invalid/results.schema.json"

var compiled = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(resultsSchema))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(resultsSchemaURL, doc); err != nil {
		return nil, err
	}
	return c.Compile(resultsSchemaURL)
})

// ErrUnreadable is a results.json that diff, merge or replay cannot trust: not JSON, another
// schema version, a field missing or of the wrong type, an unknown status, counts that disagree.
var ErrUnreadable = errors.New("not a results.json this harness reads")

// Load is the one loader of a results.json for the commands that judge by it (diff, merge,
// replay): the file must be a JSON object of SchemaVersion, valid against results.schema.json
// (the fields they need, known statuses), with a completeness whose counts agree. Anything else
// is an ErrUnreadable error naming the file and what is wrong. ReadResults stays the lenient
// reader of reports this harness wrote itself (history, bisect, fidelity).
func Load(path string) (*Results, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%s: %w: %s", path, ErrUnreadable, fmt.Sprintf(format, a...))
	}
	var top any
	if err := json.Unmarshal(b, &top); err != nil {
		return nil, bad("not JSON: %v", err)
	}
	obj, ok := top.(map[string]any)
	if !ok {
		return nil, bad("want a JSON object, the file holds %s", jsonKind(top))
	}
	switch v := obj["schemaVersion"].(type) {
	case nil:
		return nil, bad("no schemaVersion (want %d): not a report of `conformance run`", SchemaVersion)
	case float64:
		if v != SchemaVersion {
			return nil, bad("schemaVersion %v; this harness reads %d (rerun with this harness, or read it with the harness that wrote it)", v, SchemaVersion)
		}
	default:
		return nil, bad("schemaVersion is %s, want the number %d", jsonKind(v), SchemaVersion)
	}
	s, err := compiled()
	if err != nil {
		return nil, fmt.Errorf("results.schema.json: %w", err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return nil, bad("not JSON: %v", err)
	}
	if err := s.Validate(inst); err != nil {
		return nil, bad("%s", violations(err))
	}
	var r Results
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, bad("%v", err)
	}
	c := r.Completeness
	switch {
	case c.Reported > c.Planned:
		return nil, bad("completeness reports %d of %d planned results", c.Reported, c.Planned)
	case len(c.Missing) != c.Planned-c.Reported:
		return nil, bad("completeness lists %d missing results, but %d of %d planned were not reported", len(c.Missing), c.Planned-c.Reported, c.Planned)
	case c.Complete != (len(c.Missing) == 0):
		return nil, bad("completeness says complete=%v with %d missing results", c.Complete, len(c.Missing))
	}
	return &r, nil
}

// violations is each leaf of a validation error, as "at /results/3/status: value must be one
// of ...", joined on one line.
func violations(err error) string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err.Error()
	}
	var out []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			out = append(out, fmt.Sprintf("at %s: %s", pointer(e.InstanceLocation), e.ErrorKind.LocalizedString(english)))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	if len(out) > 5 {
		out = append(out[:5], fmt.Sprintf("and %d more", len(out)-5))
	}
	return strings.Join(out, "; ")
}

func pointer(loc []string) string {
	if len(loc) == 0 {
		return "the top"
	}
	return "/" + strings.Join(loc, "/")
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case float64:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	}
	return "an object"
}
