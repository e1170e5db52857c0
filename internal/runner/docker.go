package runner

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/copilot-sdk-conformance/conformance/internal/container"
	"github.com/copilot-sdk-conformance/conformance/internal/sdks"
)

// Docker starts each SDK's driver in a container of its image at the target's version (built
// unless it exists); Close removes everything the run started, once, however the run ends.
type Docker struct {
	run  *container.Run
	once sync.Once
	stop func() // ends the signal watch
}

// DockerConfig is what a docker runner needs.
type DockerConfig struct {
	RepoRoot, CacheRoot string
	LocalBases          bool     // build on the local base images (`conformance images --local-bases`)
	Self                []string // argv that runs this program (the SDKs' stdio runtime)
	Log                 io.Writer
}

// NewDocker connects to the engine. The caller must Close it: SIGINT and SIGTERM cancel ctx
// (cmd/conformance), the run winds down and its Close runs. SIGHUP (a closed terminal), which
// would end the process at once, runs Close first, so no container outlives the harness.
func NewDocker(ctx context.Context, cfg DockerConfig) (*Docker, error) {
	r, err := container.NewRun(ctx, container.RunConfig{RepoRoot: cfg.RepoRoot, LocalBases: cfg.LocalBases,
		Self: cfg.Self, CacheDir: cfg.CacheRoot, Log: cfg.Log})
	if err != nil {
		return nil, fmt.Errorf("--runner docker: %v", err)
	}
	d := &Docker{run: r}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sigs:
			d.Close(cfg.Log)
			signal.Stop(sigs)
			fmt.Fprintf(cfg.Log, "%s: driver containers removed\n", s)
			if p, err := os.FindProcess(os.Getpid()); err == nil {
				_ = p.Signal(s) // now die of it as without the watch
			}
		case <-done:
		}
	}()
	d.stop = func() { signal.Stop(sigs); close(done) }
	fmt.Fprintf(cfg.Log, "runner docker: run %s (local bases: %v)\n", r.ID, cfg.LocalBases)
	return d, nil
}

func (*Docker) Name() string { return DockerName }

// Prepare builds (or reuses) the target's driver image, or builds one from the target's local
// source; the container brings its own toolchain and SDK preparation.
func (d *Docker) Prepare(ctx context.Context, t Target) (*Prepared, error) {
	var p *Prepared
	err := withHeavy(ctx, func() error { // an image build is as heavy as a preparation
		l, err := d.run.Launcher(ctx, t.SDK, t.Version, t.Source, t.Stderr)
		if err == nil {
			p = &Prepared{Launcher: l, Toolchain: []string{"image " + l.Image}}
			fmt.Fprintf(t.Log, "[%s] driver image %s\n", t.Label, l.Image)
		}
		return err
	})
	return p, err
}

// SchemaDir copies the runtime's schemas out of the schema-source SDK's driver image (built
// unless it exists; the copy is cached per image id): no local toolchain is needed.
func (d *Docker) SchemaDir(ctx context.Context, sdk, version string, _ io.Writer) (dir, from string, err error) {
	rec, ok := sdks.Lookup(sdk)
	if !ok {
		return "", "", errNoRecipe(sdk)
	}
	if rec.ImageSchema == "" {
		return "", "", fmt.Errorf("%s: the recipe does not say where its driver image holds the runtime schema (ImageSchema)", sdk)
	}
	err = withHeavy(ctx, func() (err error) {
		var tag string
		dir, tag, err = d.run.Schemas(ctx, sdk, version, rec.ImageSchema)
		from = "driver image " + tag
		return err
	})
	return dir, from, err
}

// Close removes the run's containers, networks and temporary images.
func (d *Docker) Close(log io.Writer) {
	if d == nil {
		return
	}
	d.once.Do(func() {
		if d.stop != nil {
			go d.stop()
		}
		if err := d.run.Close(); err != nil {
			fmt.Fprintf(log, "runner docker: cleanup of run %s: %v (conformance doctor --docker-clean removes it)\n", d.run.ID, err)
		}
	})
}
