package sdks

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"github.com/copilot-sdk-conformance/conformance/internal/registry"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// The .NET driver: drivers/dotnet (its .cs files, Driver.csproj, Directory.Build.props), a net8.0
// console program that references NuGet GitHub.Copilot.SDK at exactly $(CopilotSdkVersion).
// Prepare copies it into pc.CacheDir/driver and runs
//
//	dotnet build Driver.csproj -c Release -p:CopilotSdkVersion=VERSION -o pc.CacheDir/out
//
// which restores the package into the user's NuGet cache (~/.nuget/packages, so a re-prepare
// downloads nothing) and builds; the driver runs as `dotnet out/Driver.dll`.
//
// pc.Source (--sdk-source dotnet=PATH) may be
//   - a folder holding a GitHub.Copilot.SDK .nupkg, or an unpacked package (its .nuspec at the
//     top): the package goes into pc.CacheDir/feed, a local package source, and is restored
//     into pc.CacheDir/packages so that a cached registry package of the same version cannot
//     stand in for it;
//   - a github/copilot-sdk checkout (the repository, its dotnet/ folder or dotnet/src): the
//     dotnet/ folder is copied to pc.CacheDir/sdk (the checkout stays untouched) and the driver
//     builds against it through a ProjectReference. The SDK's own build needs the .NET 10 SDK
//     (LangVersion 14).
func init() {
	register(Recipe{
		Name:        "dotnet",
		Order:       6,
		ColdPrepare: 120 * time.Second, // a NuGet restore and `dotnet build`: not measured (no .NET here), a guess below Rust's
		MonorepoDir: "dotnet",
		// No LocalBase: no .NET SDK can be installed without Microsoft's registries.
		Version:      nugetSyntax,
		Versions:     registry.Public.NuGet("GitHub.Copilot.SDK"),
		BuildOutputs: []string{"bin", "obj"},
		Pinned:       pinnedIn("Driver.csproj", `>([^<]+)</CopilotSdkVersion>`),
		Toolchain: []Tool{{
			Bin:         "dotnet",
			VersionArgs: []string{"--version"},
			Hint: "install the .NET 8 SDK or newer (https://dot.net/download, `dotnet-install.sh --channel 8.0`, " +
				"or Debian/Ubuntu `apt-get install dotnet-sdk-8.0`) and make nuget.org reachable: " +
				"the driver restores the NuGet package GitHub.Copilot.SDK when it is built",
		}},
		Prepare: prepareDotnet,
		Probe:   probeDotnet,
	})
}

const dotnetPackage = "GitHub.Copilot.SDK"

// The files of drivers/dotnet that make up the driver besides its *.cs sources (README.md is
// documentation only).
var dotnetDriverFiles = []string{"Driver.csproj", "Directory.Build.props"}

// dotnetEnv keeps the CLI quiet and, above all, keeps MSBuild worker nodes and the compiler server
// from outliving the build: they inherit its output pipes and pc.Run would wait for them.
var dotnetEnv = []string{
	"DOTNET_CLI_TELEMETRY_OPTOUT=1",
	"DOTNET_NOLOGO=1",
	"DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1",
	"DOTNET_GENERATE_ASPNET_CERTIFICATE=false",
	"DOTNET_CLI_USE_MSBUILD_SERVER=0",
	"MSBUILDDISABLENODEREUSE=1",
	"NUGET_XMLDOC_MODE=skip",
}

