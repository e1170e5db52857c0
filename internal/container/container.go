// Package container runs language drivers in Docker containers through dockertest: it builds each
// driver's image from docker/<lang>.Dockerfile (keyed by SDK, version and driver hash, reused while
// nothing changed), starts the driver with its stdin/stdout attached as a driver.Launcher, builds
// the local base images for machines without a registry, and finds and removes what a run left.
//
// Everything a run starts carries LabelRun, so an interrupted run's containers can be found and
// removed by `conformance doctor --docker-clean`.
package container

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/ory/dockertest/v3"
)

// Labels put on what this package creates.
const (
	// LabelProject marks everything the harness creates in an engine.
	LabelProject = "io.conformance"
	// LabelRun names the run that started a container (a run id chosen by the harness).
	LabelRun = "io.conformance.run"
	// LabelKind says what an object is: "driver" (a container), "driver-image", "local-base".
	LabelKind = "io.conformance.kind"
	// LabelKey is the content key of an image: rebuilt when it changes.
	LabelKey = "io.conformance.key"
)

// ErrNoEngine means no Docker engine answers; the runner reports its SDKs unavailable with it.
var ErrNoEngine = errors.New("no Docker engine")

// Connect returns a pool on the engine at $DOCKER_HOST (or the platform default) after checking
// that it answers.
func Connect(ctx context.Context) (*dockertest.Pool, error) {
	pool, err := dockertest.NewPool("")
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoEngine, err)
	}
	if err := pool.Client.PingWithContext(ctx); err != nil {
		where := os.Getenv("DOCKER_HOST")
		if where == "" {
			where = "the default socket"
		}
		return nil, fmt.Errorf("%w at %s (start one with docker/engine.sh start and export DOCKER_HOST): %v", ErrNoEngine, where, err)
	}
	return pool, nil
}
