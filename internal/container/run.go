package container

import (
	"context"
	"debug/elf"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/procgroup"
	"github.com/copilot-sdk-conformance/conformance/internal/sdks"
	"github.com/ory/dockertest/v3"
)

// Run is the container side of one harness run (`--runner docker`): it builds (or reuses) each
// SDK's driver image, hands out launchers whose containers are labelled with the run's id, and
// removes everything of the run on Close.
type Run struct {
	Pool *dockertest.Pool
	ID   string
	cfg  RunConfig
	// runtime is a static build of the harness, mounted at Self[0] in every driver container.
	runtime string
}

// RunConfig says how a run builds and starts its driver containers.
type RunConfig struct {
	RepoRoot string // holds docker/ and drivers/
	// LocalBases builds the driver images on the local base images (`conformance images
	// --local-bases`) instead of the official ones, for machines without an image registry.
	LocalBases bool
	// Self is how the SDKs spawn the harness as their stdio runtime (the harness's Config.Self);
	// Self[0] must be valid inside the container, so a static build of the harness is mounted
	// there.
	Self []string
	// StdioDir is the host folder the stdio wrapper scripts and their transcripts are written in
	// (os.TempDir() when empty: the steps use os.MkdirTemp("", …)); mounted at the same path.
	StdioDir string
	CacheDir string    // where the static harness build goes (sdks.DefaultCacheRoot() when empty)
	Log      io.Writer // image builds' progress
}

// NewRun connects to the engine and prepares the stdio runtime for the containers.
func NewRun(ctx context.Context, cfg RunConfig) (*Run, error) {
	if len(cfg.Self) == 0 {
		return nil, fmt.Errorf("container run: no Self argv")
	}
	if cfg.StdioDir == "" {
		cfg.StdioDir = os.TempDir()
	}
	if cfg.CacheDir == "" {
		cfg.CacheDir = sdks.DefaultCacheRoot()
	}
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	pool, err := Connect(ctx)
	if err != nil {
		return nil, err
	}
	runtime, err := staticRuntime(ctx, cfg)
	if err != nil {
		return nil, err
	}
	id := fmt.Sprintf("%s-%d", time.Now().UTC().Format("20060102T150405"), os.Getpid())
	return &Run{Pool: pool, ID: id, cfg: cfg, runtime: runtime}, nil
}

// Launcher returns a launcher for SDK sdk at version, building its image unless it exists; with
// source (an --sdk-source path) the image is built from that source (SourceImage). An SDK
// without a local base, on a run with LocalBases, is *sdks.Unavailable.
func (r *Run) Launcher(ctx context.Context, sdk, version, source string, stderr io.Writer) (*Launcher, error) {
	tag, err := r.image(ctx, sdk, version, source)
	if err != nil {
		return nil, err
	}
	return &Launcher{Pool: r.Pool, Image: tag, SDK: sdk, RunID: r.ID, StderrLog: stderr,
		Binds: StdioBinds(r.cfg.Self[0], r.runtime, r.cfg.StdioDir)}, nil
}

// image builds (or finds) the driver image of sdk at version, or of its local source.
func (r *Run) image(ctx context.Context, sdk, version, source string) (string, error) {
	var args map[string]string
	if r.cfg.LocalBases {
		var ok bool
		if args, ok = LocalBuildArgs(sdk); !ok {
			return "", &sdks.Unavailable{Reason: fmt.Sprintf("%s: no local base image for docker/%s.Dockerfile (its official base image needs a registry this machine cannot reach)", sdk, sdk)}
		}
	}
	if source != "" {
		img := SourceImage{SDK: sdk, Version: version, Source: source, RepoRoot: r.cfg.RepoRoot, Harness: r.runtime,
			Base: args["BASE"], RunID: r.ID, Log: r.cfg.Log}
		return img.Ensure(ctx, r.Pool)
	}
	img := DriverImage{SDK: sdk, Version: version, RepoRoot: r.cfg.RepoRoot, BuildArgs: args, Log: r.cfg.Log}
	tag, err := img.Ensure(ctx, r.Pool)
	if err != nil {
		return "", fmt.Errorf("%s driver image (SDK %s): %w", sdk, version, err)
	}
	return tag, nil
}

// Close removes every container, network and temporary image of the run, and waits (up to 20s)
// until the engine has let them go: a driver that just exited is still being auto-removed, and
// whoever runs next (a test, `doctor --docker`) must find nothing. Call it however the run ends
// (also on SIGINT).
func (r *Run) Close() error {
	var err error
	for deadline := time.Now().Add(20 * time.Second); ; {
		err = Cleanup(r.Pool, r.ID)
		left, lerr := Leftovers(r.Pool, r.ID)
		if lerr == nil && len(left) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			if err == nil {
				err = lerr
			}
			if err == nil {
				err = fmt.Errorf("still there after 20s: %v", left)
			}
			return err
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// staticRuntime returns Self[0] when it is a static executable (it then runs in any image), or
// builds one: CGO_ENABLED=0 go build ./cmd/conformance into the cache.
func staticRuntime(ctx context.Context, cfg RunConfig) (string, error) {
	if static, err := IsStatic(cfg.Self[0]); err == nil && static {
		return cfg.Self[0], nil
	}
	out := filepath.Join(cfg.CacheDir, "docker", "conformance-static")
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return "", err
	}
	cmd := procgroup.Command(ctx, "go", "build", "-o", out, "./cmd/conformance")
	cmd.Dir = cfg.RepoRoot
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := procgroup.CombinedOutput(cmd); err != nil {
		return "", fmt.Errorf("build a static harness for the driver containers (CGO_ENABLED=0 go build ./cmd/conformance in %s): %w\n%s", cfg.RepoRoot, err, b)
	}
	return out, nil
}

// IsStatic says whether an ELF executable needs no dynamic loader.
func IsStatic(path string) (bool, error) {
	f, err := elf.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return false, nil
		}
	}
	return true, nil
}
