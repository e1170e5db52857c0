package sdks

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/procgroup"
	"github.com/copilot-sdk-conformance/conformance/internal/registry"
)

// The Rust driver: drivers/rust (a cargo package whose Cargo.toml pins crates.io
// github-copilot-sdk with `=X.Y.Z`, Cargo.lock committed) copied into the cache directory, its
// SDK dependency line pointed at the requested version or local source, and built there with
// `cargo build --release`. The launched program is the built binary.
//
// The SDK's build.rs downloads a Copilot CLI unless COPILOT_SKIP_CLI_DOWNLOAD is set; every
// cargo command here sets it, and the dependency has default-features = false (no bundled-cli).
// The registry and git caches are the user's (~/.cargo, or $CARGO_HOME), so a re-prepare
// downloads nothing. The compiled artifacts live in a few target folders shared by the rust
// preparations (CARGO_TARGET_DIR beside the per-version folders): compiling the SDK crate takes
// minutes on two cores, and cargo keeps each version's artifacts apart, so a change to the
// driver alone recompiles only the driver. One folder would serialise every build on cargo's own
// lock (preparations waited 30-55 minutes for each other), so a preparation takes the first free
// one of rustTargetSlots, holding it until the built binary is copied into pc.CacheDir.
func init() {
	register(Recipe{
		Probe:        probeRust,
		Generated:    rustGenerated,
		Name:         "rust",
		Paired:       rustPaired,
		Order:        4,
		ColdPrepare:  190 * time.Second, // `cargo build --release` alone from an empty registry, December 2026
		SourceDir:    rustSDKSourceDir,
		MonorepoDir:  "rust",
		LocalBase:    &LocalBase{RuntimeBase: RuntimeDebian, HostFiles: hostRustToolchain},
		Version:      cratesSyntax,
		Versions:     registry.Public.Crates(rustCrate),
		BuildOutputs: []string{"target"},
		Pinned:       pinnedIn("Cargo.toml", `github-copilot-sdk = \{ version = "=([^"]+)"`),
		Toolchain: []Tool{
			{
				Bin:         "cargo",
				VersionArgs: []string{"--version"},
				Hint:        "install Rust >= 1.94 with rustup (https://rustup.rs): github-copilot-sdk declares rust-version 1.94",
			},
			{
				Bin:         "rustc",
				VersionArgs: []string{"--version"},
				Hint:        "install Rust >= 1.94 with rustup (https://rustup.rs)",
			},
			{
				Bin:         "cc",
				VersionArgs: []string{"--version"},
				Hint:        "rustc links with the system C compiler (Debian: apt-get install gcc)",
			},
		},
		Prepare: prepareRust,
	})
}

const rustCrate = "github-copilot-sdk"

// rustDepLine matches the SDK's dependency line in drivers/rust/Cargo.toml.
var rustDepLine = regexp.MustCompile(`(?m)^github-copilot-sdk\s*=.*$`)

// rustPinned reads the exact version drivers/rust/Cargo.toml pins (`version = "=X.Y.Z"`).
var rustPinned = regexp.MustCompile(`version\s*=\s*"=([^"]+)"`)

// rustDriverFiles are the files of drivers/rust that make up the driver package: the manifest,
// the lockfile, the build script with every module of it (build_*.rs, found in the folder, so a
// new one needs no list) and src.
func rustDriverFiles(driverDir string) []string {
	files := []string{"Cargo.toml", "Cargo.lock", "build.rs"}
	modules, _ := filepath.Glob(filepath.Join(driverDir, "build_*.rs"))
	for _, m := range modules {
		files = append(files, filepath.Base(m))
	}
	return append(files, "src")
}

