// Package converters is the sweep of the generated layer's public converters
// (features/schema/generated_converters.feature): every object type of the runtime's schemas is
// built by name with generated values, converted to JSON with the SDK's own public converter and
// read back from that JSON with it (drivers/PROTOCOL.md "convert").
package converters

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/copilot-sdk-conformance/conformance/internal/schemagen"
	"github.com/copilot-sdk-conformance/conformance/steps/jsondiff"
	"github.com/copilot-sdk-conformance/conformance/steps/scenario"
)

// shapes are the variants by their wording in the feature.
var shapes = map[string]schemagen.Shape{
	"with every field":               schemagen.EveryField,
	"with only the required fields":  schemagen.RequiredOnly,
	"with every nullable field null": schemagen.Nulls,
	"with every union alternative":   schemagen.Unions,
}

// tried is one generated value and what the driver answered for it.
type tried struct {
	def   schemagen.ObjectDefinition
	shape string // the generated value's shape name ("every", "union /kind …")
	value any
	out   outcome
}

// outcome is one entry of the driver's `convert` answer.
type outcome struct {
	Outcome         string          `json:"outcome"`
	Reason          string          `json:"reason"`
	Error           *sdkError       `json:"error"`
	JSON            json.RawMessage `json:"json"`
	Back            json.RawMessage `json:"back"`
	ReadError       *sdkError       `json:"readError"`
	Unrepresentable []string        `json:"unrepresentable"`
}

type sdkError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

func (e *sdkError) String() string { return e.Type + ": " + e.Message }

// notBuilt says the driver could not build the value by name (a DriverError: a required field
// the schema does not have, a variant the SDK does not know): no converter ran, so nothing is
// judged; the observation counts these values and the transcript names them.
func (o outcome) notBuilt() bool {
	return o.Outcome == "error" && o.Error != nil && o.Error.Type == "DriverError"
}

// engine is the sweep's own state over the scenario's core.
type engine struct {
	*scenario.Scenario
	doc   *schemagen.Doc
	tried []tried
}

// Register binds the sweep's phrases on sc for the scenario s.
func Register(sc scenario.Binder, s *scenario.Scenario) {
	w := &engine{Scenario: s}
	scenario.Needing(sc, scenario.Needs("convert.roundtrip")).Step(`^the application builds every object type of the runtime's schemas by name, (with every field|with only the required fields|with every nullable field null|with every union alternative), and converts each to JSON and back with the SDK's public converters$`, w.convert)
	sc.Step(`^each type's JSON is the value as the schema writes it$`, w.written)
	sc.Step(`^each type reads back from its JSON as the same value$`, w.readBack)
}

// convertBatch bounds the values of one convert command. A shared driver serves other
// scenarios meanwhile (PROTOCOL.md "Shared drivers"), and one command carrying every value of a
// variant (up to 1,400, megabytes of JSON each way) kept a loaded driver busy for tens of
// seconds, so other scenarios' liveness hellos (10 s) timed out and their driver was killed;
// about 100 values keep each command, and each line, to a fraction of a second. A few values
// are large (a union of event types: one batch of 100 was 600 KB out, 1.2 MB back and 3.4 s on
// an idle machine), so a batch also ends at convertBatchBytes of values' JSON.
const (
	convertBatch      = 100
	convertBatchBytes = 64 << 10
)

// convert sends every generated value of the variant, convertBatch values per driver command.
func (w *engine) convert(variant string) error {
	shape, ok := shapes[variant]
	if !ok {
		return fmt.Errorf("no variant %q", variant)
	}
	doc, err := w.Schemas()
	if err != nil {
		return err
	}
	w.doc = doc
	var values []any
	var sizes []int
	var dropped []string
	for _, def := range doc.ObjectDefinitions() {
		vs, left := doc.DefinitionShapes(def, shape)
		dropped = append(dropped, left...)
		for _, v := range vs {
			// Compared as JSON decodes it (numbers as float64), as the driver's answer is.
			b, err := json.Marshal(v.Value)
			if err != nil {
				return err
			}
			value, err := decode(b)
			if err != nil {
				return err
			}
			w.tried = append(w.tried, tried{def: def, shape: v.Name, value: value})
			values = append(values, map[string]any{"type": def.Name, "value": v.Value})
			sizes = append(sizes, len(b))
		}
	}
	if len(dropped) > 0 {
		w.Rec.Notef("", "convert: %d generated values left out (they do not validate):\n%s", len(dropped), strings.Join(dropped, "\n"))
	}
	if len(values) == 0 {
		return fmt.Errorf("the schemas give no value %s", variant)
	}
	for _, b := range batches(sizes, convertBatch, convertBatchBytes) {
		if err := w.send(values[b[0]:b[1]], b[0]); err != nil {
			return err
		}
	}
	w.observe()
	return nil
}

