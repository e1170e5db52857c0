package standin

import (
	"fmt"
	"os"
	"strings"
)

// WriteStdioScript writes an executable at path that starts the recording runtime over stdio
// (argv, e.g. ["conformance", "runtime", "--stdio"]) recording into transcript, passing on the
// flags the SDK adds. SDKs take a single executable as their CLI path (COPILOT_CLI_PATH), hence
// the script.
func WriteStdioScript(path string, argv []string, transcript string) error {
	quoted := make([]string, 0, len(argv)+2)
	for _, a := range append(append([]string(nil), argv...), "--transcript", transcript) {
		quoted = append(quoted, "'"+strings.ReplaceAll(a, "'", `'\''`)+"'")
	}
	// CONFORMANCE_SDK_ARGC tells the runtime how many of its arguments are the SDK's own (the
	// last ones), so that it records those and not the script's.
	return os.WriteFile(path, []byte(fmt.Sprintf("#!/bin/sh\nCONFORMANCE_SDK_ARGC=$#\nexport CONFORMANCE_SDK_ARGC\nexec %s \"$@\"\n", strings.Join(quoted, " "))), 0o755)
}
