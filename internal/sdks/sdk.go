// Package sdks knows, for each SDK language, how to check its toolchain, prepare its driver
// (install the pinned SDK and build the driver into a cache directory) and launch it.
//
// One file per language registers a Recipe in init(): everything the harness knows about a
// language is in that recipe (toolchain, place in reports, build outputs, how to prepare, where
// its pin is written, how selftest fetches a pristine copy, whether it ships the runtime schema).
// Every list of SDKs (Names, the --sdk help, fixtures/sdks.yaml checks) is derived from the
// registry, so a new SDK is one folder under drivers/ plus one recipe file here. The generic
// parts (caching keyed by SDK, version and driver source hash; a lock per cache key; progress;
// command execution with an output tail on failure) live in prepare.go.
package sdks

import (
	"context"
	"io"
	"sort"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/registry"
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
	// Built says how a source was built when its own steps could not be followed here (the
	// fallback a recipe took, e.g. node_fallback.go); kept with the preparation, so a reused
	// one still says it.
	Built string `json:"built,omitempty"`
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

// Recipe is one SDK language's recipe.
type Recipe struct {
	Name string // the SDK's name in every list, flag and report (drivers/<Name>, docker/<Name>.Dockerfile)
	// Order places the SDK in reports and lists (lower first).
	Order int
	// ColdPrepare is about how long a preparation takes from empty caches on a 2-core machine
	// (measured; each recipe says where). A run's preparations all wait for the longest one
	// before any scenario starts (the start gate), so the longest starts at once and the others
	// yield the cores to it (runner.Target.Yield).
	ColdPrepare time.Duration
	// Version is the registry's syntax for an exact version; --sdk-version is checked against it
	// before anything runs.
	Version VersionSyntax
	// BuildOutputs are folder names that builds write inside drivers/<Name>; they are not part
	// of the driver's source hash.
	BuildOutputs []string
	// Pinned reads the SDK version that the driver's own project pins (lockfile, go.mod,
	// pom.xml, …) from driverDir; a test checks it equals fixtures/sdks.yaml.
	Pinned func(driverDir string) (string, error)
	// Pristine, when set, fetches the published SDK package at version into dir and returns the
	// folder that --sdk-source accepts (selftest mutates copies of it).
	Pristine func(ctx context.Context, version, dir string) (string, error)
	// Schema, when set, returns the folder holding the runtime's published api.schema.json
	// inside a preparation of this SDK (the harness validates every request against it).
	Schema func(cacheDir string) (string, error)
	// Paired, when set, reads the runtime version a prepared SDK declares it was released with
	// (PairedRuntime); an error: it declares none (a source checkout, a version before the
	// declaration).
	Paired func(prep *Prepared) (PairedRuntime, error)
	// ImageSchema, with Schema, is the folder of the same schemas inside the driver image
	// (docker/<Name>.Dockerfile): `--runner docker` reads them from there, no local toolchain needed.
	ImageSchema string
	// Versions, when set, lists the versions the registry publishes in a Range (inclusive,
	// oldest first, pre-releases only when asked), asking the registry itself (bisect and
	// history use it). The bounds are part of the question because one registry (the Go proxy
	// here) will not list a module's versions: its recipe probes the candidate tags instead.
	Versions registry.Lister
	// Published, when set, lists every version the registry serves, pre-releases included, where
	// Versions cannot (the Go proxy: its pre-release tags are probed); otherwise the
	// published-versions test asks Versions for every version from 1.0.0-0 with previews.
	Published Lister
	// Newer, when set, is what doctor tells a user about versions newer than the pin that the
	// registry publishes but that were not reachable from where the pin was chosen. It states
	// what was known when pinning; doctor never claims to have checked the registry.
	Newer string
	// MonorepoDir is the language's folder in a github/copilot-sdk checkout (`--sdk-source
	// ROOT` and the workflow's pull-request mode find the SDK there).
	MonorepoDir string
	// SourceDir, when set, finds the SDK in an --sdk-source path (the path itself, or its
	// MonorepoDir folder; a package file as is) the way Prepare will, or says why the path does
	// not hold it: `--runner docker` checks the path and sends only that folder to the image build.
	SourceDir func(src string) (string, error)
	// LocalBase, when set, says how docker/<Name>.Dockerfile builds on the local base image
	// docker/local/<Name>.Dockerfile (`conformance images --local-bases`) instead of the official
	// one; a language without one cannot run with --runner docker --local-bases.
	LocalBase *LocalBase
	// VersionsNote, when set, is what bisect and history tell the user about how Versions found the
	// versions (a registry that will not list them, probed instead).
	VersionsNote string
	// DriverDir, when set, is the driver folder (absolute); default drivers/<Name> in the
	// repository. A stand-in language in a test keeps its driver under testdata.
	DriverDir string
	// Revision is part of the cache key: bump it when Prepare changes in a way that makes
	// earlier preparations wrong (the driver's own files are hashed into the key already).
	Revision  int
	Toolchain []Tool
	// Probe, when set, says whether a prepared SDK has each symbol a driver names as missing
	// in hello (written in the language's notation of drivers/PROTOCOL.md "Capability
	// audit"): the capability audit fails when one is there.
	Probe Probe
	// Generated, when set, finds the generated RPC layer in a prepared SDK's installed files (not
	// from the driver) and says where it is, or "" when this version has none: the capability
	// audit fails a driver that declares rpc.generated false while the SDK ships the layer.
	Generated func(ctx context.Context, prep *Prepared) (string, error)
	// Prepare installs the SDK and builds the driver into pc.CacheDir and says how to start it.
	// It is called only when the cache holds no finished preparation for the same key.
	Prepare func(ctx context.Context, pc PrepareContext) (Launch, error)
}

// LocalBase is how a language's driver image builds on the local base images.
type LocalBase struct {
	// RuntimeBase is the image the Dockerfile's RUNTIME_BASE stage starts from: RuntimeDebian,
	// RuntimeSelf (the language's own local base) or "" (the Dockerfile has no such stage).
	RuntimeBase string
	// HostFiles, when set, returns folders of this machine the local base's build copies in
	// (build-context name -> host folder) and a line that identifies them for the image key.
	HostFiles func() (map[string]string, string, error)
}

// Runtime bases of a LocalBase.
const (
	RuntimeDebian = "debian"
	RuntimeSelf   = "self"
)

var recipes = map[string]Recipe{}

func register(d Recipe) { recipes[d.Name] = d }

// Register adds a recipe from outside this package and returns what removes it again: for a
// test's stand-in language (the six languages register themselves in init).
func Register(d Recipe) (unregister func()) {
	if _, dup := recipes[d.Name]; dup {
		panic("sdks: a recipe named " + d.Name + " is registered already")
	}
	register(d)
	return func() { delete(recipes, d.Name) }
}

// LocalBases lists the SDKs whose driver images can build on local base images, in report order.
func LocalBases() []string {
	var out []string
	for _, n := range Names() {
		if recipes[n].LocalBase != nil {
			out = append(out, n)
		}
	}
	return out
}

// Lookup returns the recipe for an SDK name.
func Lookup(name string) (Recipe, bool) { d, ok := recipes[name]; return d, ok }

// Names lists every SDK with a recipe, in report order.
func Names() []string {
	out := make([]string, 0, len(recipes))
	for n := range recipes {
		out = append(out, n)
	}
	sort.Slice(out, func(i, j int) bool { return recipes[out[i]].Order < recipes[out[j]].Order })
	return out
}

// SchemaSource is the SDK whose preparation ships the runtime's published schema, or false.
func SchemaSource() (Recipe, bool) {
	for _, n := range Names() {
		if d := recipes[n]; d.Schema != nil {
			return d, true
		}
	}
	return Recipe{}, false
}
