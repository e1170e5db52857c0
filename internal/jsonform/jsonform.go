// Package jsonform writes a JSON value in another legal encoding of the same value: every
// integral number as a float (5.0), every number in exponent form (5e0, 1.25e-1), every string
// with escapes (\u00e9, \/) and every object's keys in reverse order. A runtime may write any of
// them (serde_json writes an f64 as 5.0; a JavaScript runtime may escape what Go's encoder does
// not), and an SDK must read each as the value it stands for.
//
// The encoder is ours: encoding/json and the JSON libraries we know write one canonical form of
// a number and a string, never these.
package jsonform

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
)

// Form is one legal encoding.
type Form string

const (
	// Floats writes every integral number with a fraction: 5 as 5.0 (a number with a fraction
	// or an exponent is written as it was).
	Floats Form = "floats"
	// Exponents writes every number in exponent form: 5 as 5e0, 1234 as 1.234e+3, 0.125 as
	// 1.25e-1.
	Exponents Form = "exponents"
	// Escapes writes every string, keys included, with the escapes other encoders write: every
	// non-ASCII character as a \u escape (a surrogate pair beyond the BMP), as Python's
	// json.dumps does by default; "/" as \/ (PHP's json_encode); <, > and & as \u003c, \u003e
	// and \u0026 (Go's HTML-safe encoder); and every object's keys in reverse order.
	Escapes Form = "escapes"
)

// Forms are the forms in a fixed order.
var Forms = []Form{Floats, Exponents, Escapes}

// Tally counts what a form wrote differently from the canonical encoding.
type Tally struct {
	Numbers int // numbers written in the form
	Strings int // strings (values and keys) written with escapes
	Objects int // objects with two keys or more written in reverse key order
}

// Add sums two tallies.
func (t Tally) Add(o Tally) Tally {
	return Tally{t.Numbers + o.Numbers, t.Strings + o.Strings, t.Objects + o.Objects}
}

// Fields is how many members the form changed (numbers and strings).
func (t Tally) Fields() int { return t.Numbers + t.Strings }

// Encode writes v (any value encoding/json marshals) in form f. Decoding the result gives the
// value decoding encoding/json's output gives.
func Encode(v any, f Form) (json.RawMessage, Tally, error) {
	canonical, err := json.Marshal(v)
	if err != nil {
		return nil, Tally{}, err
	}
	return Reencode(canonical, f)
}

// Reencode writes the JSON text in form f.
func Reencode(text []byte, f Form) (json.RawMessage, Tally, error) {
	switch f {
	case Floats, Exponents, Escapes:
	default:
		return nil, Tally{}, fmt.Errorf("jsonform: no form %q", f)
	}
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, Tally{}, fmt.Errorf("jsonform: %w", err)
	}
	e := &encoder{form: f}
	e.value(v)
	return e.buf.Bytes(), e.tally, nil
}

type encoder struct {
	form  Form
	buf   bytes.Buffer
	tally Tally
}

func (e *encoder) value(v any) {
	switch v := v.(type) {
	case nil:
		e.buf.WriteString("null")
	case bool:
		e.buf.WriteString(strconv.FormatBool(v))
	case json.Number:
		e.number(string(v))
	case string:
		e.str(v)
	case []any:
		e.buf.WriteByte('[')
		for i, x := range v {
			if i > 0 {
				e.buf.WriteByte(',')
			}
			e.value(x)
		}
		e.buf.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if e.form == Escapes && len(keys) > 1 {
			slices.Reverse(keys)
			e.tally.Objects++
		}
		e.buf.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				e.buf.WriteByte(',')
			}
			e.str(k)
			e.buf.WriteByte(':')
			e.value(v[k])
		}
		e.buf.WriteByte('}')
	}
}

func (e *encoder) number(lit string) {
	switch e.form {
	case Floats:
		if !strings.ContainsAny(lit, ".eE") {
			e.buf.WriteString(lit + ".0")
			e.tally.Numbers++
			return
		}
	case Exponents:
		e.buf.WriteString(exponent(lit))
		e.tally.Numbers++
		return
	}
	e.buf.WriteString(lit)
}

// exponent writes a JSON number literal in exponent form exactly, digit for digit (no float
// conversion: an integer beyond 2^53 keeps every digit).
func exponent(lit string) string {
	sign := ""
	if strings.HasPrefix(lit, "-") {
		sign, lit = "-", lit[1:]
	}
	mant, exp := lit, 0
	if i := strings.IndexAny(lit, "eE"); i >= 0 {
		mant = lit[:i]
		exp, _ = strconv.Atoi(strings.TrimPrefix(lit[i+1:], "+"))
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := intPart + frac
	exp += len(intPart) - 1
	// Leading zeros move the point right; trailing zeros of the fraction say nothing.
	trimmed := strings.TrimLeft(digits, "0")
	exp -= len(digits) - len(trimmed)
	trimmed = strings.TrimRight(trimmed, "0")
	if trimmed == "" {
		return sign + "0e0"
	}
	out := sign + trimmed[:1]
	if len(trimmed) > 1 {
		out += "." + trimmed[1:]
	}
	if exp > 0 {
		return out + "e+" + strconv.Itoa(exp)
	}
	return out + "e" + strconv.Itoa(exp)
}

func (e *encoder) str(s string) {
	if e.form != Escapes {
		b, _ := json.Marshal(s)
		e.buf.Write(b)
		return
	}
	if strings.ContainsFunc(s, escaped) {
		e.tally.Strings++
	}
	e.buf.WriteByte('"')
	for _, r := range s {
		switch {
		case r > 0x7e || r < 0x20 || r == '<' || r == '>' || r == '&':
			if r > 0xffff {
				hi, lo := utf16.EncodeRune(r)
				fmt.Fprintf(&e.buf, `\u%04x\u%04x`, hi, lo)
			} else {
				fmt.Fprintf(&e.buf, `\u%04x`, r)
			}
		case r == '/':
			e.buf.WriteString(`\/`)
		case r == '"' || r == '\\':
			e.buf.WriteByte('\\')
			e.buf.WriteRune(r)
		default:
			e.buf.WriteRune(r)
		}
	}
	e.buf.WriteByte('"')
}

// escaped says whether Escapes writes r as an escape.
func escaped(r rune) bool {
	return r > 0x7e || r < 0x20 || r == '/' || r == '<' || r == '>' || r == '&' || r == '"' || r == '\\'
}