func prepareRust(ctx context.Context, pc PrepareContext) (Launch, error) {
	src := filepath.Join(pc.CacheDir, "src")
	if err := os.RemoveAll(src); err != nil {
		return Launch{}, err
	}
	for _, name := range rustDriverFiles(pc.DriverDir) {
		from := filepath.Join(pc.DriverDir, name)
		st, err := os.Stat(from)
		if err != nil {
			return Launch{}, err
		}
		if st.IsDir() {
			err = CopyDir(from, filepath.Join(src, name))
		} else {
			err = rustCopyFile(from, filepath.Join(src, name))
		}
		if err != nil {
			return Launch{}, err
		}
	}
	manifestPath := filepath.Join(src, "Cargo.toml")
	manifest, err := os.ReadFile(manifestPath)
	if err != nil {
		return Launch{}, err
	}
	line := rustDepLine.Find(manifest)
	if line == nil {
		return Launch{}, fmt.Errorf("rust: drivers/rust/Cargo.toml has no %s dependency line", rustCrate)
	}
	pinned := ""
	if m := rustPinned.FindSubmatch(line); m != nil {
		pinned = string(m[1])
	}

	target, release, err := rustTargetSlot(ctx, filepath.Dir(pc.CacheDir), pc.Log)
	if err != nil {
		return Launch{}, err
	}
	defer release()
	env := []string{
		"COPILOT_SKIP_CLI_DOWNLOAD=1",
		"CARGO_TARGET_DIR=" + target,
		"CARGO_TERM_COLOR=never",
		"CARGO_TERM_PROGRESS_WHEN=never",
	}
	cargo := func(args ...string) error { return pc.Run(ctx, src, env, append([]string{"cargo"}, args...)...) }
	threads := rustFrontEndThreads()
	setDep := func(dep string) error {
		out := rustDepLine.ReplaceAllLiteral(manifest, []byte(dep))
		return os.WriteFile(manifestPath, out, 0o644)
	}

	build := []string{"build", "--release"}
	switch {
	case pc.Source != "":
		dir, err := rustSDKSourceDir(pc.Source)
		if err != nil {
			return Launch{}, err
		}
		fmt.Fprintf(pc.Log, "rust: using local SDK source %s\n", dir)
		// Releases that gate Client::start behind a `runtime` feature need it; older ones have none.
		sdkManifest, _ := os.ReadFile(filepath.Join(dir, "Cargo.toml"))
		features := ""
		if regexp.MustCompile(`(?m)^runtime\s*=`).Match(sdkManifest) {
			features = `, features = ["runtime"]`
		}
		if err := setDep(fmt.Sprintf(`%s = { path = %q, default-features = false%s }`, rustCrate, dir, features)); err != nil {
			return Launch{}, err
		}
	case pc.Version == "":
		return Launch{}, fmt.Errorf("rust: no SDK version given")
	case strings.TrimPrefix(pc.Version, "=") == pinned:
		fmt.Fprintf(pc.Log, "rust: %s %s (pinned in drivers/rust/Cargo.toml, Cargo.lock)\n", rustCrate, pinned)
		build = append(build, "--locked")
	default:
		version := strings.TrimPrefix(pc.Version, "=")
		fmt.Fprintf(pc.Log, "rust: switching %s to %s\n", rustCrate, version)
		if err := setDep(fmt.Sprintf(`%s = { version = "=%s", default-features = false, features = ["runtime"] }`, rustCrate, version)); err != nil {
			return Launch{}, err
		}
		// Resolve the new version; releases before the `runtime` feature existed have none to ask for.
		if err := cargo("update", "--package", rustCrate); err != nil {
			if !strings.Contains(err.Error(), "does not have that feature") &&
				!strings.Contains(err.Error(), "does not have feature") {
				return Launch{}, err
			}
			fmt.Fprintf(pc.Log, "rust: %s %s has no `runtime` feature; building without it\n", rustCrate, version)
			if err := setDep(fmt.Sprintf(`%s = { version = "=%s", default-features = false }`, rustCrate, version)); err != nil {
				return Launch{}, err
			}
			if err := cargo("update", "--package", rustCrate); err != nil {
				return Launch{}, err
			}
		}
	}

	if err := pc.Run(ctx, src, append(env, threads...), append([]string{"cargo"}, build...)...); err != nil {
		if len(threads) == 0 {
			return Launch{}, err
		}
		// A rustc whose parallel front end refuses or fails the build (an option it does not
		// know, an internal error) gets one plain build; a compile error fails both.
		fmt.Fprintf(pc.Log, "rust: the build with %s failed; building again without it\n", strings.Join(threads, " "))
		if err := cargo(build...); err != nil {
			return Launch{}, err
		}
	}
	built := filepath.Join(target, "release", "driver")
	bin := filepath.Join(pc.CacheDir, "driver")
	if err := rustCopyFile(built, bin); err != nil {
		return Launch{}, fmt.Errorf("rust: cargo build produced no driver binary: %w", err)
	}
	if err := os.Chmod(bin, 0o755); err != nil {
		return Launch{}, err
	}
	return Launch{Argv: []string{bin}, Dir: pc.CacheDir}, nil
}