func prepareDotnet(ctx context.Context, pc PrepareContext) (Launch, error) {
	proj := filepath.Join(pc.CacheDir, "driver")
	out := filepath.Join(pc.CacheDir, "out")
	for _, dir := range []string{proj, out} {
		if err := os.RemoveAll(dir); err != nil {
			return Launch{}, err
		}
	}
	if err := os.MkdirAll(proj, 0o755); err != nil {
		return Launch{}, err
	}
	sources, err := filepath.Glob(filepath.Join(pc.DriverDir, "*.cs"))
	if err != nil {
		return Launch{}, err
	}
	files := append([]string{}, dotnetDriverFiles...)
	for _, source := range sources {
		files = append(files, filepath.Base(source))
	}
	for _, name := range files {
		body, err := os.ReadFile(filepath.Join(pc.DriverDir, name))
		if err != nil {
			return Launch{}, err
		}
		if err := os.WriteFile(filepath.Join(proj, name), body, 0o644); err != nil {
			return Launch{}, err
		}
	}

	var props, launchEnv []string
	if pc.Source == "" {
		// NuGet versions carry no "v"; an empty version keeps the csproj default.
		if v := strings.TrimPrefix(pc.Version, "v"); v != "" {
			props = append(props, "-p:CopilotSdkVersion="+v)
		}
	} else {
		p, source, err := dotnetLocalSDK(pc)
		if err != nil {
			return Launch{}, err
		}
		props = p
		// Read by the driver's hello as its `source`.
		launchEnv = append(launchEnv, "CONFORMANCE_DOTNET_SDK_SOURCE="+source)
	}

	// CopilotSkipCliDownload: the SDK's build targets (in the package, and imported by its own
	// project) download a ~100 MB Copilot CLI from npm; the driver never uses a bundled CLI. As a
	// global property it also reaches a ProjectReference'd SDK source project.
	argv := []string{"dotnet", "build", filepath.Join(proj, "Driver.csproj"),
		"-c", "Release", "-o", out, "--nologo", "--disable-build-servers", "-nodeReuse:false",
		"-p:CopilotSkipCliDownload=true"}
	argv = append(argv, props...)
	if err := pc.Run(ctx, proj, dotnetEnv, argv...); err != nil {
		return Launch{}, err
	}

	dll := filepath.Join(out, "Driver.dll")
	// Loads the SDK assembly and prints the hello result: fails here, with the reason, when the
	// build output cannot run.
	if err := pc.Run(ctx, out, append(append([]string{}, dotnetEnv...), launchEnv...), "dotnet", dll, "--self-check"); err != nil {
		return Launch{}, err
	}
	return Launch{Argv: []string{"dotnet", dll}, Dir: out, Env: launchEnv}, nil
}

