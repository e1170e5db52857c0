package container

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"

	"github.com/copilot-sdk-conformance/conformance/internal/sdks"
	"github.com/ory/dockertest/v3"
)

// SourceImage is the driver image of an SDK built from a local source (--sdk-source with
// --runner docker), from docker/source.Dockerfile: the build runs the harness's own recipe for
// the language (`conformance prepare`, the same code the local runner runs) inside the
// language's build image, so no Dockerfile repeats how a source is built. The image is the run's
// (RunID): a source may change between runs, so it is built again each run and removed after.
type SourceImage struct {
	SDK     string
	Version string // the SDK's pin (some recipes install the release beside a partial source)
	Source  string // the --sdk-source path on this machine
	// RepoRoot holds docker/ and drivers/; Harness is a static build of the harness (it runs the
	// recipe in the build and starts the driver in the container).
	RepoRoot, Harness string
	// Base is the build image: "" for the official BASE of docker/<SDK>.Dockerfile, or a local
	// base image.
	Base  string
	RunID string
	Log   io.Writer
}

// SourceDockerfile is the Dockerfile of every source image, relative to the repository.
const SourceDockerfile = "docker/source.Dockerfile"

// In the image: where the build puts the SDK source, and where the recipe's launch is written.
const imageSourceDir = "/conformance/sdk-source"

// Build returns the image build. It checks the source holds the SDK first (the recipe's
// SourceDir), so a wrong folder is named before anything is built, and sends only the SDK's own
// folder (or package file) as build context.
func (s SourceImage) Build() (Build, error) {
	d, ok := sdks.Lookup(s.SDK)
	if !ok {
		return Build{}, fmt.Errorf("no recipe for SDK %q", s.SDK)
	}
	src, err := filepath.Abs(s.Source)
	if err != nil {
		return Build{}, err
	}
	if _, err := os.Stat(src); err != nil {
		return Build{}, fmt.Errorf("--sdk-source %s=%s: %w", s.SDK, s.Source, err)
	}
	if d.SourceDir != nil {
		if src, err = d.SourceDir(src); err != nil {
			return Build{}, fmt.Errorf("--sdk-source %s=%s: %w", s.SDK, s.Source, err)
		}
	}
	driverDir := filepath.Join(s.RepoRoot, "drivers", s.SDK)
	if d.DriverDir != "" {
		driverDir = d.DriverDir
	}
	base := s.Base
	if base == "" {
		if base, err = officialBase(filepath.Join(s.RepoRoot, "docker", s.SDK+".Dockerfile")); err != nil {
			return Build{}, err
		}
	}
	dockerfile := filepath.Join(s.RepoRoot, SourceDockerfile)
	// The source keeps its base name: a recipe may look at it (a Python import package's folder).
	inImage := imageSourceDir + "/" + filepath.Base(src)
	key, err := HashFiles([]string{driverDir, dockerfile}, "sdk "+s.SDK, "source "+src, "base "+base, "run "+s.RunID)
	if err != nil {
		return Build{}, err
	}
	return Build{
		Tag:        fmt.Sprintf("conformance-driver/%s:source-%s", s.SDK, unsafeTag.ReplaceAllString(s.RunID, "_")),
		Dockerfile: dockerfile,
		Trees:      map[string]string{"driver": driverDir, "sdk-source/" + filepath.Base(src): src},
		Extra:      map[string]string{"conformance": s.Harness},
		Args:       map[string]string{"BASE": base, "SDK": s.SDK, "SDK_VERSION": s.Version, "SOURCE": inImage},
		Key:        key, Kind: "driver-image", RunID: s.RunID, Log: s.Log,
	}, nil
}

// Ensure builds the image and returns its tag; a failed build names the SDK, the source and the
// Dockerfile's failing step, with the build log's tail.
func (s SourceImage) Ensure(ctx context.Context, pool *dockertest.Pool) (string, error) {
	b, err := s.Build()
	if err != nil {
		return "", err
	}
	fmt.Fprintf(s.Log, "[%s] building the driver from source %s in an image (%s, base %s)\n", s.SDK, s.Source, SourceDockerfile, b.Args["BASE"])
	if _, err := Ensure(ctx, pool, b); err != nil {
		return "", fmt.Errorf("%s driver image from source %s: %w", s.SDK, s.Source, err)
	}
	return b.Tag, nil
}

var baseArg = regexp.MustCompile(`(?m)^ARG BASE=(\S+)`)

// officialBase is the default BASE of a language's Dockerfile: its official build image.
func officialBase(dockerfile string) (string, error) {
	b, err := os.ReadFile(dockerfile)
	if err != nil {
		return "", err
	}
	m := baseArg.FindSubmatch(b)
	if m == nil {
		return "", fmt.Errorf("%s has no `ARG BASE=IMAGE` line to build a source on", dockerfile)
	}
	return string(m[1]), nil
}
