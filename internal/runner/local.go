package runner

import (
	"context"
	"io"

	"github.com/copilot-sdk-conformance/conformance/internal/driver"
	"github.com/copilot-sdk-conformance/conformance/internal/sdks"
)

// Local prepares each SDK with this machine's toolchains into the cache and starts its driver as
// a local process.
type Local struct {
	RepoRoot, CacheRoot string
}

func (Local) Name() string { return LocalName }

func (l Local) Prepare(ctx context.Context, t Target) (*Prepared, error) {
	d, ok := sdks.Lookup(t.SDK)
	if !ok {
		return nil, errNoRecipe(t.SDK)
	}
	tc, err := sdks.CheckToolchain(d)
	if err != nil {
		return &Prepared{Toolchain: tc}, err
	}
	var prep *sdks.Prepared
	nice := 0
	if t.Yield {
		nice = YieldNice
	}
	err = heavyWork(ctx, !t.Lead, func() (err error) {
		prep, err = (&sdks.Preparer{RepoRoot: l.RepoRoot, CacheRoot: l.CacheRoot, Log: t.Log, Nice: nice}).Prepare(ctx, t.SDK, t.Version, t.Source)
		return err
	})
	if err != nil {
		return &Prepared{Toolchain: tc}, err
	}
	p := &Prepared{Toolchain: tc, Launcher: driver.Local{Argv: prep.Launch.Argv, Dir: prep.Launch.Dir, Env: prep.Launch.Env, StderrLog: t.Stderr}, Built: prep.Launch.Built}
	if d.Generated != nil {
		if layer, err := d.Generated(ctx, prep); err == nil {
			p.Generated = layer
		}
	}
	if d.Paired != nil {
		if pr, err := d.Paired(prep); err == nil {
			p.Paired = &pr
		} else {
			p.Unpaired = err.Error()
		}
	}
	if d.Schema != nil {
		if dir, err := d.Schema(prep.CacheDir); err == nil {
			p.SchemaDir = dir
		}
	}
	return p, nil
}

// SchemaDir prepares the schema-source SDK here (cached) and returns where the preparation holds
// the runtime's schemas.
func (l Local) SchemaDir(ctx context.Context, sdk, version string, log io.Writer) (dir, from string, err error) {
	d, ok := sdks.Lookup(sdk)
	if !ok || d.Schema == nil {
		return "", "", errNoRecipe(sdk)
	}
	prep, err := (&sdks.Preparer{RepoRoot: l.RepoRoot, CacheRoot: l.CacheRoot, Log: log}).Prepare(ctx, sdk, version, "")
	if err != nil {
		return "", "", err
	}
	dir, err = d.Schema(prep.CacheDir)
	return dir, "", err
}

func (Local) Close(io.Writer) {}

type errNoRecipe string

func (e errNoRecipe) Error() string {
	return "this build of the harness has no driver recipe for " + string(e)
}
