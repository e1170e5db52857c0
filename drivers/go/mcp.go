package main

import (
	"encoding/json"
	"fmt"
	"reflect"

	copilot "github.com/github/copilot-sdk/go"
)

// mcpServer decodes one MCP server config into the SDK's concrete type for its "type".
func mcpServer(typ string, raw json.RawMessage) (reflect.Value, error) {
	switch typ {
	case "", "stdio", "local":
		var c copilot.MCPStdioServerConfig
		err := json.Unmarshal(raw, &c)
		return reflect.ValueOf(c), err
	case "http", "sse":
		var c copilot.MCPHTTPServerConfig
		err := json.Unmarshal(raw, &c)
		return reflect.ValueOf(c), err
	}
	return reflect.Value{}, fmt.Errorf("unknown MCP server type %q", typ)
}