// batches cuts the values, by their JSON sizes, into [start, end) ranges of at most n values and,
// unless a single value is larger, at most bytes.
func batches(sizes []int, n, bytes int) [][2]int {
	var out [][2]int
	start, total := 0, 0
	for i, size := range sizes {
		if i > start && (i-start == n || total+size > bytes) {
			out = append(out, [2]int{start, i})
			start, total = i, 0
		}
		total += size
	}
	if start < len(sizes) {
		out = append(out, [2]int{start, len(sizes)})
	}
	return out
}

// send converts values, the tried values from offset on, in one driver command.
func (w *engine) send(values []any, offset int) error {
	raw, err := w.Do("convert", map[string]any{"values": values})
	if err != nil {
		return err
	}
	var ans struct {
		Outcomes []outcome `json:"outcomes"`
	}
	if err := json.Unmarshal(raw, &ans); err != nil {
		return fmt.Errorf("the %s driver's convert answer: %w", w.T.SDK(), err)
	}
	if len(ans.Outcomes) != len(values) {
		return fmt.Errorf("the %s driver answered %d outcomes for %d values", w.T.SDK(), len(ans.Outcomes), len(values))
	}
	for i, o := range ans.Outcomes {
		w.tried[offset+i].out = o
	}
	return nil
}