// rustFrontEndThreads is the environment that gives rustc's front end a thread per core
// (`-Zthreads`), or none when CONFORMANCE_RUST_THREADS is 0 or 1 or the machine has one core.
// The SDK crate is 5 MB of source whose front end (type and borrow checking of every serde
// impl) ran single-threaded for 90 of the cold build's ~150 s while the other core idled: no
// other crate can build beside it (the driver links against it). The option is unstable, so
// RUSTC_BOOTSTRAP lets the stable compiler accept it; it changes how rustc schedules its work,
// not what it builds. Set here, never in Cargo.toml, so `cargo build` by hand stays plain.
func rustFrontEndThreads() []string {
	n := runtime.NumCPU()
	if v := os.Getenv("CONFORMANCE_RUST_THREADS"); v != "" {
		if k, err := strconv.Atoi(v); err == nil {
			n = k
		}
	}
	if n > 8 {
		n = 8
	}
	if n < 2 {
		return nil
	}
	flags := strings.TrimSpace(os.Getenv("RUSTFLAGS") + fmt.Sprintf(" -Zthreads=%d", n))
	return []string{"RUSTC_BOOTSTRAP=1", "RUSTFLAGS=" + flags}
}

// rustTargetSlots is how many cargo target folders preparations share: enough for a run, a
// history and a test to build at once without each compiling every dependency from nothing
// (a folder is about 2 GB).
const rustTargetSlots = 3

