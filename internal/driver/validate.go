package driver

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Validator checks driver lines against drivers/protocol.schema.json (bowtie's -V): a driver
// author sees exactly which line broke the protocol and where.
type Validator struct {
	line, hello *jsonschema.Schema
}

const protocolURL = "https://copilot-sdk-conformance.invalid/drivers/protocol.schema.json"

// LoadValidator compiles the protocol schema file.
func LoadValidator(path string) (*Validator, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(protocolURL, doc); err != nil {
		return nil, err
	}
	v := &Validator{}
	if v.line, err = c.Compile(protocolURL); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if v.hello, err = c.Compile(protocolURL + "#/$defs/HelloResult"); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}

// Line validates one line the driver wrote.
func (v *Validator) Line(line []byte) error { return check(v.line, line) }

// Hello validates the result of hello.
func (v *Validator) Hello(result []byte) error { return check(v.hello, result) }

func check(s *jsonschema.Schema, b []byte) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return err
	}
	if err := s.Validate(inst); err != nil {
		// The first line of the library's message names the failing location; keep it short.
		msg := strings.ReplaceAll(err.Error(), "\n", "; ")
		return fmt.Errorf("not valid against drivers/protocol.schema.json: %s", msg)
	}
	return nil
}
