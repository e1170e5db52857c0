// Package canon is the one place that normalizes volatile fields before payloads are compared
// (cross-SDK diffs, replays, run-to-run diffs), and that addresses values by JSON path.
//
// What is volatile, and what it becomes:
//   - any string that is a UUID                       -> "<uuid>"
//   - the value of a "sessionId" key                  -> "<sessionId>"
//   - the value of a "timestamp" key or an ISO-8601 string -> "<timestamp>"
//   - an absolute file system path (string starting with "/" or "X:\")  -> "<path>"
//   - the JSON-RPC "id" of a request                  -> dropped (frames are compared by method)
//
// Everything else is kept exactly, including key absence versus null versus false, which is what
// the features are about, except the documented defaults of session.create / session.resume
// (a value the runtime treats exactly like the key left out), which Defaults drops: see
// defaults.go for each rule and the evidence behind it.
package canon

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

var (
	uuidRE = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	timeRE = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})$`)
	pathRE = regexp.MustCompile(`^(/[^/\s]+){2,}/?$|^[A-Za-z]:\\`)
)

// Volatile keys and what their values become.
var volatileKeys = map[string]string{"sessionId": "<sessionId>", "timestamp": "<timestamp>"}

// Value normalizes a decoded JSON value (from Decode), returning a new value.
func Value(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if repl, ok := volatileKeys[k]; ok {
				if _, isStr := e.(string); isStr {
					out[k] = repl
					continue
				}
			}
			out[k] = Value(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = Value(e)
		}
		return out
	case string:
		switch {
		case uuidRE.MatchString(x):
			return "<uuid>"
		case timeRE.MatchString(x):
			return "<timestamp>"
		case pathRE.MatchString(x):
			return "<path>"
		}
	}
	return v
}

// Decode parses JSON keeping numbers exact (json.Number).
func Decode(raw []byte) (any, error) {
	d := json.NewDecoder(strings.NewReader(string(raw)))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// Get returns the value at path: keys separated by ".", array elements as [N], and an element of
// an array of objects by name as [name=X] (e.g. "tools[name=finish].isTerminal").
func Get(v any, path string) (any, bool) {
	for _, part := range SplitPath(path) {
		switch {
		case strings.HasPrefix(part, "[name="):
			arr, ok := v.([]any)
			if !ok {
				return nil, false
			}
			want, found := strings.TrimSuffix(strings.TrimPrefix(part, "[name="), "]"), false
			for _, e := range arr {
				if m, ok := e.(map[string]any); ok && m["name"] == want {
					v, found = e, true
					break
				}
			}
			if !found {
				return nil, false
			}
		case strings.HasPrefix(part, "["):
			arr, ok := v.([]any)
			i, err := strconv.Atoi(strings.Trim(part, "[]"))
			if !ok || err != nil || i < 0 || i >= len(arr) {
				return nil, false
			}
			v = arr[i]
		default:
			m, ok := v.(map[string]any)
			if !ok {
				return nil, false
			}
			if v, ok = m[part]; !ok {
				return nil, false
			}
		}
	}
	return v, true
}

// SplitPath splits a path of Get's form into its steps: "a.b[0].c" into "a", "b", "[0]", "c"
// ("[name=x]" is one step). The one splitter of these paths (steps read raw JSON by them too).
func SplitPath(path string) []string {
	var parts []string
	for _, dotted := range strings.Split(path, ".") {
		for dotted != "" {
			i := strings.Index(dotted, "[")
			switch {
			case i < 0:
				parts, dotted = append(parts, dotted), ""
			case i > 0:
				parts, dotted = append(parts, dotted[:i]), dotted[i:]
			default:
				j := strings.Index(dotted, "]")
				if j < 0 {
					j = len(dotted) - 1
				}
				parts, dotted = append(parts, dotted[:j+1]), dotted[j+1:]
			}
		}
	}
	return parts
}

// Keys returns every key path in v where key appears (at any depth).
func Keys(v any, key string) []string {
	var out []string
	var walk func(v any, path string)
	walk = func(v any, path string) {
		switch x := v.(type) {
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(x)) {
				p := join(path, k)
				if k == key {
					out = append(out, p)
				}
				walk(x[k], p)
			}
		case []any:
			for i, e := range x {
				walk(e, fmt.Sprintf("%s[%d]", path, i))
			}
		}
	}
	walk(v, "")
	return out
}

// Show renders a value compactly for reports; Absent renders a missing key.
func Show(v any, ok bool) string {
	if !ok {
		return Absent
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// Absent is how a missing key is shown.
const Absent = "<absent>"

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
