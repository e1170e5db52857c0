package sdks

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/procgroup"
	"github.com/copilot-sdk-conformance/conformance/internal/registry"
)

// goSDKModule is the Go SDK's module path on the Go module proxy.
const goSDKModule = "github.com/github/copilot-sdk/go"

func init() {
	register(Recipe{
		Probe:       probeGo,
		Generated:   goGenerated,
		Name:        "go",
		Order:       2,
		ColdPrepare: 57 * time.Second, // `go build` from an empty module and build cache beside the others, December 2026
		MonorepoDir: "go",
		SourceDir:   goSDKSourceDir,
		LocalBase:   &LocalBase{RuntimeBase: RuntimeDebian},
		VersionsNote: "where the module proxy refuses version lists (as here), the versions are found by probing tags with `go list -m`: " +
			"vX.Y.Z (a tag that skips two patches is missed) and, with pre-releases, vX.Y.Z-preview.N and vX.0.0-beta.N " +
			"(the first numbers of each series, then upward until three in a row are missing; builds named after a CI run are not found)",
		Version:  goSyntax,
		Pinned:   pinnedIn("go.mod", `github\.com/github/copilot-sdk/go (v\S+)`),
		Pristine: pristineGo,
		// Revision 1: preparations made before the source probe downloaded the module could be
		// built without the handlers on a fresh module cache (goModuleDir). Revision 2: the
		// driver's generated type registry (drivers/go/gentypes) is written at prepare.
		Revision: 2,
		Versions: registry.Public.GoModule(goSDKModule),
		// The published-versions test probes every v1.0.0-beta.N up to registry.GoMaxBeta and the releases
		// (no previews: it samples only one pre-release).
		Published: registry.Public.GoProbeAll(goSDKModule),
		Toolchain: []Tool{{
			Bin:         "go",
			VersionArgs: []string{"version"},
			Hint:        "install Go >= 1.24 (https://go.dev/dl, or `apt-get install golang-go` where that is new enough)",
		}},
		Prepare: prepareGo,
	})
}

// prepareGo copies drivers/go (its own module, pinning the SDK in go.mod/go.sum) into the cache,
// points it at the requested SDK version or local source, and builds the driver binary there.
// The module and build caches (GOMODCACHE, GOCACHE) are the user's, so a re-prepare is fast.
func prepareGo(ctx context.Context, pc PrepareContext) (Launch, error) {
	src := filepath.Join(pc.CacheDir, "src")
	if err := os.RemoveAll(src); err != nil {
		return Launch{}, err
	}
	if err := copyGoDriver(pc.DriverDir, src); err != nil {
		return Launch{}, err
	}
	env := []string{
		"GOFLAGS=-mod=mod -buildvcs=false",
		"GOWORK=off",
	}
	goCmd := func(args ...string) error { return pc.Run(ctx, src, env, append([]string{"go"}, args...)...) }

	switch {
	case pc.Source != "":
		dir, err := goSDKSourceDir(pc.Source)
		if err != nil {
			return Launch{}, err
		}
		fmt.Fprintf(pc.Log, "go: using local SDK source %s\n", dir)
		if err := goCmd("mod", "edit", "-replace", goSDKModule+"="+dir); err != nil {
			return Launch{}, err
		}
		if err := goCmd("mod", "tidy"); err != nil {
			return Launch{}, err
		}
	default:
		version := pc.Version
		if version == "" {
			return Launch{}, fmt.Errorf("go: no SDK version given")
		}
		if !strings.HasPrefix(version, "v") {
			version = "v" + version
		}
		sum, _ := os.ReadFile(filepath.Join(src, "go.sum"))
		if !strings.Contains(string(sum), goSDKModule+" "+version+" ") {
			// Not the pinned version: resolve it and its dependencies from the proxy.
			fmt.Fprintf(pc.Log, "go: switching %s to %s\n", goSDKModule, version)
			if err := goCmd("mod", "edit", "-require="+goSDKModule+"@"+version); err != nil {
				return Launch{}, err
			}
			if err := goCmd("mod", "tidy"); err != nil {
				return Launch{}, goRegistryRefusal(version, err)
			}
		} else {
			fmt.Fprintf(pc.Log, "go: %s %s (pinned in drivers/go/go.mod)\n", goSDKModule, version)
		}
	}

	tags, err := goBuildTags(ctx, src, env)
	if err != nil {
		return Launch{}, err
	}
	sdkDir, err := goSourceDir(ctx, src, env)
	if err != nil {
		return Launch{}, err
	}
	// The driver's generated type registry (drivers/go/gentypes), as the container build writes it.
	if err := goCmd("run", "./gentypes", sdkDir, "zgenerated_types.go"); err != nil {
		return Launch{}, err
	}
	bin := filepath.Join(pc.CacheDir, "driver")
	build := []string{"build", "-o", bin}
	if len(tags) > 0 {
		fmt.Fprintf(pc.Log, "go: building with -tags %s (the SDK's older API names)\n", strings.Join(tags, ","))
		build = append(build, "-tags", strings.Join(tags, ","))
	}
	if err := goCmd(append(build, ".")...); err != nil {
		return Launch{}, err
	}
	return Launch{Argv: []string{bin}, Dir: pc.CacheDir}, nil
}

