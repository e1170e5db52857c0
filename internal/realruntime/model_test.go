package realruntime

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/copilot-sdk-conformance/conformance/internal/standin"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// answer is what one chat completion said: a tool call's name and arguments, or text.
type answer struct{ tool, args, text, finish string }

func ask(t *testing.T, m *Model, stream bool) answer {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"model": "gpt-4o", "stream": stream, "messages": []any{}})
	resp, err := http.Post(m.BaseURL()+"/chat/completions", "application/json", bytes.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	type choice struct {
		Message, Delta struct {
			Content   *string `json:"content"`
			ToolCalls []struct {
				Function struct{ Name, Arguments string } `json:"function"`
			} `json:"tool_calls"`
		}
		FinishReason *string `json:"finish_reason"`
	}
	var a answer
	take := func(c choice) {
		for _, part := range []struct {
			Content   *string
			ToolCalls []struct {
				Function struct{ Name, Arguments string } `json:"function"`
			}
		}{{c.Message.Content, c.Message.ToolCalls}, {c.Delta.Content, c.Delta.ToolCalls}} {
			if part.Content != nil {
				a.text += *part.Content
			}
			for _, tc := range part.ToolCalls { // several in one message: joined by commas
				if a.tool != "" {
					a.tool, a.args = a.tool+",", a.args+","
				}
				a.tool, a.args = a.tool+tc.Function.Name, a.args+tc.Function.Arguments
			}
		}
		if c.FinishReason != nil {
			a.finish = *c.FinishReason
		}
	}
	if !stream {
		var out struct{ Choices []choice }
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
		require.Len(t, out.Choices, 1)
		take(out.Choices[0])
		return a
	}
	assert.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	sc, done := bufio.NewScanner(resp.Body), false
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		if data == "[DONE]" {
			done = true
			break
		}
		var chunk struct{ Choices []choice }
		require.NoError(t, json.Unmarshal([]byte(data), &chunk))
		for _, c := range chunk.Choices {
			take(c)
		}
	}
	assert.True(t, done, "a stream ends with [DONE]")
	return a
}

// TestModelPlaysTheScript: each session.send takes the next turn; each model call takes the
// turn's next step (several tools in one message when the step says so); a reply ends the turn's script; then the default reply, as on the stand-in.
func TestModelPlaysTheScript(t *testing.T) {
	for _, stream := range []bool{false, true} {
		t.Run(map[bool]string{false: "json", true: "stream"}[stream], func(t *testing.T) {
			m, err := StartModel()
			require.NoError(t, err)
			defer m.Close()
			m.AddTurn(standin.Turn{Steps: []standin.ModelStep{
				{Tool: "lookup", Arguments: map[string]any{"q": "x"}},
				{Together: []string{"slow", "fast"}},
				{Together: []string{"ask_user", "ask_user"}, TogetherArguments: []map[string]any{{"question": "A?"}, {"question": "B?"}}},
				{Tool: "finish"},
				{Reply: "done"},
				{Tool: "never"},
			}})
			m.NextTurn()
			want := []answer{
				{tool: "lookup", args: `{"q":"x"}`, finish: "tool_calls"},
				{tool: "slow,fast", args: `{},{}`, finish: "tool_calls"},
				{tool: "ask_user,ask_user", args: `{"question":"A?"},{"question":"B?"}`, finish: "tool_calls"},
				{tool: "finish", args: `{}`, finish: "tool_calls"},
				{text: "done", finish: "stop"},
				{text: standin.DefaultReply, finish: "stop"},
			}
			for i, w := range want {
				assert.Equal(t, w, ask(t, m, stream), "model call %d", i+1)
			}
			m.NextTurn() // a send with nothing scripted
			assert.Equal(t, answer{text: standin.DefaultReply, finish: "stop"}, ask(t, m, stream))
			assert.Equal(t, 7, m.Calls())
		})
	}
}
