package steps

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/copilot-sdk-conformance/conformance/internal/canon"
	"github.com/copilot-sdk-conformance/conformance/internal/standin"
	"github.com/copilot-sdk-conformance/conformance/internal/suite"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/copilot-sdk-conformance/conformance/steps/scenario"
)

// Framing: how bytes reach each side (large bodies, split and coalesced frames, non-ASCII).

func (w *world) registerFraming(sc scenario.Binder) {
	sc.Step(`^the runtime writes each frame in pieces of (\d+) bytes$`, w.splitFrames)
	sc.Step(`^the runtime writes several frames at once$`, w.coalesceFrames)
	sc.Step(`^the model then replies with a text of (\d+) characters$`, w.modelRepliesLong)
	sc.Step(`^the model then replies with the JSON string (".*")$`, w.modelRepliesJSON)
	sc.Step(`^the reply is the text of (\d+) characters$`, w.replyIsLong)
	sc.Step(`^the reply is the JSON string (".*")$`, w.replyIsJSON)
	sc.Step(`^a prompt of (\d+) characters is sent and the SDK waits for the reply$`, w.sendLong)
	sc.Step(`^the runtime received the prompt of (\d+) characters$`, w.receivedLong)
	sc.Step(`^a tool "([^"]*)" whose handler returns a text of (\d+) characters$`, w.toolReturnsLong)
	sc.Step(`^the SDK answered the call to "([^"]*)" with the text of (\d+) characters$`, w.answeredWithLong)
}

// longText is n characters mixing 1-, 2-, 3- and 4-byte UTF-8 (the last one a surrogate pair
// in UTF-16), so byte counts, character counts and UTF-16 lengths all differ.
func longText(n int) string {
	pattern := []rune("abcdefghé日😀 ")
	out := make([]rune, n)
	for i := range out {
		out[i] = pattern[i%len(pattern)]
	}
	return string(out)
}

func (w *world) splitFrames(n int) error {
	if n < 1 {
		return fmt.Errorf("pieces must be at least 1 byte")
	}
	return w.setFraming(standin.Framing{SplitEvery: n})
}

func (w *world) coalesceFrames() error { return w.setFraming(standin.Framing{Coalesce: true}) }

// setFraming has the runtime's frames written as f says: the stand-in writes its own that way,
// the recording proxy in front of the real runtime writes the real runtime's frames that way
// (suite.Framer); any other runtime lacks runtime.script.framing.
func (w *world) setFraming(f standin.Framing) error {
	if fr, ok := w.RT.(suite.Framer); ok {
		fr.SetFraming(f)
		return nil
	}
	rt, err := w.StandIn("runtime.script.framing")
	if err != nil {
		return err
	}
	rt.SetFraming(f)
	return nil
}

func (w *world) modelRepliesLong(n int) error { return w.modelReplies(longText(n)) }

func (w *world) modelRepliesJSON(literal string) error {
	var s string
	if err := json.Unmarshal([]byte(literal), &s); err != nil {
		return fmt.Errorf("%s is not a JSON string: %w", literal, err)
	}
	// The real runtime re-encodes the model's text before the SDK sees it, so only a runtime
	// that writes the literal as given can put an unpaired surrogate escape on the wire.
	if units, err := utf16Units([]byte(literal)); err == nil && hasUnpairedSurrogate(units) {
		if err := w.RuntimeCan("runtime.script.escapes"); err != nil {
			return err
		}
	}
	w.Turn.Steps = append(w.Turn.Steps, standin.ModelStep{ReplyJSON: json.RawMessage(literal)})
	return nil
}

// hasUnpairedSurrogate says whether UTF-16 units hold a surrogate that is not half of a pair.
func hasUnpairedSurrogate(units []uint16) bool {
	for i := 0; i < len(units); i++ {
		switch u := units[i]; {
		case u >= 0xD800 && u < 0xDC00 && i+1 < len(units) && units[i+1] >= 0xDC00 && units[i+1] < 0xE000:
			i++ // a well-formed pair
		case u >= 0xD800 && u < 0xE000:
			return true
		}
	}
	return false
}

func (w *world) replyIsLong(n int) error {
	return w.replyEquals(longText(n), fmt.Sprintf("the text of %d characters", n))
}

