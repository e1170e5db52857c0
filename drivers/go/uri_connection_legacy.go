//go:build copilot_sdk_uri_legacy

package main

import copilot "github.com/github/copilot-sdk/go"

// uriConnection: the SDK's older name (see uri_connection.go).
type uriConnection = copilot.UriConnection
