package realruntime

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"

	"github.com/copilot-sdk-conformance/conformance/internal/standin"
)

// Model is the scripted model behind the real runtime: a local OpenAI-compatible server
// (POST /v1/chat/completions, non-streaming JSON or, when the request asks for it, server-sent
// events) that plays the same standin.Turn scripts the stand-in plays, so "the model calls tool
// X" means the same on both runtimes. One turn is taken per session.send (the proxy says when);
// each model call within the turn answers with its next step: a tool step as one tool call (or
// several in one message), a reply as text. When the steps run out it replies standin.DefaultReply, as the stand-in does.
//
// Hand-written on net/http rather than an OpenAI mock library: the answers are a few fixed JSON
// shapes, and what matters is that they follow the scenario's script step by step.
type Model struct {
	mu     sync.Mutex
	turns  []standin.Turn // scripted, consumed one per session.send
	taken  int
	steps  []standin.ModelStep // what is left of the current turn
	calls  int
	alias  map[string]string // scripted tool name -> the name the runtime knows it by (toolnames.go)
	srv    *http.Server
	ln     net.Listener
	closed bool
	// elicit plays an elicitation step (standin.ModelStep.Elicitation) before the model call
	// answers with the next step: the proxy has the real runtime ask the SDK (plays.go).
	elicit func(data json.RawMessage)
}

// StartModel serves the model on an ephemeral loopback port.
func StartModel() (*Model, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	m := &Model{ln: ln}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", m.complete)
	m.srv = &http.Server{Handler: mux}
	go func() { _ = m.srv.Serve(ln) }()
	return m, nil
}

// BaseURL is what a provider's baseUrl names.
func (m *Model) BaseURL() string { return "http://" + m.ln.Addr().String() + "/v1" }

// Close stops the server.
func (m *Model) Close() { _ = m.srv.Close() }

// AddTurn appends a scripted turn.
func (m *Model) AddTurn(t standin.Turn) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.turns = append(m.turns, t)
}

// Alias makes a scripted call of tool name call forwarded instead: the newest registration of a
// name the proxy had to rename (toolnames.go).
func (m *Model) Alias(name, forwarded string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.alias == nil {
		m.alias = map[string]string{}
	}
	m.alias[name] = forwarded
}

// NextTurn starts the next scripted turn (the SDK sent session.send).
func (m *Model) NextTurn() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.steps = nil
	if m.taken < len(m.turns) {
		m.steps = append([]standin.ModelStep(nil), m.turns[m.taken].Steps...)
		m.taken++
	}
}

// Calls is how many model calls the runtime made.
func (m *Model) Calls() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.calls
}

// next takes the current turn's next step; a reply ends the turn's script.
func (m *Model) next() (standin.ModelStep, int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls++
	if len(m.steps) == 0 {
		return standin.ModelStep{Reply: standin.DefaultReply}, m.calls
	}
	st := m.steps[0]
	m.steps = m.steps[1:]
	if st.Tool == "" && len(st.Together) == 0 && st.Elicitation == nil {
		m.steps = nil
	} else if a, ok := m.alias[st.Tool]; ok {
		st.Tool = a
	}
	if len(st.Together) > 0 {
		st.Together = append([]string(nil), st.Together...)
		for i, t := range st.Together {
			if a, ok := m.alias[t]; ok {
				st.Together[i] = a
			}
		}
	}
	return st, m.calls
}

func (m *Model) complete(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model  string `json:"model"`
		Stream bool   `json:"stream"`
	}
	body, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(body, &req)
	st, n := m.next()
	for st.Elicitation != nil && m.elicit != nil {
		m.elicit(st.Elicitation)
		st, n = m.next()
	}
	if req.Model == "" {
		req.Model = DefaultModel
	}
	id := fmt.Sprintf("chatcmpl-%d", n)
	msg := map[string]any{"role": "assistant", "content": replyText(st)}
	finish := "stop"
	var calls []any
	if st.Tool != "" {
		args := st.Arguments
		if args == nil {
			args = map[string]any{}
		}
		a, _ := json.Marshal(args)
		calls = []any{map[string]any{"id": fmt.Sprintf("call_%d", n), "type": "function",
			"function": map[string]any{"name": st.Tool, "arguments": string(a)}}}
	}
	// Several tools in one message (ModelStep.Together), each with its arguments, or none as
	// the stand-in asks for them.
	for i, t := range st.Together {
		args := "{}"
		if i < len(st.TogetherArguments) && st.TogetherArguments[i] != nil {
			a, _ := json.Marshal(st.TogetherArguments[i])
			args = string(a)
		}
		calls = append(calls, map[string]any{"id": fmt.Sprintf("call_%d_%d", n, i), "type": "function",
			"function": map[string]any{"name": t, "arguments": args}})
	}
	if calls != nil {
		msg = map[string]any{"role": "assistant", "content": nil, "tool_calls": calls}
		finish = "tool_calls"
	}
	usage := map[string]any{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
	if !req.Stream {
		writeJSON(w, map[string]any{"id": id, "object": "chat.completion", "created": 1, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}, "usage": usage})
		return
	}
	// Streaming: the same answer as chat.completion.chunk events, then [DONE].
	w.Header().Set("Content-Type", "text/event-stream")
	chunk := func(delta map[string]any, fin any, extra map[string]any) {
		c := map[string]any{"id": id, "object": "chat.completion.chunk", "created": 1, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": fin}}}
		for k, v := range extra {
			c[k] = v
		}
		b, _ := json.Marshal(c)
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	if calls != nil {
		for i, c := range calls {
			c.(map[string]any)["index"] = i
		}
		chunk(map[string]any{"role": "assistant", "tool_calls": calls}, nil, nil)
	} else {
		chunk(map[string]any{"role": "assistant", "content": msg["content"]}, nil, nil)
	}
	chunk(map[string]any{}, finish, map[string]any{"usage": usage})
	fmt.Fprint(w, "data: [DONE]\n\n")
}

func replyText(st standin.ModelStep) string {
	if len(st.ReplyJSON) > 0 {
		var s string
		if json.Unmarshal(st.ReplyJSON, &s) == nil {
			return s
		}
	}
	return st.Reply
}

func writeJSON(w http.ResponseWriter, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", fmt.Sprint(len(b)))
	_, _ = w.Write(b)
}