// goRefusals are what the go command prints when the module proxy or the checksum database
// will not serve a published version (some early tags have no checksum entry reachable here).
var goRefusals = regexp.MustCompile(`(?m)(verifying module: .*|server response: .*not available.*|reading https://\S+: (?:403|404|410) .*)$`)

// goRegistryRefusal turns a failed resolution of the SDK into *Unavailable with the registry's own
// words when the registry refused it; any other failure (a build error) stays an error.
func goRegistryRefusal(version string, err error) error {
	m := goRefusals.FindString(err.Error())
	if m == "" {
		return err
	}
	return &Unavailable{Reason: fmt.Sprintf("%s@%s cannot be fetched here, the Go registry says: %s", goSDKModule, version, strings.TrimSpace(m))}
}

// goModuleDir is the SDK module's folder as `go mod download -json` reported it: an absolute
// folder, never empty (an empty one made the source probe read the harness's own folder and
// build every driver without its handlers).
func goModuleDir(dir, downloadErr string) (string, error) {
	if downloadErr != "" {
		return "", fmt.Errorf("go: downloading %s: %s", goSDKModule, downloadErr)
	}
	if dir == "" || !filepath.IsAbs(dir) {
		return "", fmt.Errorf("go: the go command gave no source folder for %s (got %q)", goSDKModule, dir)
	}
	return dir, nil
}

// goSourceDir finds the folder of the SDK module the driver resolves to. A local source is a
// replace directive: `go list -m -json` names its folder, and `go mod download` prints nothing for
// it. A published version may not be in a fresh module cache yet: `go list -m` then gives an empty
// Dir, so `go mod download -json` fetches it and prints the folder.
func goSourceDir(ctx context.Context, src string, env []string) (string, error) {
	goJSON := func(args ...string) (struct {
		Dir, Error string
		Replace    *struct{ Dir string }
	}, error) {
		var mod struct {
			Dir, Error string
			Replace    *struct{ Dir string }
		}
		cmd := procgroup.Command(ctx, "go", append(args, goSDKModule)...)
		cmd.Dir, cmd.Env = src, append(os.Environ(), env...)
		out, err := procgroup.Output(cmd)
		if err != nil {
			return mod, fmt.Errorf("go: locating %s's source with `go %s`: %w (%s)", goSDKModule, strings.Join(args, " "), err, strings.TrimSpace(string(out)))
		}
		if err := json.Unmarshal(out, &mod); err != nil {
			return mod, fmt.Errorf("go: locating %s's source with `go %s`: %w (printed %q)", goSDKModule, strings.Join(args, " "), err, out)
		}
		return mod, nil
	}
	listed, err := goJSON("list", "-m", "-json")
	if err != nil {
		return "", err
	}
	if listed.Replace != nil {
		return goModuleDir(listed.Replace.Dir, listed.Error)
	}
	downloaded, err := goJSON("mod", "download", "-json")
	if err != nil {
		return "", err
	}
	return goModuleDir(downloaded.Dir, downloaded.Error)
}

// goLegacyNames are type names the SDK renamed before 1.0: reflection reaches a renamed field or
// method, not a renamed type, so the driver names such a type through an alias chosen by a build
// tag (drivers/go/uri_connection*.go). The tag is set when the SDK's source declares the old name
// and not the new one.
var goLegacyNames = []struct{ old, current, tag string }{
	{"UriConnection", "URIConnection", "copilot_sdk_uri_legacy"},
}

