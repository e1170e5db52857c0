package sdks

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/registry"
)

// The Node driver: drivers/node/driver.mjs, surface.mjs, handlers.mjs and holds.mjs (plain ESM, no build step) copied into the cache
// directory together with its package.json and package-lock.json, npm @github/copilot-sdk
// installed next to it (node resolves modules relative to the script), and run with node.
//
// After Prepare, pc.CacheDir/node_modules holds the SDK and its platform package
// (@github/copilot-sdk-linux-x64), whose schemas/ folder carries the runtime's published
// api.schema.json and session-events.schema.json; pc.CacheDir/runtime-schemas links to that
// folder (see NodeSchemaDir).
func init() {
	register(Recipe{
		Probe:        probeNode,
		Generated:    nodeGenerated,
		Name:         "node",
		Order:        1,
		ColdPrepare:  10 * time.Second, // `npm ci` from an empty npm cache (the schema load of a cold run), December 2026
		MonorepoDir:  "nodejs",
		LocalBase:    &LocalBase{},
		Version:      npmSyntax,
		BuildOutputs: []string{"node_modules"},
		Pinned:       func(dir string) (string, error) { return nodeLockedVersion(filepath.Join(dir, "package-lock.json")) },
		Pristine:     pristineNode,
		Paired:       nodePaired,
		Versions:     registry.Public.NPM(nodePackage),
		Schema:       NodeSchemaDir,
		// docker/node.Dockerfile links /driver/runtime-schemas as prepareNode links it in the cache.
		ImageSchema: "/driver/" + nodeSchemaLink,
		SourceDir:   nodeSourceDir,
		Toolchain: []Tool{
			{
				Bin:         "node",
				VersionArgs: []string{"--version"},
				Hint:        "install Node.js ^20.19.0 or >= 22.12.0 (Debian: apt-get install nodejs npm, or https://nodejs.org)",
			},
			{
				Bin:         "npm",
				VersionArgs: []string{"--version"},
				Hint:        "npm comes with Node.js (Debian: apt-get install npm)",
			},
		},
		Prepare: prepareNode,
	})
}

const (
	nodePackage = "@github/copilot-sdk"
	// nodeSchemaLink is the documented place of the runtime schemas inside a prepared cache.
	nodeSchemaLink = "runtime-schemas"
)

// The files of drivers/node that make up the driver.
var nodeDriverFiles = []string{"driver.mjs", "surface.mjs", "handlers.mjs", "holds.mjs", "package.json", "package-lock.json"}

func prepareNode(ctx context.Context, pc PrepareContext) (Launch, error) {
	if err := os.MkdirAll(pc.CacheDir, 0o755); err != nil {
		return Launch{}, err
	}
	// The SDK declares engines "^20.19.0 || >=22.12.0"; the driver needs import.meta.resolve.
	if err := pc.Run(ctx, pc.CacheDir, nil, "node", "-e",
		`const [a,b]=process.versions.node.split(".").map(Number);`+
			`if(!(a>22||(a===22&&b>=12)||(a===20&&b>=19)))`+
			`{console.error("@github/copilot-sdk needs Node ^20.19.0 or >=22.12.0, node is "+process.version);process.exit(1)}`); err != nil {
		return Launch{}, err
	}
	for _, name := range nodeDriverFiles {
		body, err := os.ReadFile(filepath.Join(pc.DriverDir, name))
		if err != nil {
			return Launch{}, err
		}
		if err := os.WriteFile(filepath.Join(pc.CacheDir, name), body, 0o644); err != nil {
			return Launch{}, err
		}
	}

	// npm keeps its default cache (~/.npm, or npm_config_cache), so a re-prepare reuses the
	// downloaded tarballs. --ignore-scripts: the only install script in the tree is koffi's, which
	// serves the SDK's in-process (FFI) transport that the driver never uses.
	npmEnv := []string{"npm_config_update_notifier=false"}
	flags := []string{"--no-audit", "--no-fund", "--ignore-scripts"}
	source := "npm:" + nodePackage + "@" + pc.Version
	fallback := "" // how a source without dist/ was built, when not by its own install step
	switch {
	case pc.Source != "":
		src, err := nodeSourceDir(pc.Source)
		if err != nil {
			return Launch{}, err
		}
		// A checkout's nodejs/ folder is source: it is built in a copy, by its own lockfile
		// and build script, and the copy is installed.
		if !nodeBuilt(src) {
			built, how, err := buildNodeSource(ctx, pc, src)
			fallback = how
			if err != nil {
				return Launch{}, err
			}
			src = built
		}
		// The committed lockfile pins the registry package; a local SDK replaces it.
		// --install-links copies the folder (as `npm pack` would) instead of symlinking it, so
		// the SDK's own dependencies are installed here and the source folder is left untouched.
		if err := os.Remove(filepath.Join(pc.CacheDir, "package-lock.json")); err != nil && !os.IsNotExist(err) {
			return Launch{}, err
		}
		argv := append([]string{"npm", "install"}, flags...)
		argv = append(argv, "--install-links", src)
		if err := pc.Run(ctx, pc.CacheDir, npmEnv, argv...); err != nil {
			return Launch{}, err
		}
		source = "file:" + src
	default:
		locked, err := nodeLockedVersion(filepath.Join(pc.CacheDir, "package-lock.json"))
		if err != nil {
			return Launch{}, err
		}
		var argv []string
		if pc.Version == locked {
			// Not `npm ci`: the registry serves only the linux-x64 platform packages of the
			// SDK's optionalDependencies, so the lockfile lacks the other platforms and `npm ci`
			// refuses it as out of sync. `npm install` installs exactly the locked tree.
			argv = append([]string{"npm", "install", "--prefer-offline"}, flags...)
		} else {
			argv = append([]string{"npm", "install"}, flags...)
			argv = append(argv, "--save-exact", nodePackage+"@"+pc.Version)
		}
		if err := pc.Run(ctx, pc.CacheDir, npmEnv, argv...); err != nil {
			return Launch{}, err
		}
	}

	script := filepath.Join(pc.CacheDir, "driver.mjs")
	// Fails here, with the reason, when the installed SDK cannot be imported.
	if err := pc.Run(ctx, pc.CacheDir, nil, "node", script, "--self-check"); err != nil {
		return Launch{}, err
	}
	if dir, err := NodeSchemaDir(pc.CacheDir); err == nil {
		link := filepath.Join(pc.CacheDir, nodeSchemaLink)
		_ = os.Remove(link)
		if rel, err := filepath.Rel(pc.CacheDir, dir); err == nil {
			_ = os.Symlink(rel, link)
		}
	} else {
		fmt.Fprintf(pc.Log, "node: %v\n", err)
	}
	return Launch{
		Argv:  []string{"node", script},
		Dir:   pc.CacheDir,
		Env:   []string{"CONFORMANCE_SDK_SOURCE=" + source},
		Built: fallback,
	}, nil
}

