package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// construct builds a value of the SDK's type t from the harness's JSON the way an application
// writes one: a struct literal by Go field name, slices and maps element by element, a named
// string or number type converted. It never hands the JSON to the SDK's decoder (encoding/json
// with the SDK's tags and UnmarshalJSON methods): a wrong wire name or a lossy encoder in the
// SDK is symmetric, so a value decoded through it and encoded back looks right while the wire is
// wrong. The wire key finds its field by the Go naming convention (`toolName` → ToolName,
// `sessionId` → SessionID: letters compared without case and underscores), not by the json tag.
//
// What the type cannot hold as given (a key no field is named for, a value of another JSON type)
// is returned as JSON pointers into raw: the driver's `unrepresentable`. A value only the SDK's
// decoder can build (an interface a union decodes into, whose variant reflection cannot choose;
// a union struct of one pointer per variant) is decoded by it, that part alone, and recorded in
// the tally (decodeTally reads the same from the types for hello).
func construct(t reflect.Type, raw json.RawMessage) (reflect.Value, []string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if len(bytes.TrimSpace(raw)) == 0 {
		v = map[string]any{}
	} else if err := dec.Decode(&v); err != nil {
		return reflect.Value{}, nil, err
	}
	b := &builder{}
	out := b.value(t, v, "")
	sort.Strings(b.lost)
	return out, b.lost, nil
}

type builder struct{ lost []string }

var (
	rawMessageType  = reflect.TypeOf(json.RawMessage(nil))
	timeType        = reflect.TypeOf(time.Time{})
	unmarshalerType = reflect.TypeOf((*json.Unmarshaler)(nil)).Elem()
)

// value builds t from the decoded JSON v found at ptr.
func (b *builder) value(t reflect.Type, v any, ptr string) reflect.Value {
	out := reflect.New(t).Elem()
	switch {
	case t == rawMessageType:
		raw, _ := json.Marshal(v)
		out.SetBytes(raw)
		return out
	case t == timeType:
		s, ok := v.(string)
		tm, err := time.Parse(time.RFC3339Nano, s)
		if !ok || err != nil {
			b.lose(ptr)
			return out
		}
		out.Set(reflect.ValueOf(tm))
		return out
	}
	switch t.Kind() {
	case reflect.Pointer:
		if v == nil {
			if t.Elem().Kind() == reflect.Pointer {
				out.Set(reflect.New(t.Elem())) // **T: an explicit null the SDK keeps apart from absent
			}
			return out
		}
		p := reflect.New(t.Elem())
		p.Elem().Set(b.value(t.Elem(), v, ptr))
		out.Set(p)
	case reflect.Interface:
		if v == nil {
			return out
		}
		if t.NumMethod() > 0 {
			b.lose(ptr) // a union interface: only its container's decoder chooses a variant (structField)
			return out
		}
		out.Set(reflect.ValueOf(plain(v)))
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			// A union struct also holds a string or a list variant: its decoder chooses.
			if v == nil || !reflect.PointerTo(t).Implements(unmarshalerType) || !b.decodeBySDK(out, v, ptr, t.String()+": the SDK's UnmarshalJSON chooses its variant") {
				b.lose(ptr)
			}
			return out
		}
		b.fields(out, m, ptr)
	case reflect.Slice:
		if v == nil {
			return out
		}
		a, ok := v.([]any)
		if !ok {
			b.lose(ptr)
			return out
		}
		s := reflect.MakeSlice(t, len(a), len(a))
		for i, e := range a {
			s.Index(i).Set(b.value(t.Elem(), e, ptr+"/"+strconv.Itoa(i)))
		}
		out.Set(s)
	case reflect.Map:
		if v == nil {
			return out
		}
		m, ok := v.(map[string]any)
		if !ok || t.Key().Kind() != reflect.String {
			b.lose(ptr)
			return out
		}
		mv := reflect.MakeMapWithSize(t, len(m))
		for k, e := range m {
			mv.SetMapIndex(reflect.ValueOf(k).Convert(t.Key()), b.value(t.Elem(), e, ptr+"/"+escape(k)))
		}
		out.Set(mv)
	case reflect.String:
		s, ok := v.(string)
		if !ok {
			b.lose(ptr)
			return out
		}
		out.SetString(s)
	case reflect.Bool:
		x, ok := v.(bool)
		if !ok {
			b.lose(ptr)
			return out
		}
		out.SetBool(x)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, ok := v.(json.Number)
		i, err := n.Int64()
		if !ok || err != nil || out.OverflowInt(i) {
			b.lose(ptr)
			return out
		}
		out.SetInt(i)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, ok := v.(json.Number)
		i, err := strconv.ParseUint(string(n), 10, 64)
		if !ok || err != nil || out.OverflowUint(i) {
			b.lose(ptr)
			return out
		}
		out.SetUint(i)
	case reflect.Float32, reflect.Float64:
		n, ok := v.(json.Number)
		f, err := n.Float64()
		if !ok || err != nil {
			b.lose(ptr)
			return out
		}
		out.SetFloat(f)
	default:
		b.lose(ptr)
	}
	return out
}