// goBuildTags reads the resolved SDK module's source (its folder in the module cache, or the
// local source) and returns the build tags its API names need.
func goBuildTags(ctx context.Context, src string, env []string) ([]string, error) {
	dir, err := goSourceDir(ctx, src, env)
	if err != nil {
		return nil, err
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("go: no Go files in %s's folder %q", goSDKModule, dir)
	}
	var source strings.Builder
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		source.Write(b)
	}
	declares := func(name string) bool {
		return regexp.MustCompile(`(?m)^type ` + name + ` struct\b`).MatchString(source.String())
	}
	var tags []string
	for _, n := range goLegacyNames {
		if !declares(n.current) && declares(n.old) {
			tags = append(tags, n.tag)
		}
	}
	for _, decl := range goHandlerAPI {
		if !regexp.MustCompile(`(?m)^\s*` + decl + `\b`).MatchString(source.String()) {
			fmt.Fprintf(os.Stderr, "go: the SDK does not declare %q: the driver registers no runtime->SDK handlers (tag %s)\n", decl, goNoHandlersTag)
			tags = append(tags, goNoHandlersTag)
			break
		}
	}
	for _, decl := range goRequestHandlerAPI {
		if !regexp.MustCompile(`(?m)^\s*` + decl + `\b`).MatchString(source.String()) {
			fmt.Fprintf(os.Stderr, "go: the SDK does not declare %q: the driver registers no request handler (tag %s)\n", decl, goNoRequestHandlerTag)
			tags = append(tags, goNoRequestHandlerTag)
			break
		}
	}
	return tags, nil
}

// goHandlerAPI are the declarations drivers/go/handlers.go is written against (the SDK's public
// runtime-to-SDK handler API); an SDK version lacking one builds handlers_none.go instead, which
// names every method unhandled.
var goHandlerAPI = []string{
	"type GitHubTokenProvider func", "type SessionFSProvider interface", "type CanvasHandler interface",
	"BearerTokenProvider BearerTokenProvider", "OnGitHubTelemetry func",
}

const goNoHandlersTag = "copilot_sdk_no_handlers"

// goRequestHandlerAPI are the declarations drivers/go/requests.go is written against (the SDK's
// request-handler API, older than the rest of the handler API: v1.0.4 has it, v1.0.0 not); an SDK
// version lacking one builds requests_none.go instead (capability rpc.requestHandler false).
var goRequestHandlerAPI = []string{
	`type CopilotRequestHandler struct`, `func RequestContextFrom`, `RequestHandler\s+\*CopilotRequestHandler`,
}

const goNoRequestHandlerTag = "copilot_sdk_no_request_handler"

// copyGoDriver copies the driver's module files (go.mod, go.sum, *.go) into dst.
func copyGoDriver(from, dst string) error {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	entries, err := os.ReadDir(from)
	if err != nil {
		return err
	}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() && name == "gentypes" { // the registry's generator, run at prepare
			if err := copyGoDriver(filepath.Join(from, name), filepath.Join(dst, name)); err != nil {
				return err
			}
			continue
		}
		if e.IsDir() || !(name == "go.mod" || name == "go.sum" || strings.HasSuffix(name, ".go")) {
			continue
		}
		data, err := os.ReadFile(filepath.Join(from, name))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dst, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// goSDKSourceDir finds the Go SDK module in a local folder: the folder itself (the go/ folder of a
// github/copilot-sdk checkout, or an unpacked module) or its go/ subfolder (the checkout's root).
func goSDKSourceDir(source string) (string, error) {
	abs, err := filepath.Abs(source)
	if err != nil {
		return "", err
	}
	for _, dir := range []string{abs, filepath.Join(abs, "go")} {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n") {
			if f := strings.Fields(line); len(f) >= 2 && f[0] == "module" && strings.Trim(f[1], `"`) == goSDKModule {
				return dir, nil
			}
		}
	}
	return "", fmt.Errorf("go: %s holds no module %s (looked at go.mod and go/go.mod)", source, goSDKModule)
}

// probeGo asks go doc in the prepared driver module: "pkg.Name[.Member]", where pkg is the
// SDK's package name for its root ("copilot") or a sub-package's last path element.
func probeGo(ctx context.Context, prep *Prepared, symbols []string) (map[string]bool, error) {
	out := map[string]bool{}
	for _, sym := range symbols {
		pkg, rest, ok := strings.Cut(sym, ".")
		if !ok {
			return nil, fmt.Errorf("go symbol %q: want pkg.Name[.Member]", sym)
		}
		path := goSDKModule
		if pkg != "copilot" {
			path += "/" + pkg
		}
		_, stderr, err := probeCommand(ctx, filepath.Join(prep.CacheDir, "src"), []string{"GOFLAGS=-mod=mod", "GOWORK=off"},
			"go", "doc", "-short", path, rest)
		switch {
		case err == nil:
			out[sym] = true
		case bytes.Contains(stderr, []byte("no symbol")) || bytes.Contains(stderr, []byte("no method or field")),
			// "symbol T is not a type": no type T (v1.0.0-beta.8 names rpc.HistoryApi, not
			// HistoryAPI), so it has no member either.
			bytes.Contains(stderr, []byte("is not a type")):
			out[sym] = false
		default:
			return nil, fmt.Errorf("go doc %s %s: %v: %s", path, rest, err, bytes.TrimSpace(stderr))
		}
	}
	return out, nil
}
