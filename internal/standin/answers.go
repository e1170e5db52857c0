package standin

import (
	"encoding/json"
	"slices"
	"time"
)

// The shapes of the stand-in's answers to the handshake and to session.create/resume, matched to
// the real runtime's (measured on 1.0.85 through conformance fidelity; see README "Fidelity").

// realTaskKinds are the task kinds the real runtime always reports; it adds "client" when the
// SDK says it supports it (measured: supportedTaskKinds [agent, client, shell] -> taskKinds
// [agent, shell, client]; no params -> [agent, shell]).
var realTaskKinds = []string{"agent", "shell"}

func connectResult(raw json.RawMessage) map[string]any {
	var p struct {
		SupportedTaskKinds []string `json:"supportedTaskKinds"`
	}
	_ = json.Unmarshal(raw, &p)
	kinds := append([]string(nil), realTaskKinds...)
	if slices.Contains(p.SupportedTaskKinds, "client") {
		kinds = append(kinds, "client")
	}
	return map[string]any{"ok": true, "protocolVersion": ProtocolVersion, "version": Version, "taskKinds": kinds}
}

// pingMessage is the real runtime's echo: "pong", or "pong: <message>" when one was sent.
func pingMessage(raw json.RawMessage) string {
	var p struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(raw, &p) == nil && p.Message != "" {
		return "pong: " + p.Message
	}
	return "pong"
}

// NotCopied are the paths of the real runtime's answers the stand-in answers differently on
// purpose ("method path" -> why): TestStandInAnswersAsTheRealRuntime judges every other path of
// every answer by the real runtime's (fixtures/reference/real-answers.json).
var NotCopied = map[string]string{
	"session.create workspacePath": workspacePathWhy,
	"session.resume workspacePath": workspacePathWhy,
}

const workspacePathWhy = "null: the stand-in keeps no session folder (the real runtime answers $HOME/.copilot/session-state/<id>)"

// sessionResult is the answer to session.create and session.resume in the real runtime's shape
// (but workspacePath, NotCopied).
func sessionResult(id string, raw json.RawMessage) map[string]any {
	var p struct {
		RequestElicitation bool   `json:"requestElicitation"`
		Model              string `json:"model"`
		ReasoningEffort    string `json:"reasoningEffort"`
	}
	_ = json.Unmarshal(raw, &p)
	// The real runtime (1.0.85) echoes the model and the reasoning effort asked for.
	model := map[string]any{}
	if p.Model != "" {
		model["modelId"] = p.Model
	}
	if p.ReasoningEffort != "" {
		model["reasoningEffort"] = p.ReasoningEffort
	}
	return map[string]any{
		"sessionId": id, "nativeSessionId": id,
		"startTime": time.Now().UTC().Format("2006-01-02T15:04:05.000Z07:00"),
		"isRemote":  false, "mode": "interactive", "workspacePath": nil,
		"capabilities": map[string]any{
			"ui":         map[string]any{"elicitation": p.RequestElicitation, "mcpApps": false, "canvases": false},
			"extensions": false,
		},
		"modelState": model,
	}
}
