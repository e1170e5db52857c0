package steps

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/canon"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
)

// Key order of maps in a request (tool parameter schemas, MCP servers, environment maps): read
// from the recorded frame bytes, never from a decoded Go map, whose order is random.

var quoted = regexp.MustCompile(`"([^"]*)"`)

// keysInOrder checks that every request of method carries the object at path with exactly the
// keys listed, in that order: the order the application wrote them in.
func (w *world) keysInOrder(method, path, list string) error {
	var want []string
	for _, m := range quoted.FindAllStringSubmatch(list, -1) {
		want = append(want, m[1])
	}
	reqs := transcript.Requests(w.Entries(), method)
	if len(reqs) == 0 {
		return fmt.Errorf("the SDK sent no %q request", method)
	}
	w.Check(method, path)
	var problems []string
	for i, r := range reqs {
		got, err := rawKeysAt(r.Params, path)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s #%d: %v", method, i+1, err))
			continue
		}
		if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
			problems = append(problems, fmt.Sprintf("%s #%d %s: keys in the order %s, the application's order is %s",
				method, i+1, path, quoteAll(got), quoteAll(want)))
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s", strings.Join(problems, "; "))
	}
	return nil
}

func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = strconv.Quote(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// rawKeysAt walks path (keys separated by ".", [N] for an element, [name=x] for the element of
// an array whose "name" is x) through raw JSON and lists the keys of the object it reaches in the
// order of the bytes. Each step keeps the sub-value's raw bytes (json.RawMessage), so nothing on
// the way is re-ordered.
func rawKeysAt(raw json.RawMessage, path string) ([]string, error) {
	cur := raw
	for _, seg := range canon.SplitPath(path) {
		if strings.HasPrefix(seg, "[") {
			var arr []json.RawMessage
			if err := json.Unmarshal(cur, &arr); err != nil {
				return nil, fmt.Errorf("%s: not an array", seg)
			}
			inner := strings.TrimSuffix(strings.TrimPrefix(seg, "["), "]")
			if key, val, ok := strings.Cut(inner, "="); ok {
				found := false
				for _, e := range arr {
					var m map[string]any
					if json.Unmarshal(e, &m) == nil && fmt.Sprint(m[key]) == val {
						cur, found = e, true
						break
					}
				}
				if !found {
					return nil, fmt.Errorf("no element with %s=%s", key, val)
				}
				continue
			}
			n, err := strconv.Atoi(inner)
			if err != nil || n < 0 || n >= len(arr) {
				return nil, fmt.Errorf("%s: no such element", seg)
			}
			cur = arr[n]
			continue
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(cur, &obj); err != nil {
			return nil, fmt.Errorf("%s: not inside an object", seg)
		}
		next, ok := obj[seg]
		if !ok {
			return nil, fmt.Errorf("no key %q", seg)
		}
		cur = next
	}
	return objectKeys(cur)
}

// objectKeys lists an object's keys in the order of its bytes (json.Decoder tokens).
func objectKeys(raw json.RawMessage) ([]string, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("not an object: %s", raw)
	}
	var keys []string
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return nil, err
		}
		keys = append(keys, t.(string))
		var skip json.RawMessage
		if err := d.Decode(&skip); err != nil {
			return nil, err
		}
	}
	return keys, nil
}
