package harness

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/copilot-sdk-conformance/conformance/internal/container"
	"github.com/copilot-sdk-conformance/conformance/internal/driver"
)

// Runners: where the drivers run.
const (
	RunnerLocal  = "local"  // a local process per SDK, on this machine's toolchains (default)
	RunnerDocker = "docker" // a container per SDK from docker/<lang>.Dockerfile (internal/container)
)

// containers is the container side of a --runner docker run; Close removes everything the run
// started, once, however the run ends.
type containers struct {
	run  *container.Run
	once sync.Once
	stop func() // ends the signal watch
}

// startContainers connects to the engine for a --runner docker run. The returned Close must be
// deferred by the caller: SIGINT and SIGTERM cancel ctx (cmd/conformance), the run winds down and
// the deferred Close runs. SIGHUP (a closed terminal), which would end the process at once, runs
// Close first, so no container outlives the harness.
func startContainers(ctx context.Context, cfg Config) (*containers, error) {
	if len(cfg.Sources) > 0 {
		return nil, fmt.Errorf("%w: --runner docker runs registry versions only (--sdk-version); run --sdk-source with --runner local (docker/README.md)", ErrSetup)
	}
	r, err := container.NewRun(ctx, container.RunConfig{RepoRoot: cfg.RepoRoot, LocalBases: cfg.LocalBases,
		Self: cfg.Self, CacheDir: cfg.CacheRoot, Log: cfg.Log})
	if err != nil {
		return nil, fmt.Errorf("%w: --runner docker: %v", ErrSetup, err)
	}
	c := &containers{run: r}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sigs:
			c.Close(cfg.Log)
			signal.Stop(sigs)
			fmt.Fprintf(cfg.Log, "%s: driver containers removed\n", s)
			if p, err := os.FindProcess(os.Getpid()); err == nil {
				_ = p.Signal(s) // now die of it as without the watch
			}
		case <-done:
		}
	}()
	c.stop = func() { signal.Stop(sigs); close(done) }
	fmt.Fprintf(cfg.Log, "runner docker: run %s (local bases: %v)\n", r.ID, cfg.LocalBases)
	return c, nil
}

// Close removes the run's containers, networks and temporary images.
func (c *containers) Close(log io.Writer) {
	if c == nil {
		return
	}
	c.once.Do(func() {
		if c.stop != nil {
			go c.stop()
		}
		if err := c.run.Close(); err != nil {
			fmt.Fprintf(log, "runner docker: cleanup of run %s: %v (conformance doctor --docker-clean removes it)\n", c.run.ID, err)
		}
	})
}

// launcher returns the container launcher of one SDK at one version, building its image unless
// it exists. Only launcher() in run.go calls it.
func (c *containers) launcher(ctx context.Context, sdk, version string, stderr io.Writer) (driver.Launcher, error) {
	return c.run.Launcher(ctx, sdk, version, stderr)
}
