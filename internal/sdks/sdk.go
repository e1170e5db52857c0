// Package sdks knows, for each SDK language, how to check its toolchain, prepare its driver
// (install the pinned SDK and build the driver into a cache directory) and launch it.
//
// One file per language registers a Driver in init(). The generic parts (caching keyed by
// SDK, version and driver source hash; progress; command execution with an output tail on failure)
// live in this file and prepare.go so that a language file holds only its own recipe.
package sdks

import (
	"context"
	"io"
)

// Tool is one executable a driver needs on PATH.
type Tool struct {
	Bin         string   // executable name, looked up on PATH
	VersionArgs []string // arguments that print its version, e.g. ["--version"]
	Hint        string   // how to get it, shown by `conformance doctor` and in `unavailable` reasons
}

// Launch is how to start a prepared driver: argv, working directory and extra environment.
type Launch struct {
	Argv []string `json:"argv"`
	Dir  string   `json:"dir"`
	Env  []string `json:"env,omitempty"`
}

// PrepareContext is what a language recipe gets to install and build its driver.
type PrepareContext struct {
	DriverDir string    // absolute path of drivers/<lang> in this repository (read only)
	CacheDir  string    // directory owned by this SDK+version+driver source; kept between runs
	Version   string    // exact SDK version to install (from fixtures/sdks.yaml or --sdk-version)
	Source    string    // absolute path of a local SDK (--sdk-source), or "" for the registry
	Log       io.Writer // progress for the user, one line per step
	// Run runs argv in dir with env added, streaming its output to Log; on failure the error
	// carries the command and the tail of its output.
	Run func(ctx context.Context, dir string, env []string, argv ...string) error
}

// Driver is one SDK language's recipe.
type Driver struct {
	Name string // "node", "go", "python", "rust", "java", "dotnet"
	// Revision is part of the cache key: bump it when Prepare changes in a way that makes
	// earlier preparations wrong (the driver's own files are hashed into the key already).
	Revision  int
	Toolchain []Tool
	// Prepare installs the SDK and builds the driver into pc.CacheDir and says how to start it.
	// It is called only when the cache holds no finished preparation for the same key.
	Prepare func(ctx context.Context, pc PrepareContext) (Launch, error)
}

var registry = map[string]Driver{}

// Order is the order SDKs are listed in reports.
var Order = []string{"node", "go", "python", "rust", "java", "dotnet"}

func register(d Driver) { registry[d.Name] = d }

// Lookup returns the recipe for an SDK name.
func Lookup(name string) (Driver, bool) { d, ok := registry[name]; return d, ok }
