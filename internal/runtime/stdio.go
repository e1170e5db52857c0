package runtime

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
	return os.WriteFile(path, []byte(fmt.Sprintf("#!/bin/sh\nexec %s \"$@\"\n", strings.Join(quoted, " "))), 0o755)
}