// replyIsJSON compares UTF-16 code units read from the raw bytes on both sides: Go's JSON
// decoder maps an unpaired surrogate escape to U+FFFD, so decoding both sides would make a
// preserved "\ud83d" and a replaced U+FFFD look the same. What the SDK kept is recorded as an
// observation for the cross-SDK comparison.
func (w *world) replyIsJSON(literal string) error {
	want, err := utf16Units([]byte(literal))
	if err != nil {
		return fmt.Errorf("%s is not a JSON string: %w", literal, err)
	}
	var r map[string]json.RawMessage
	if w.Reply == nil || json.Unmarshal(w.Reply, &r) != nil || r["content"] == nil {
		return fmt.Errorf("the SDK returned no reply content (result %.200s)", w.Reply)
	}
	got, err := utf16Units(r["content"])
	if err != nil {
		return fmt.Errorf("the reply content %.200s: %w", r["content"], err)
	}
	if i := firstDiffUnits(got, want); i >= 0 {
		what := "another character"
		if i < len(got) && got[i] == unicode.ReplacementChar {
			what = "U+FFFD"
		}
		w.Observe("unpaired surrogate", what)
		return fmt.Errorf("the reply differs from %s at UTF-16 unit %d: got %s (%s), want %s", literal, i, unitAt(got, i), what, unitAt(want, i))
	}
	w.Observe("unpaired surrogate", "kept")
	return nil
}

// utf16Units decodes a JSON string literal into UTF-16 code units, keeping a \uXXXX escape as
// the unit it names even when it is an unpaired surrogate (which encoding/json replaces; hence
// this small decoder). Raw bytes that are not UTF-8 decode to U+FFFD, as any reader would.
func utf16Units(lit []byte) ([]uint16, error) {
	lit = bytes.TrimSpace(lit)
	if len(lit) < 2 || lit[0] != '"' || lit[len(lit)-1] != '"' {
		return nil, fmt.Errorf("not a JSON string")
	}
	var out []uint16
	body := lit[1 : len(lit)-1]
	for i := 0; i < len(body); {
		c := body[i]
		if c != '\\' {
			r, n := utf8.DecodeRune(body[i:])
			out = utf16.AppendRune(out, r)
			i += n
			continue
		}
		if i+1 >= len(body) {
			return nil, fmt.Errorf("a lone backslash at the end")
		}
		switch e := body[i+1]; e {
		case '"', '\\', '/':
			out, i = append(out, uint16(e)), i+2
		case 'b', 'f', 'n', 'r', 't':
			out, i = append(out, uint16(map[byte]byte{'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}[e])), i+2
		case 'u':
			if i+6 > len(body) {
				return nil, fmt.Errorf("a short \\u escape")
			}
			v, err := strconv.ParseUint(string(body[i+2:i+6]), 16, 16)
			if err != nil {
				return nil, fmt.Errorf("a bad \\u escape %q", body[i:i+6])
			}
			out, i = append(out, uint16(v)), i+6
		default:
			return nil, fmt.Errorf("an unknown escape \\%c", e)
		}
	}
	return out, nil
}

func firstDiffUnits(a, b []uint16) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}

func unitAt(u []uint16, i int) string {
	if i >= len(u) {
		return "the end"
	}
	return fmt.Sprintf("U+%04X", u[i])
}

func (w *world) replyEquals(want, what string) error {
	var r struct {
		Content *string `json:"content"`
	}
	if w.Reply == nil || json.Unmarshal(w.Reply, &r) != nil || r.Content == nil {
		return fmt.Errorf("the SDK returned no reply content (result %.200s)", w.Reply)
	}
	if *r.Content != want {
		return fmt.Errorf("the reply differs from %s at character %d (got %d characters, want %d)",
			what, firstDiff([]rune(*r.Content), []rune(want)), len([]rune(*r.Content)), len([]rune(want)))
	}
	return nil
}

func firstDiff(a, b []rune) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func (w *world) sendLong(n int) error { return w.SendAndWait(longText(n)) }

func (w *world) receivedLong(n int) error {
	for _, r := range transcript.Requests(w.Entries(), "") {
		if r.Method != "session.send" && r.Method != "session.sendAndWait" {
			continue
		}
		v, _ := canon.Decode(r.Params)
		if p, _ := canon.Get(v, "prompt"); p == longText(n) {
			return nil
		}
	}
	return fmt.Errorf("no session.send carried the prompt of %d characters intact", n)
}

func (w *world) toolReturnsLong(name string, n int) error {
	w.tool(name)["handler"] = map[string]any{"action": "return", "text": longText(n)}
	return nil
}

func (w *world) answeredWithLong(tool string, n int) error {
	call, err := w.lastCall(tool)
	if err != nil {
		return err
	}
	_, ok, text := resultShape(call.answer)
	if !ok || text != longText(n) {
		return fmt.Errorf("the SDK answered the call to %q with %d characters (success %v), want the text of %d characters intact",
			tool, len([]rune(text)), ok, n)
	}
	return nil
}