// dotnetLocalSDK turns pc.Source into build properties and a description for hello's `source`.
func dotnetLocalSDK(pc PrepareContext) (props []string, source string, err error) {
	src := pc.Source

	// A package: a .nupkg in the folder, or the folder is an unpacked package.
	if nupkg, err := dotnetFindNupkg(src); err != nil {
		return nil, "", err
	} else if nupkg != "" {
		version, err := dotnetNupkgVersion(nupkg)
		if err != nil {
			return nil, "", err
		}
		feed := filepath.Join(pc.CacheDir, "feed")
		if err := os.MkdirAll(feed, 0o755); err != nil {
			return nil, "", err
		}
		body, err := os.ReadFile(nupkg)
		if err != nil {
			return nil, "", err
		}
		if err := os.WriteFile(filepath.Join(feed, dotnetPackage+"."+version+".nupkg"), body, 0o644); err != nil {
			return nil, "", err
		}
		fmt.Fprintf(pc.Log, "[dotnet] using package %s %s from %s\n", dotnetPackage, version, nupkg)
		return dotnetFeedProps(pc, feed, version), "nupkg:" + nupkg, nil
	}
	if nuspec, version, err := dotnetFindNuspec(src); err != nil {
		return nil, "", err
	} else if nuspec != "" {
		feed := filepath.Join(pc.CacheDir, "feed")
		if err := os.MkdirAll(feed, 0o755); err != nil {
			return nil, "", err
		}
		if err := dotnetZipPackage(src, filepath.Join(feed, dotnetPackage+"."+version+".nupkg")); err != nil {
			return nil, "", err
		}
		fmt.Fprintf(pc.Log, "[dotnet] packed unpacked package %s %s from %s\n", dotnetPackage, version, src)
		return dotnetFeedProps(pc, feed, version), "unpacked:" + src, nil
	}

	// A source checkout.
	for _, rel := range []string{"dotnet/src", "src", "."} {
		csproj := filepath.Join(src, rel, dotnetPackage+".csproj")
		if _, err := os.Stat(csproj); err != nil {
			continue
		}
		srcDir := filepath.Dir(csproj)
		// Copy the dotnet/ folder (Directory.Build.props, Directory.Packages.props, Open.snk, src/)
		// when it is there; the SDK project needs them.
		root, sub := srcDir, "."
		if parent := filepath.Dir(srcDir); dotnetIsSDKRoot(parent) {
			root, sub = parent, filepath.Base(srcDir)
		}
		dst := filepath.Join(pc.CacheDir, "sdk")
		if err := os.RemoveAll(dst); err != nil {
			return nil, "", err
		}
		skip := []string{".git", "test", "samples", "bin", "obj", "artifacts",
			filepath.Join(sub, "bin"), filepath.Join(sub, "obj")}
		if err := CopyDir(root, dst, skip...); err != nil {
			return nil, "", err
		}
		fmt.Fprintf(pc.Log, "[dotnet] building against the SDK source %s (copied to %s)\n", csproj, dst)
		return []string{
			"-p:CopilotSdkProject=" + filepath.Join(dst, sub, dotnetPackage+".csproj"),
			// The SDK's Directory.Build.props treats warnings as errors; a copy without .git gives
			// SourceLink nothing to query.
			"-p:TreatWarningsAsErrors=false",
			"-p:EnableSourceLink=false",
			"-p:EnableSourceControlManagerQueries=false",
		}, "project:" + csproj, nil
	}
	return nil, "", fmt.Errorf("--sdk-source %s: no %s .nupkg, unpacked package (.nuspec) or %s.csproj "+
		"(looked in ., src and dotnet/src)", src, dotnetPackage, dotnetPackage)
}

func dotnetFeedProps(pc PrepareContext, feed, version string) []string {
	return []string{
		"-p:CopilotSdkVersion=" + version,
		"-p:RestoreAdditionalProjectSources=" + feed,
		"-p:RestorePackagesPath=" + filepath.Join(pc.CacheDir, "packages"),
	}
}

func dotnetIsSDKRoot(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "Directory.Build.props"))
	return err == nil
}

// dotnetFindNupkg returns the GitHub.Copilot.SDK .nupkg directly in dir, if any (the NuGet global
// packages folder keeps it lower-cased next to the unpacked files).
func dotnetFindNupkg(dir string) (string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	var found []string
	prefix := strings.ToLower(dotnetPackage) + "."
	for _, e := range entries {
		n := strings.ToLower(e.Name())
		if e.Type().IsRegular() && strings.HasPrefix(n, prefix) && strings.HasSuffix(n, ".nupkg") &&
			!strings.HasSuffix(n, ".symbols.nupkg") {
			found = append(found, filepath.Join(dir, e.Name()))
		}
	}
	switch len(found) {
	case 0:
		return "", nil
	case 1:
		return found[0], nil
	default:
		return "", fmt.Errorf("--sdk-source %s: several %s packages (%s); keep one", dir, dotnetPackage, strings.Join(found, ", "))
	}
}

type nuspec struct {
	Metadata struct {
		ID      string `xml:"id"`
		Version string `xml:"version"`
	} `xml:"metadata"`
}

func parseNuspec(r io.Reader, where string) (id, version string, err error) {
	var n nuspec
	if err := xml.NewDecoder(r).Decode(&n); err != nil {
		return "", "", fmt.Errorf("%s: %w", where, err)
	}
	if n.Metadata.Version == "" {
		return "", "", fmt.Errorf("%s: no <version>", where)
	}
	return n.Metadata.ID, n.Metadata.Version, nil
}

