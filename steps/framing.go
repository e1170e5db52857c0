package steps

import (
	"encoding/json"
	"fmt"

	"github.com/copilot-sdk-conformance/conformance/internal/canon"
	"github.com/copilot-sdk-conformance/conformance/internal/runtime"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
)

// Framing: how bytes reach each side (large bodies, split and coalesced frames, non-ASCII).

func (w *world) registerFraming(sc binder) {
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
	rt, err := w.standIn("runtime.script.framing")
	if err != nil {
		return err
	}
	rt.SetFraming(runtime.Framing{SplitEvery: n})
	return nil
}

func (w *world) coalesceFrames() error {
	rt, err := w.standIn("runtime.script.framing")
	if err != nil {
		return err
	}
	rt.SetFraming(runtime.Framing{Coalesce: true})
	return nil
}

func (w *world) modelRepliesLong(n int) error { return w.modelReplies(longText(n)) }

func (w *world) modelRepliesJSON(literal string) error {
	var s string
	if err := json.Unmarshal([]byte(literal), &s); err != nil {
		return fmt.Errorf("%s is not a JSON string: %w", literal, err)
	}
	w.turn.Steps = append(w.turn.Steps, runtime.ModelStep{ReplyJSON: json.RawMessage(literal)})
	return nil
}

func (w *world) replyIsLong(n int) error {
	return w.replyEquals(longText(n), fmt.Sprintf("the text of %d characters", n))
}

// replyIsJSON compares after decoding both sides the same way: a lone surrogate escape decodes
// to U+FFFD in Go, both in the expectation and in the driver's report of the reply.
func (w *world) replyIsJSON(literal string) error {
	var want string
	if err := json.Unmarshal([]byte(literal), &want); err != nil {
		return fmt.Errorf("%s is not a JSON string: %w", literal, err)
	}
	return w.replyEquals(want, literal)
}

func (w *world) replyEquals(want, what string) error {
	var r struct {
		Content *string `json:"content"`
	}
	if w.reply == nil || json.Unmarshal(w.reply, &r) != nil || r.Content == nil {
		return fmt.Errorf("the SDK returned no reply content (result %.200s)", w.reply)
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

func (w *world) sendLong(n int) error { return w.sendAndWait(longText(n)) }

func (w *world) receivedLong(n int) error {
	for _, r := range transcript.Requests(w.entries(), "") {
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