// rustTargetSlot locks the first free target folder under base, waiting while all are in use.
func rustTargetSlot(ctx context.Context, base string, log io.Writer) (string, func(), error) {
	waited := false
	for {
		for i := 0; i < rustTargetSlots; i++ {
			name := "cargo-target"
			if i > 0 {
				name = fmt.Sprintf("cargo-target-%d", i)
			}
			dir := filepath.Join(base, name)
			release, err := tryLockKey(dir + ".lock")
			if err != nil {
				return "", nil, err
			}
			if release != nil {
				return dir, release, nil
			}
		}
		if !waited {
			fmt.Fprintf(log, "rust: all %d cargo target folders are building; waiting for one\n", rustTargetSlots)
			waited = true
		}
		select {
		case <-ctx.Done():
			return "", nil, ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

func rustCopyFile(from, to string) error {
	body, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	return os.WriteFile(to, body, 0o644)
}

// rustSDKSourceDir finds the Rust SDK package in a local folder: the folder itself (the rust/
// folder of a github/copilot-sdk checkout, or an unpacked .crate) or its rust/ subfolder (the
// checkout's root).
func rustSDKSourceDir(source string) (string, error) {
	abs, err := filepath.Abs(source)
	if err != nil {
		return "", err
	}
	name := regexp.MustCompile(`(?m)^name\s*=\s*"github-copilot-sdk"`)
	for _, dir := range []string{abs, filepath.Join(abs, "rust")} {
		body, err := os.ReadFile(filepath.Join(dir, "Cargo.toml"))
		if err == nil && name.Match(body) {
			return dir, nil
		}
	}
	return "", fmt.Errorf("rust: %s holds no %s package (looked at Cargo.toml and rust/Cargo.toml)", source, rustCrate)
}

// hostRustToolchain is the rust local base's host files: the folder of this machine's active
// rustup toolchain (copied into the image, since no registry is reachable to install one) and
// its rustc version, which keys the image.
func hostRustToolchain() (map[string]string, string, error) {
	out, err := procgroup.Output(procgroup.Command(context.Background(), "rustc", "--print", "sysroot"))
	if err != nil {
		return nil, "", fmt.Errorf("rust local base: no host Rust toolchain to copy (rustc --print sysroot: %v); install one with rustup", err)
	}
	dir := strings.TrimSpace(string(out))
	v, err := procgroup.Output(procgroup.Command(context.Background(), filepath.Join(dir, "bin", "rustc"), "--version"))
	if err != nil {
		return nil, "", fmt.Errorf("rust local base: %s/bin/rustc --version: %v", dir, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "bin", "cargo")); err != nil {
		return nil, "", fmt.Errorf("rust local base: %s has no bin/cargo", dir)
	}
	return map[string]string{"toolchain/bin": filepath.Join(dir, "bin"), "toolchain/lib": filepath.Join(dir, "lib")},
		"toolchain " + strings.TrimSpace(string(v)), nil
}

// probeRust scans the resolved crate's source: the registry's unpacked crate of the version
// Cargo.lock resolved, or the local folder the dependency line points at (--sdk-source), as the
// driver's build.rs finds it. Rust has no run-time reflection of declarations.
func probeRust(_ context.Context, prep *Prepared, symbols []string) (map[string]bool, error) {
	crate, err := rustCrateDir(filepath.Join(prep.CacheDir, "src"))
	if err != nil {
		return nil, err
	}
	text, err := readSources(filepath.Join(crate, "src"), ".rs")
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, sym := range symbols {
		if out[sym], err = rustHas(text, sym); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// rustHas says whether Rust source declares sym: "Type::item" (a fn of an impl of Type or a
// variant of enum Type) or "Type.field" (a pub field of struct Type).
func rustHas(text, sym string) (bool, error) {
	owner, member := splitMember(sym, "::")
	o := regexp.QuoteMeta(owner)
	if member != "" {
		m := regexp.QuoteMeta(member)
		impls := blocks(text, regexp.MustCompile(`\bimpl(?:<[^{;]*?>)?\s+(?:[\w:<>, ]+\s+for\s+)?`+o+`\b[^{;]*\{`))
		enums := blocks(text, regexp.MustCompile(`\benum\s+`+o+`\b[^{;]*\{`))
		return anyMatch(regexp.MustCompile(`\bfn\s+`+m+`\b`), impls) ||
			anyMatch(regexp.MustCompile(`(?m)^\s*`+m+`\s*[({,]`), enums), nil
	}
	owner, field := splitMember(sym, ".")
	if field == "" {
		return false, fmt.Errorf("rust symbol %q: want Type::item or Type.field", sym)
	}
	structs := blocks(text, regexp.MustCompile(`\bstruct\s+`+regexp.QuoteMeta(owner)+`\b[^{;]*\{`))
	return anyMatch(regexp.MustCompile(`(?m)(?:^|[{,])\s*pub(?:\([^)]*\))?\s+(?:r#)?`+regexp.QuoteMeta(field)+`\s*:`), structs), nil
}

var rustDepPath = regexp.MustCompile(`path\s*=\s*"([^"]+)"`)

// rustCrateDir is where the SDK crate the driver in src was built against lives.
func rustCrateDir(src string) (string, error) {
	manifest, err := os.ReadFile(filepath.Join(src, "Cargo.toml"))
	if err != nil {
		return "", err
	}
	if m := rustDepPath.FindSubmatch(rustDepLine.Find(manifest)); m != nil {
		return filepath.Join(src, string(m[1])), nil // filepath.Join keeps an absolute path's root
	}
	lock, err := os.ReadFile(filepath.Join(src, "Cargo.lock"))
	if err != nil {
		return "", err
	}
	m := regexp.MustCompile(`(?m)^name = "` + regexp.QuoteMeta(rustCrate) + `"\nversion = "([^"]+)"`).FindSubmatch(lock)
	if m == nil {
		return "", fmt.Errorf("%s/Cargo.lock has no %s package", src, rustCrate)
	}
	home := os.Getenv("CARGO_HOME")
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		home = filepath.Join(h, ".cargo")
	}
	dirs, _ := filepath.Glob(filepath.Join(home, "registry", "src", "*", rustCrate+"-"+string(m[1])))
	if len(dirs) == 0 {
		return "", fmt.Errorf("no unpacked %s %s under %s/registry/src", rustCrate, m[1], home)
	}
	return dirs[0], nil
}
