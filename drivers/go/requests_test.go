//go:build !copilot_sdk_no_request_handler

package main

import "testing"

func TestContextKey(t *testing.T) {
	for goName, want := range map[string]string{
		// named by the generated start params' json tags
		"RequestID": "requestId", "SessionID": "sessionId", "AgentID": "agentId", "ParentAgentID": "parentAgentId",
		"InteractionType": "interactionType", "Transport": "transport", "Method": "method", "URL": "url",
		// no such params field: the fallback
		"TraceID": "traceId", "URLPath": "urlPath", "Kind": "kind",
	} {
		if got := contextKey(goName); got != want {
			t.Errorf("contextKey(%q) = %q, want %q", goName, got, want)
		}
	}
}