// fields sets out's fields from m by Go field name. A union struct (one pointer field per
// variant, decoded by the SDK's UnmarshalJSON) has no field named for the variant's keys: such a
// value is decoded by the SDK and tallied.
func (b *builder) fields(out reflect.Value, m map[string]any, ptr string) {
	t := out.Type()
	byName := fieldsByName(t)
	var unnamed []string
	for k := range m {
		if _, ok := byName[fold(k)]; !ok {
			unnamed = append(unnamed, k)
		}
	}
	if len(unnamed) > 0 && reflect.PointerTo(t).Implements(unmarshalerType) && b.decodeBySDK(out, m, ptr, t.String()+": the SDK's UnmarshalJSON chooses its variant") {
		return
	}
	for _, k := range unnamed {
		b.lose(ptr + "/" + escape(k))
	}
	for k, v := range m {
		f, ok := byName[fold(k)]
		if !ok {
			continue
		}
		fv := out.FieldByIndex(f.Index)
		if holdsUnion(f.Type) && v != nil {
			// A union interface (or a list or map of one): only the container's decoder knows
			// its variants.
			one := reflect.New(t)
			if b.decodeBySDK(one.Elem(), map[string]any{k: v}, ptr, fmt.Sprintf("%s.%s (%s): the SDK decodes the union interface", t, f.Name, f.Type)) {
				fv.Set(one.Elem().FieldByIndex(f.Index))
				continue
			}
		}
		fv.Set(b.value(f.Type, v, ptr+"/"+escape(k)))
		if dropped(f, fv) {
			// The value is held, but the type's declared encoding leaves it out (omitempty on
			// a zero value: an explicit false, "", 0, [] or null): it cannot reach the wire.
			b.lose(ptr + "/" + escape(k))
		}
	}
}

// dropped says whether f's declared encoding omits the value fv holds: omitempty on an empty
// value (encoding/json's rule), which no value of the type can avoid.
func dropped(f reflect.StructField, fv reflect.Value) bool {
	_, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
	if strings.Contains(","+opts+",", ",omitzero,") && fv.IsZero() {
		return true
	}
	if !strings.Contains(","+opts+",", ",omitempty,") {
		return false
	}
	switch fv.Kind() {
	case reflect.Slice, reflect.Map, reflect.String, reflect.Array:
		return fv.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64,
		reflect.Pointer, reflect.Interface:
		return fv.IsZero()
	}
	return false
}

// holdsUnion says whether t is a union interface or a list, map or pointer of one.
func holdsUnion(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map || t.Kind() == reflect.Array {
		t = t.Elem()
	}
	return t.Kind() == reflect.Interface && t.NumMethod() > 0
}

// decodeBySDK decodes m (found at ptr) into out through encoding/json (the SDK's tags and
// decoders), for a value nothing else builds, and tallies why. The decoder drops a key the type
// has no field for without a word, so the keys of m that the decoded value has no field for are
// reported as lost (unheld), as construct reports them elsewhere.
func (b *builder) decodeBySDK(out reflect.Value, m any, ptr, why string) bool {
	raw, err := json.Marshal(m)
	if err != nil {
		return false
	}
	p := reflect.New(out.Type())
	if json.Unmarshal(raw, p.Interface()) != nil {
		return false
	}
	out.Set(p.Elem())
	b.unheld(out, m, ptr)
	decodedMu.Lock()
	decoded[why] = true
	decodedMu.Unlock()
	return true
}

func (b *builder) lose(ptr string) { b.lost = append(b.lost, ptr) }

// unheld walks v, the JSON a value was decoded from at ptr, beside val, what the SDK's decoder
// made of it, and loses each object key no field of the value's type is named for: found by the
// Go field name (fieldsByName), in the struct or, for a union struct, in a variant the decoder
// set (a non-nil pointer-to-struct field). An older SDK's type that predates a
// schema field holds no such key, and encoding it again cannot show it: the type's limitation,
// not its converter's. Only the types are read; what the values hold is the converter's to judge.
func (b *builder) unheld(val reflect.Value, v any, ptr string) {
	for val.IsValid() && (val.Kind() == reflect.Pointer || val.Kind() == reflect.Interface) {
		if val.IsNil() {
			return
		}
		val = val.Elem()
	}
	if !val.IsValid() || val.Type() == rawMessageType || val.Kind() == reflect.Struct && holdsRaw(val.Type()) {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			at := ptr + "/" + escape(k)
			switch val.Kind() {
			case reflect.Map:
				if val.Type().Key().Kind() != reflect.String {
					continue
				}
				if mv := val.MapIndex(reflect.ValueOf(k).Convert(val.Type().Key())); mv.IsValid() {
					b.unheld(mv, e, at)
				}
			case reflect.Struct:
				if fv, ok := heldBy(val, k); ok {
					b.unheld(fv, e, at)
				} else {
					b.lose(at)
				}
			}
		}
	case []any:
		if val.Kind() != reflect.Slice && val.Kind() != reflect.Array {
			return
		}
		for i, e := range x {
			if i < val.Len() {
				b.unheld(val.Index(i), e, ptr+"/"+strconv.Itoa(i))
			}
		}
	}
}

