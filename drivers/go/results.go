package main

// Tool results (PROTOCOL.md "Tool results"): a structured value is returned the way a Go
// application would, as a struct with a UUID, a time.Time and a string enum from a DefineTool
// handler, so the SDK's own conversion (normalizeResult) turns it into the answer; a result
// object is decoded into copilot.ToolResult through its json tags, refusing a field this SDK
// version's ToolResult does not have.

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"time"

	copilot "github.com/github/copilot-sdk/go"
	"github.com/google/uuid"
)

type status string

const (
	statusOpen   status = "open"
	statusClosed status = "closed"
)

type record struct {
	ID     uuid.UUID `json:"id"`
	At     time.Time `json:"at"`
	Status status    `json:"status"`
	Count  int       `json:"count"`
	Tags   []string  `json:"tags"`
}

func decodeRecord(raw json.RawMessage) (record, error) {
	var r record
	if err := json.Unmarshal(raw, &r); err != nil {
		return r, driverErrorf("returnValue: %v", err)
	}
	if r.Status != statusOpen && r.Status != statusClosed {
		return r, driverErrorf("returnValue: status %q is not open or closed", r.Status)
	}
	return r, nil
}

// returnValue answers through DefineTool's typed handler, as an application would.
func returnValue(raw json.RawMessage, inv copilot.ToolInvocation) (copilot.ToolResult, error) {
	r, err := decodeRecord(raw)
	if err != nil {
		return copilot.ToolResult{}, err
	}
	typed := copilot.DefineTool("value", "", func(_ map[string]any, _ copilot.ToolInvocation) (record, error) {
		return r, nil
	})
	return typed.Handler(inv)
}

func returnResult(raw json.RawMessage) (copilot.ToolResult, error) {
	// Built by field name (construct), not decoded: a misspelled tag in copilot.ToolResult must
	// show on the wire, not read as a field the type lacks.
	v, lost, err := construct(reflect.TypeOf(copilot.ToolResult{}), raw)
	if err != nil {
		return copilot.ToolResult{}, driverErrorf("returnResult: %v", err)
	}
	tr := v.Interface().(copilot.ToolResult)
	if len(lost) > 0 {
		version, _ := sdkVersion()
		return tr, unsupported{fmt.Sprintf("%s %s: copilot.ToolResult (with its ToolBinaryResult) cannot carry %s", sdkModule, version, strings.Join(lost, ", "))}
	}
	return tr, nil
}