// NodeSchemaDir returns the folder holding the runtime's api.schema.json and
// session-events.schema.json inside a prepared node cache directory: the schemas/ folder of the
// SDK's platform package (node_modules/@github/copilot-sdk-<platform>/schemas for the published
// SDK; a checkout's SDK depends on @github/copilot instead).
func NodeSchemaDir(cacheDir string) (string, error) {
	if dir, err := filepath.EvalSymlinks(filepath.Join(cacheDir, nodeSchemaLink)); err == nil {
		if _, err := os.Stat(filepath.Join(dir, "api.schema.json")); err == nil {
			return dir, nil
		}
	}
	matches, _ := filepath.Glob(filepath.Join(cacheDir, "node_modules", "@github", "*", "schemas", "api.schema.json"))
	if len(matches) == 0 {
		return "", fmt.Errorf("no node_modules/@github/*/schemas/api.schema.json under %s", cacheDir)
	}
	sort.Strings(matches)
	return filepath.Dir(matches[0]), nil
}

// nodeLockedVersion reads the SDK version pinned in the committed package-lock.json.
func nodeLockedVersion(lockfile string) (string, error) {
	body, err := os.ReadFile(lockfile)
	if err != nil {
		return "", err
	}
	var lock struct {
		Packages map[string]struct {
			Version string `json:"version"`
		} `json:"packages"`
	}
	if err := json.Unmarshal(body, &lock); err != nil {
		return "", fmt.Errorf("node: %s: %w", lockfile, err)
	}
	v := lock.Packages["node_modules/"+nodePackage].Version
	if v == "" {
		return "", fmt.Errorf("node: %s does not lock %s", lockfile, nodePackage)
	}
	return v, nil
}

// nodeSourceDir finds the installable Node SDK in a local path: a package tarball (.tgz) as is,
// a folder whose package.json is @github/copilot-sdk (an unpacked `npm pack`, or nodejs/ of a
// checkout), or the nodejs/ subfolder of a github/copilot-sdk checkout. A folder without a
// built dist/ is built by Prepare (buildNodeSource).
func nodeSourceDir(src string) (string, error) {
	dir, err := LocalSource(src, "nodejs", func(dir string) (bool, error) {
		body, err := os.ReadFile(filepath.Join(dir, "package.json"))
		if err != nil {
			return false, nil
		}
		var pkg struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(body, &pkg) != nil || pkg.Name != nodePackage {
			return false, nil
		}
		return true, nil
	})
	if err != nil {
		return "", fmt.Errorf("node: %w (want the package.json of %s)", err, nodePackage)
	}
	return dir, nil
}

// probeNode reads the SDK package's TypeScript declarations: "Name.member" is a member of the
// class, interface, namespace, object type or object-typed const Name; "Name" an exported declaration. TypeScript types do not
// exist at run time, so the declarations are what an application compiles against.
func probeNode(_ context.Context, prep *Prepared, symbols []string) (map[string]bool, error) {
	dts, err := readSources(filepath.Join(prep.CacheDir, "node_modules", filepath.FromSlash(nodePackage), "dist"), ".d.ts")
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, sym := range symbols {
		out[sym] = dtsHas(dts, sym)
	}
	return out, nil
}

// dtsHas says whether TypeScript declarations declare sym ("Name.member" or "Name").
func dtsHas(dts, sym string) bool {
	owner, member := splitMember(sym, ".")
	o := regexp.QuoteMeta(owner)
	if member == "" {
		return regexp.MustCompile(`\b(?:function|class|interface|type|const|enum)\s+` + o + `\b`).MatchString(dts)
	}
	decl := blocks(dts, regexp.MustCompile(`\b(?:(?:class|interface|namespace)\s+`+o+`\b[^{]*|type\s+`+o+`\b[^=]*=\s*|const\s+`+o+`\s*:\s*)\{`))
	return anyMatch(regexp.MustCompile(`(?m)^\s*(?:(?:readonly|static|async|get|set)\s+)*`+regexp.QuoteMeta(member)+`\??\s*[:(<]`), decl)
}