// dotnetNupkgVersion reads the version from the .nuspec inside a .nupkg.
func dotnetNupkgVersion(nupkg string) (string, error) {
	z, err := zip.OpenReader(nupkg)
	if err != nil {
		return "", fmt.Errorf("%s: %w", nupkg, err)
	}
	defer z.Close()
	for _, f := range z.File {
		if strings.Contains(f.Name, "/") || !strings.HasSuffix(strings.ToLower(f.Name), ".nuspec") {
			continue
		}
		r, err := f.Open()
		if err != nil {
			return "", err
		}
		defer r.Close()
		id, version, err := parseNuspec(r, nupkg+"!"+f.Name)
		if err != nil {
			return "", err
		}
		if !strings.EqualFold(id, dotnetPackage) {
			return "", fmt.Errorf("%s: package id %q, want %s", nupkg, id, dotnetPackage)
		}
		return version, nil
	}
	return "", fmt.Errorf("%s: no .nuspec inside", nupkg)
}

// dotnetFindNuspec finds the GitHub.Copilot.SDK .nuspec of an unpacked package directly in dir.
func dotnetFindNuspec(dir string) (path, version string, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", "", err
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || !strings.HasSuffix(strings.ToLower(e.Name()), ".nuspec") {
			continue
		}
		p := filepath.Join(dir, e.Name())
		f, err := os.Open(p)
		if err != nil {
			return "", "", err
		}
		id, v, err := parseNuspec(f, p)
		f.Close()
		if err != nil {
			return "", "", err
		}
		if strings.EqualFold(id, dotnetPackage) {
			return p, v, nil
		}
	}
	return "", "", nil
}

// dotnetZipPackage packs an unpacked package folder back into a .nupkg. The repository signature
// (.signature.p7s) is left out: it would no longer match, and NuGet rejects a tampered signed
// package, while it accepts an unsigned one from a local source.
func dotnetZipPackage(dir, nupkg string) (err error) {
	out, err := os.Create(nupkg)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := out.Close(); err == nil {
			err = cerr
		}
	}()
	z := zip.NewWriter(out)
	err = filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		rel = filepath.ToSlash(rel)
		if e.IsDir() {
			if rel != "." && (e.Name() == "bin" || e.Name() == "obj") {
				return filepath.SkipDir
			}
			return nil
		}
		lower := strings.ToLower(rel)
		if !e.Type().IsRegular() || lower == ".signature.p7s" || strings.HasSuffix(lower, ".nupkg") ||
			strings.HasSuffix(lower, ".nupkg.sha512") || lower == ".nupkg.metadata" {
			return nil
		}
		w, err := z.Create(rel)
		if err != nil {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = io.Copy(w, f)
		return err
	})
	if err != nil {
		return err
	}
	return z.Close()
}

// probeDotnet asks the built driver (`Driver.dll --probe SYMBOL…`) whether the installed SDK
// assembly has each symbol: .NET reads a compiled assembly's declarations by reflection, so the
// probe runs in the driver's own process with the SDK loaded as the driver loads it.
func probeDotnet(ctx context.Context, prep *Prepared, symbols []string) (map[string]bool, error) {
	argv := append(append(append([]string{}, prep.Launch.Argv...), "--probe"), symbols...)
	stdout, stderr, err := probeCommand(ctx, prep.Launch.Dir, append(append([]string{}, dotnetEnv...), prep.Launch.Env...), argv...)
	if err != nil {
		return nil, fmt.Errorf("dotnet probe: %v: %s", err, bytes.TrimSpace(stderr))
	}
	out := map[string]bool{}
	if err := json.Unmarshal(bytes.TrimSpace(stdout), &out); err != nil {
		return nil, fmt.Errorf("dotnet probe printed %q: %w", stdout, err)
	}
	return out, nil
}
