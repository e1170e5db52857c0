package steps

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cucumber/godog"
)

// Columns a tools table may have, beside name. An empty cell leaves the option unset.
var toolColumns = map[string]func(tool map[string]any, cell string) error{
	"description":          func(t map[string]any, c string) error { t["description"] = c; return nil },
	"isTerminal":           boolOption("isTerminal"),
	"overridesBuiltInTool": boolOption("overridesBuiltInTool"),
	"skipPermission":       boolOption("skipPermission"),
	"defer":                func(t map[string]any, c string) error { t["defer"] = c; return nil },
	"metadata":             jsonOption("metadata"),
	"parameters":           jsonOption("parameters"),
	"handler":              handlerOption,
	"optionOrder": func(t map[string]any, c string) error {
		var order []string
		for _, o := range strings.Split(c, ",") {
			order = append(order, strings.TrimSpace(o))
		}
		t["optionOrder"] = order
		return nil
	},
}

func boolOption(key string) func(map[string]any, string) error {
	return func(t map[string]any, c string) error {
		switch c {
		case "true":
			t[key] = true
		case "false":
			t[key] = false
		default:
			return fmt.Errorf("%s must be true, false or empty, not %q", key, c)
		}
		return nil
	}
}

func jsonOption(key string) func(map[string]any, string) error {
	return func(t map[string]any, c string) error {
		var v map[string]any
		if err := json.Unmarshal([]byte(c), &v); err != nil {
			return fmt.Errorf("%s must be a JSON object: %w", key, err)
		}
		// The bytes as written, not v: a Go map would hand the driver its keys sorted, and
		// the features check that the SDK keeps the application's key order (keyorder.go).
		t[key] = json.RawMessage(c)
		return nil
	}
}

// handlerOption parses a handler cell: `returns "text"`, `fails with "message"`, or
// `clears the context with "prompt"`, optionally followed by `as "label"`.
func handlerOption(t map[string]any, c string) error {
	h, err := parseHandler(c)
	if err != nil {
		return err
	}
	t["handler"] = h
	return nil
}

// onceReturned starts a handler's wait for another tool's handler (PROTOCOL.md "Tool",
// waitFor): `returns "text" once the tool "fast" has returned`.
const onceReturned = ` once the tool "`

func parseHandler(c string) (map[string]any, error) {
	var label string
	if i := strings.LastIndex(c, ` as "`); i >= 0 {
		label = strings.Trim(c[i+4:], `"`)
		c = c[:i]
	}
	quoted := func(prefix string) (string, bool) {
		rest, ok := strings.CutPrefix(c, prefix)
		if !ok || len(rest) < 2 || rest[0] != '"' || rest[len(rest)-1] != '"' {
			return "", false
		}
		return rest[1 : len(rest)-1], true
	}
	var waitFor string
	if i := strings.Index(c, onceReturned); i >= 0 {
		rest := c[i+len(onceReturned):]
		name, ok := strings.CutSuffix(rest, `" has returned`)
		if !ok || strings.Contains(name, `"`) {
			return nil, fmt.Errorf(`handler %q: want … once the tool "NAME" has returned`, c)
		}
		waitFor, c = name, c[:i]
	}
	var h map[string]any
	if s, ok := quoted("returns "); ok {
		h = map[string]any{"action": "return", "text": s}
	} else if s, ok := quoted("fails with "); ok {
		h = map[string]any{"action": "fail", "message": s}
	} else if s, ok := quoted("clears the context with "); ok {
		h = map[string]any{"action": "clearContext", "prompt": s, "text": "Cleared {messagesCleared} messages."}
	} else {
		return nil, fmt.Errorf(`handler %q: want returns "…", fails with "…" or clears the context with "…" (optionally followed by as "label")`, c)
	}
	if label != "" {
		h["label"] = label
	}
	if waitFor != "" {
		h["waitFor"] = waitFor
	}
	return h, nil
}

func newTool(name string) map[string]any {
	return map[string]any{"name": name, "description": "The " + name + " tool",
		"handler": map[string]any{"action": "return", "text": name + " done"}}
}

func (w *world) tool(name string) map[string]any {
	for _, t := range w.Tools {
		if t["name"] == name {
			return t
		}
	}
	t := newTool(name)
	w.Tools = append(w.Tools, t)
	return t
}

func (w *world) aTool(name string) error { w.tool(name); return nil }

func (w *world) aToolWithIsTerminal(name, how string) error {
	t := w.tool(name)
	switch how {
	case "set to true":
		t["isTerminal"] = true
	case "set to false":
		t["isTerminal"] = false
	case "unset":
		delete(t, "isTerminal")
	}
	return nil
}

func (w *world) aToolThat(name, handler string) error {
	h, err := parseHandler(handler)
	if err != nil {
		return err
	}
	w.tool(name)["handler"] = h
	return nil
}

func (w *world) theTools(table *godog.Table) error {
	if len(table.Rows) < 2 {
		return fmt.Errorf("the tools table needs a header row and at least one tool")
	}
	header := table.Rows[0].Cells
	if header[0].Value != "name" {
		return fmt.Errorf("the first column of the tools table must be name, not %q", header[0].Value)
	}
	for _, row := range table.Rows[1:] {
		t := w.tool(row.Cells[0].Value)
		for i, cell := range row.Cells[1:] {
			col := header[i+1].Value
			set, ok := toolColumns[col]
			if !ok {
				return fmt.Errorf("unknown tools column %q", col)
			}
			if cell.Value == "" {
				continue
			}
			if err := set(t, cell.Value); err != nil {
				return fmt.Errorf("tool %q: %w", t["name"], err)
			}
		}
	}
	return nil
}
