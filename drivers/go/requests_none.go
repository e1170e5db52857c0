//go:build copilot_sdk_no_request_handler

package main

// connect's requestHandler on an SDK version without the request-handler API requests.go is
// written against (the recipe sets copilot_sdk_no_request_handler): rpc.requestHandler is false
// and a requestHandler is unsupported.

import (
	"fmt"

	copilot "github.com/github/copilot-sdk/go"
)

// hasRequestHandler: capability rpc.requestHandler.
const hasRequestHandler = false

type requestHandlerSpec struct {
	Start string `json:"start"`
	Chunk string `json:"chunk"`
}

func serveRequests(_ *copilot.ClientOptions, _ *requestHandlerSpec, _ string) (map[string]any, error) {
	version, _ := sdkVersion()
	return nil, unsupported{fmt.Sprintf("%s %s has no copilot.CopilotRequestHandler (ClientOptions.RequestHandler)", sdkModule, version)}
}
