package container

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"

	"github.com/ory/dockertest/v3"
)

// DriverImage is the image of one SDK's driver at one SDK version, built from
// docker/<sdk>.Dockerfile with drivers/<sdk> as the context.
type DriverImage struct {
	SDK      string
	Version  string // the SDK version, passed as the SDK_VERSION build argument
	RepoRoot string // holds docker/ and drivers/
	// BuildArgs override the Dockerfile's BASE / RUNTIME_BASE (LocalBuildArgs on a machine
	// without a registry); empty keeps the official images.
	BuildArgs map[string]string
	// BaseIDs are the image ids of the BuildArgs' images, part of the key so that a rebuilt local
	// base makes new driver images (Ensure fills it in from the engine).
	BaseIDs map[string]string
	// RunID, when set, makes the image temporary to that run (see Build.RunID).
	RunID string
	Log   io.Writer
}

var unsafeTag = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// Build returns the image build: its tag is keyed by SDK, version and a hash of the driver's files,
// the Dockerfile and the build arguments, so a change to any of them makes a new image.
func (d DriverImage) Build() (Build, error) {
	if d.Version == "" {
		return Build{}, fmt.Errorf("%s: no SDK version for the driver image", d.SDK)
	}
	dockerfile := filepath.Join(d.RepoRoot, "docker", d.SDK+".Dockerfile")
	driverDir := filepath.Join(d.RepoRoot, "drivers", d.SDK)
	for _, p := range []string{dockerfile, driverDir} {
		if _, err := os.Stat(p); err != nil {
			return Build{}, fmt.Errorf("%s driver image: %w", d.SDK, err)
		}
	}
	args := map[string]string{"SDK_VERSION": d.Version}
	extra := []string{"sdk " + d.SDK, "version " + d.Version}
	for _, k := range slices.Sorted(maps.Keys(d.BuildArgs)) {
		args[k] = d.BuildArgs[k]
		extra = append(extra, "arg "+k+"="+d.BuildArgs[k]+" "+d.BaseIDs[d.BuildArgs[k]])
	}
	key, err := HashFiles([]string{driverDir, dockerfile}, extra...)
	if err != nil {
		return Build{}, err
	}
	tag := fmt.Sprintf("conformance-driver/%s:%s-%s", d.SDK, unsafeTag.ReplaceAllString(d.Version, "_"), key[:12])
	return Build{Tag: tag, Dockerfile: dockerfile, ContextDir: driverDir, Args: args, Key: key, Kind: "driver-image", RunID: d.RunID, Log: d.Log}, nil
}

// Ensure builds the image unless it exists, and returns its tag.
func (d DriverImage) Ensure(ctx context.Context, pool *dockertest.Pool) (string, error) {
	d.BaseIDs = map[string]string{}
	for _, img := range d.BuildArgs {
		// An image not in the engine yet (an official one the build pulls) is keyed by its name.
		if got, err := pool.Client.InspectImage(img); err == nil {
			d.BaseIDs[img] = got.ID
		}
	}
	b, err := d.Build()
	if err != nil {
		return "", err
	}
	if _, err := Ensure(ctx, pool, b); err != nil {
		return "", err
	}
	return b.Tag, nil
}