// observe counts, per scenario, the types tried and what the SDK could not take (the report
// shows it per SDK).
func (w *engine) observe() {
	types, generated := map[string]bool{}, map[string]bool{}
	values, members := 0, 0
	var faults, notBuilt []string
	for _, t := range w.tried {
		types[t.def.Name] = true
		if t.out.notBuilt() {
			notBuilt = append(notBuilt, fmt.Sprintf("%s (%s): %s", t.def.Name, t.shape, t.out.Error.Message))
			continue
		}
		switch t.out.Outcome {
		case "ok", "error":
			generated[t.def.Name] = true
			values++
			members += len(t.out.Unrepresentable)
		case "unsupported":
		default:
			faults = append(faults, t.def.Name)
		}
	}
	w.Observe("generated types round-tripped", fmt.Sprintf("%d of %d object types (%d values); %d members the types cannot hold as given; %d values the driver cannot build by name",
		len(generated), len(types), values, members, len(notBuilt)))
	if len(notBuilt) > 0 {
		w.Rec.Notef("", "convert: %d values the driver cannot build by name (not judged):\n%s", len(notBuilt), strings.Join(notBuilt, "\n"))
	}
	if len(faults) > 0 {
		w.Rec.Notef("", "convert: outcomes of no known kind for %s", strings.Join(faults, ", "))
	}
	var missing []string
	for n := range types {
		if !generated[n] {
			missing = append(missing, n)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		w.Rec.Notef("", "convert: %d object types of the schemas the SDK generates no type for: %s", len(missing), strings.Join(missing, ", "))
	}
}

// restored is the JSON written with each member the driver reported unrepresentable set back to
// the value built (removed where none was built), but for a null built: the type held that one.
func (t tried) restored(got any) any {
	b, _ := json.Marshal(got)
	out, _ := decode(b)
	for _, p := range t.out.Unrepresentable {
		v, built := pointer(t.value, p)
		if built && v == nil {
			continue
		}
		out = setAt(out, p, v, built)
	}
	return out
}

// setAt sets (or, when !present, removes) the member at ptr of v, a decoded JSON value, and
// returns v; a pointer whose parent is not there changes nothing.
func setAt(v any, ptr string, val any, present bool) any {
	if ptr == "" {
		if present {
			return val
		}
		return v
	}
	i := strings.LastIndex(ptr, "/")
	parent, ok := pointer(v, ptr[:i])
	if !ok {
		return v
	}
	key := strings.ReplaceAll(strings.ReplaceAll(ptr[i+1:], "~1", "/"), "~0", "~")
	switch x := parent.(type) {
	case map[string]any:
		if present {
			x[key] = val
		} else {
			delete(x, key)
		}
	case []any:
		if n, err := strconv.Atoi(key); err == nil && n >= 0 && n < len(x) && present {
			x[n] = val
		}
	}
	return v
}

// pointer is the value at a JSON pointer into v.
func pointer(v any, ptr string) (any, bool) {
	if ptr == "" {
		return v, true
	}
	for _, seg := range strings.Split(ptr[1:], "/") {
		seg = strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[seg]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// under says whether ptr is at or below one of the pointers.
func under(ptr string, ptrs []string) bool {
	for _, p := range ptrs {
		if ptr == p || strings.HasPrefix(ptr, p+"/") {
			return true
		}
	}
	return false
}

func decode(raw json.RawMessage) (any, error) {
	var v any
	err := json.Unmarshal(raw, &v)
	return v, err
}

// written judges what the SDK's converter wrote: the value as built, key for key (but where the
// driver reported a member the type cannot hold), and valid against the type's definition.
func (w *engine) written() error {
	if w.tried == nil {
		return fmt.Errorf("no type was converted in this scenario")
	}
	groups := map[string][]string{}
	for _, t := range w.tried {
		switch t.out.Outcome {
		case "unsupported":
			continue
		case "error":
			if !t.out.notBuilt() {
				groups[t.def.Name] = append(groups[t.def.Name], fmt.Sprintf("%s: the converter to JSON raised %s", t.shape, t.out.Error))
			}
			continue
		}
		got, err := decode(t.out.JSON)
		if err != nil {
			groups[t.def.Name] = append(groups[t.def.Name], fmt.Sprintf("%s: the JSON written is not JSON: %v", t.shape, err))
			continue
		}
		var lines []string
		for _, d := range jsondiff.Diff(t.value, got, "") {
			// A null left out where the schema lets the key be absent is the same value to the
			// schema (a required one is a violation, below); a member the type cannot hold is
			// that limitation, counted in the observation, not the converter's.
			if under(d.Path, t.out.Unrepresentable) || d.Kind == "missing" && d.Want == nil {
				continue
			}
			lines = append(lines, d.Say("built", "written"))
		}
		// Validated with the members the type cannot hold put back as built, so that what is
		// invalid only there is that limitation; a null stays as written (the type held it).
		invalid := w.doc.Violations(t.def, t.restored(got))
		if len(invalid) > 0 {
			lines = append(lines, "does not validate: "+strings.Join(invalid, "; "))
		}
		if len(lines) > 0 {
			groups[t.def.Name] = append(groups[t.def.Name], t.shape+": "+strings.Join(lines, "; "))
		}
	}
	return jsondiff.GroupedError(groups, "generated values whose JSON is not the value built", "types")
}

// readBack judges the converter from JSON: what it read, written again, is the JSON it read.
func (w *engine) readBack() error {
	if w.tried == nil {
		return fmt.Errorf("no type was converted in this scenario")
	}
	groups := map[string][]string{}
	for _, t := range w.tried {
		if t.out.Outcome != "ok" {
			continue
		}
		if t.out.ReadError != nil {
			groups[t.def.Name] = append(groups[t.def.Name], fmt.Sprintf("%s: the converter from JSON raised %s", t.shape, t.out.ReadError))
			continue
		}
		written, err1 := decode(t.out.JSON)
		back, err2 := decode(t.out.Back)
		if err1 != nil || err2 != nil {
			groups[t.def.Name] = append(groups[t.def.Name], fmt.Sprintf("%s: the driver's answer is not JSON", t.shape))
			continue
		}
		var lines []string
		for _, d := range jsondiff.Diff(written, back, "") {
			lines = append(lines, d.Say("written", "read back"))
		}
		if len(lines) > 0 {
			groups[t.def.Name] = append(groups[t.def.Name], t.shape+": "+strings.Join(lines, "; "))
		}
	}
	return jsondiff.GroupedError(groups, "generated values that do not read back as written", "types")
}
