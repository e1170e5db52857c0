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
	Sources             map[string]string
	Log                 io.Writer
}

// NewDocker connects to the engine. The caller must Close it: SIGINT and SIGTERM cancel ctx
// (cmd/conformance), the run winds down and its Close runs. SIGHUP (a closed terminal), which
// would end the process at once, runs Close first, so no container outlives the harness.
func NewDocker(ctx context.Context, cfg DockerConfig) (*Docker, error) {
	if len(cfg.Sources) > 0 {
		return nil, fmt.Errorf("--runner docker runs registry versions only (--sdk-version); run --sdk-source with --runner local (docker/README.md)")
	}
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

// Prepare builds (or reuses) the target's driver image; the container brings its own toolchain
// and SDK preparation.
func (d *Docker) Prepare(ctx context.Context, t Target) (*Prepared, error) {
	var p *Prepared
	err := withHeavy(ctx, func() error { // an image build is as heavy as a preparation
		l, err := d.run.Launcher(ctx, t.SDK, t.Version, t.Stderr)
		if err == nil {
			p = &Prepared{Launcher: l, Toolchain: []string{"image " + l.Image}}
			fmt.Fprintf(t.Log, "[%s] driver image %s\n", t.Label, l.Image)
		}
		return err
	})
	return p, err
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
