package sdks

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
)

// PairedRuntime is the runtime version an SDK version declares it was released with, read from
// the SDK's own files: the runtime whose schema should judge what the SDK sends (issue: a run
// says which schema judged each SDK, and why that one).
type PairedRuntime struct {
	Version  string `json:"version"`
	Evidence string `json:"evidence"` // the SDK file that declares it
}

// nodePaired reads package.json's copilotCliVersion of the installed @github/copilot-sdk (its
// platform package ships that runtime's schemas, the ones the recipe's Schema returns).
func nodePaired(prep *Prepared) (PairedRuntime, error) {
	path := filepath.Join(prep.CacheDir, "node_modules", "@github", "copilot-sdk", "package.json")
	return nodePackagePaired(path)
}

func nodePackagePaired(path string) (PairedRuntime, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return PairedRuntime{}, err
	}
	var pkg struct {
		CLI string `json:"copilotCliVersion"`
	}
	if err := json.Unmarshal(b, &pkg); err != nil {
		return PairedRuntime{}, fmt.Errorf("%s: %v", path, err)
	}
	if pkg.CLI == "" {
		return PairedRuntime{}, fmt.Errorf("%s declares no copilotCliVersion", path)
	}
	return PairedRuntime{Version: pkg.CLI, Evidence: "package.json copilotCliVersion"}, nil
}

// NodeSchemaRuntime is the runtime whose schemas a node schema folder (NodeSchemaDir: the
// platform package's schemas/) belongs to: the copilotCliVersion of the SDK beside it.
func NodeSchemaRuntime(schemaDir string) (PairedRuntime, error) {
	return nodePackagePaired(filepath.Join(schemaDir, "..", "..", "copilot-sdk", "package.json"))
}

var pythonCLIVersion = regexp.MustCompile(`(?m)^CLI_VERSION\b[^=\n]*=\s*"([^"]+)"`)

// pythonPaired reads CLI_VERSION from the installed package's copilot/_cli_version.py (written
// at publish time; None in a source checkout, which declares nothing).
func pythonPaired(prep *Prepared) (PairedRuntime, error) {
	m, _ := filepath.Glob(filepath.Join(prep.CacheDir, "venv", "lib", "python*", "site-packages", "copilot", "_cli_version.py"))
	if len(m) == 0 {
		return PairedRuntime{}, fmt.Errorf("no copilot/_cli_version.py in %s's venv", prep.CacheDir)
	}
	return fileVersion(m[0], pythonCLIVersion, "copilot/_cli_version.py CLI_VERSION")
}

var rustCLIVersion = regexp.MustCompile(`(?m)^version=(\S+)`)

// rustPaired reads the crate's cli-version.txt (the CLI its build downloads or embeds).
func rustPaired(prep *Prepared) (PairedRuntime, error) {
	crate, err := rustCrateDir(filepath.Join(prep.CacheDir, "src"))
	if err != nil {
		return PairedRuntime{}, err
	}
	return fileVersion(filepath.Join(crate, "cli-version.txt"), rustCLIVersion, "cli-version.txt")
}

func fileVersion(path string, re *regexp.Regexp, evidence string) (PairedRuntime, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return PairedRuntime{}, err
	}
	m := re.FindSubmatch(b)
	if m == nil {
		return PairedRuntime{}, fmt.Errorf("%s declares no runtime version", path)
	}
	return PairedRuntime{Version: string(m[1]), Evidence: evidence}, nil
}
