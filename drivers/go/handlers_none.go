//go:build copilot_sdk_no_handlers

package main

// Runtime-to-SDK handlers on an SDK version that does not declare the handler API handlers.go
// is written against (the recipe sets copilot_sdk_no_handlers): every method is unhandled,
// with the reason.

import (
	"encoding/json"
	"fmt"

	copilot "github.com/github/copilot-sdk/go"
)

// hooksMapped: no hooks.invoke handler on this SDK version (capability handler.hooks).
const hooksMapped = false

// handlersGap is why this build registers no runtime->SDK handler: rpc.handlers is then false
// (a scenario about the handlers is unsupported, not a failure of an SDK that was never asked).
const handlersGap = "driver: this SDK version lacks part of the handler API the driver is written against " +
	"(GitHubTokenProvider, SessionFSProvider, CanvasHandler, NamedProviderConfig.BearerTokenProvider, " +
	"ClientOptions.OnGitHubTelemetry), so the driver registers no runtime->SDK handler on it"

type rpcHandlerSpec struct {
	Params []map[string]any `json:"params"`
	Result json.RawMessage  `json:"result"`
}

func noHandlers(specs map[string]rpcHandlerSpec) map[string]any {
	if specs == nil {
		return nil
	}
	version, _ := sdkVersion()
	un := map[string]string{}
	for m := range specs {
		un[m] = fmt.Sprintf("driver: %s %s lacks part of the handler API the driver is written against (GitHubTokenProvider, SessionFSProvider, CanvasHandler, NamedProviderConfig.BearerTokenProvider, ClientOptions.OnGitHubTelemetry), so the driver registers no runtime->SDK handler on it", sdkModule, version)
	}
	return map[string]any{"handled": []string{}, "unhandled": un}
}

func clientHandlers(_ *copilot.ClientOptions, specs map[string]rpcHandlerSpec, _ string) map[string]any {
	return noHandlers(specs)
}

func sessionHandlers(_ any, specs map[string]rpcHandlerSpec, _ string) map[string]any {
	return noHandlers(specs)
}