// holdsRaw says whether the struct t keeps raw JSON in a field of its own (json.RawMessage: an
// event's data the SDK has no type for), which holds any key whatever the fields are named.
func holdsRaw(t reflect.Type) bool {
	for _, f := range reflect.VisibleFields(t) {
		if f.Type == rawMessageType {
			return true
		}
	}
	return false
}

// heldBy is the field of the struct val named for the wire key k, or of a variant the decoder
// set (a non-nil pointer-to-struct field of a union struct).
func heldBy(val reflect.Value, k string) (reflect.Value, bool) {
	if f, ok := fieldsByName(val.Type())[fold(k)]; ok {
		return val.FieldByIndex(f.Index), true
	}
	for i := 0; i < val.NumField(); i++ {
		fv := val.Field(i)
		if !val.Type().Field(i).IsExported() || fv.Kind() != reflect.Pointer || fv.IsNil() || fv.Elem().Kind() != reflect.Struct {
			continue
		}
		fv = fv.Elem()
		if f, ok := fieldsByName(fv.Type())[fold(k)]; ok {
			return fv.FieldByIndex(f.Index), true
		}
	}
	return reflect.Value{}, false
}

var (
	decodedMu sync.Mutex
	decoded   = map[string]bool{}
)

// decodedSoFar is what construct has decoded through the SDK so far, and why (decodeTally is
// the same read from the types before any value is built, for hello).
func decodedSoFar() []string {
	decodedMu.Lock()
	defer decodedMu.Unlock()
	out := make([]string, 0, len(decoded))
	for k := range decoded {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

var fieldIndex sync.Map // reflect.Type → map[string]reflect.StructField

// fieldsByName maps each exported field of t (promoted ones included) by its folded Go name.
func fieldsByName(t reflect.Type) map[string]reflect.StructField {
	if m, ok := fieldIndex.Load(t); ok {
		return m.(map[string]reflect.StructField)
	}
	m := map[string]reflect.StructField{}
	for _, f := range reflect.VisibleFields(t) {
		if f.Anonymous || !f.IsExported() {
			continue
		}
		if _, dup := m[fold(f.Name)]; !dup {
			m[fold(f.Name)] = f
		}
	}
	fieldIndex.Store(t, m)
	return m
}

// fold is a name compared the Go convention's way: letters and digits, case ignored.
func fold(s string) string {
	return strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(s))
}

// plain turns json.Numbers back into float64 for an `any` field (as an application's literal).
func plain(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	case []any:
		for i := range x {
			x[i] = plain(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = plain(x[k])
		}
	}
	return v
}

// decodeTally lists, from the generated wrappers' request types (read by reflection), the types
// construct leaves to the SDK's decoder: a field of a union interface, and a struct with its own
// UnmarshalJSON (decoded by it when given a variant's keys, which no field is named for). Hello
// reports it (notes "driver.builtBy"), so a report says which values no application-level
// construction reached.
func decodeTally() (byName int, decoded []string) {
	server, session := wrappers()
	out := map[string]bool{}
	seen := map[reflect.Type]bool{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map || t.Kind() == reflect.Array {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || seen[t] || t == timeType {
			return
		}
		seen[t] = true
		if reflect.PointerTo(t).Implements(unmarshalerType) && !hasNamedFields(t) {
			out[t.String()+" (its own UnmarshalJSON chooses a variant)"] = true
		} else {
			byName++
		}
		for _, f := range reflect.VisibleFields(t) {
			if !f.IsExported() || f.Anonymous {
				continue
			}
			if holdsUnion(f.Type) {
				out[fmt.Sprintf("%s.%s (union interface %s)", t, f.Name, f.Type)] = true
				continue
			}
			walk(f.Type)
		}
	}
	for _, idx := range []wrapperIndex{server, session} {
		for _, w := range idx {
			if mt := w.method.Type; mt.NumIn() >= 3 { // receiver, ctx, request
				walk(mt.In(2))
			}
		}
	}
	for k := range out {
		decoded = append(decoded, k)
	}
	sort.Strings(decoded)
	return byName, decoded
}

// hasNamedFields says whether t's fields are the wire's (a struct whose every field is a pointer
// to a struct is one pointer per variant of a union).
func hasNamedFields(t reflect.Type) bool {
	for _, f := range reflect.VisibleFields(t) {
		if f.IsExported() && !f.Anonymous && !(f.Type.Kind() == reflect.Pointer && f.Type.Elem().Kind() == reflect.Struct) {
			return true
		}
	}
	return false
}
