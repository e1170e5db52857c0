//go:build !copilot_sdk_uri_legacy

package main

import copilot "github.com/github/copilot-sdk/go"

// uriConnection is the SDK's connection to a running runtime. Its type name changed before 1.0
// (UriConnection in v1.0.0-beta.8, URIConnection since): a type name cannot be reached by
// reflection, so the harness's Go recipe reads the SDK's source and builds with the tag
// copilot_sdk_uri_legacy when the SDK has the older name (uri_connection_legacy.go).
type uriConnection = copilot.URIConnection
