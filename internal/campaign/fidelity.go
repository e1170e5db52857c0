package campaign

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/fidelity"
	"github.com/copilot-sdk-conformance/conformance/internal/harness"
	"github.com/copilot-sdk-conformance/conformance/internal/progress"
	"github.com/copilot-sdk-conformance/conformance/internal/realruntime"
	"github.com/copilot-sdk-conformance/conformance/internal/sdks"
)

// FidelityPlan is the suite on the stand-in and on the real runtime, compared.
type FidelityPlan struct {
	// Config is both runs' base (the shared flags; RuntimeVersion names the real runtime); its
	// ReportDir holds stand-in/, real/, fidelity.md and fidelity.json.
	Config harness.Config
	// CompareOnly runs nothing: it compares the stand-in/ and real/ runs already there.
	CompareOnly bool
	// NoProbe leaves out the per-method probe of the schema/runtime skew.
	NoProbe bool
	Run     RunFunc               // nil: harness.Run
	View    func() *progress.View // each run's progress view (nil: the compact log to Out)
	Out     io.Writer
	// Schema is the runtime's api.schema.json and the folder of the preparation that ships it
	// (and its runtime), or why not (nil: RuntimeSchema).
	Schema func(ctx context.Context) ([]byte, string, string)
}

// Fidelity runs the plan (unless CompareOnly), compares the two runs and writes fidelity.md and
// fidelity.json; it returns the Markdown.
func Fidelity(ctx context.Context, p FidelityPlan) (string, error) {
	out := p.Out
	if out == nil {
		out = io.Discard
	}
	dir := p.Config.ReportDir
	times := map[string]time.Duration{}
	if !p.CompareOnly {
		for _, rt := range []string{harness.RuntimeStandIn, harness.RuntimeReal} {
			cfg := p.Config
			cfg.Log, cfg.Runtime, cfg.ReportDir = out, rt, filepath.Join(dir, rt)
			if p.View != nil {
				cfg.Progress = p.View()
			}
			if rt != harness.RuntimeReal {
				cfg.RuntimeVersion = ""
			}
			begin := time.Now()
			_, err := orRun(p.Run)(ctx, cfg)
			if cfg.Progress != nil {
				cfg.Progress.Close()
			}
			times[rt] = time.Since(begin)
			if err != nil && ctx.Err() != nil {
				return "", err
			}
			if err != nil {
				fmt.Fprintf(out, "%s run: %v\n", rt, err)
			}
		}
	}
	schema := p.Schema
	if schema == nil {
		schema = func(ctx context.Context) ([]byte, string, string) { return RuntimeSchema(ctx, p.Config, out) }
	}
	doc, prepDir, why := schema(ctx)
	if doc == nil {
		fmt.Fprintf(out, "schema/runtime skew not measured: %s\n", why)
	}
	r, err := fidelity.Compare(filepath.Join(dir, harness.RuntimeStandIn), filepath.Join(dir, harness.RuntimeReal), doc)
	if err != nil {
		return "", fmt.Errorf("%w: %v", harness.ErrSetup, err)
	}
	md := fidelity.Markdown(r)
	if doc != nil && !p.NoProbe {
		md += probe(ctx, p.Config, prepDir, doc, out)
	}
	if len(times) == 2 {
		md += fmt.Sprintf("\n## Time\n\nstand-in %.1fs, real %.1fs (%.2f×)\n", times[harness.RuntimeStandIn].Seconds(),
			times[harness.RuntimeReal].Seconds(), times[harness.RuntimeReal].Seconds()/times[harness.RuntimeStandIn].Seconds())
	}
	j, _ := json.MarshalIndent(r, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, "fidelity.json"), append(j, '\n'), 0o644); err != nil {
		return "", err
	}
	return md, os.WriteFile(filepath.Join(dir, "fidelity.md"), []byte(md), 0o644)
}

// probe calls every public method of the schema once on a real runtime (the skew's per-method
// probe) and returns its Markdown section, or why it did not run.
func probe(ctx context.Context, cfg harness.Config, prepDir string, doc []byte, log io.Writer) string {
	rb, err := sdks.PrepareRuntime(ctx, cacheOf(cfg), cfg.RuntimeVersion, prepDir, log)
	if err == nil {
		var p *realruntime.SkewProbe
		if p, err = realruntime.ProbeSkew(ctx, realruntime.Config{Binary: rb.Path, Env: rb.Env}, doc); err == nil {
			return p.Markdown()
		}
	}
	return fmt.Sprintf("\n(the per-method probe did not run: %v)\n", err)
}

// RuntimeSchema reads the runtime's api.schema.json from the prepared schema-source SDK at its
// pin, and returns that preparation's folder (which also ships the runtime), or why not.
func RuntimeSchema(ctx context.Context, cfg harness.Config, log io.Writer) ([]byte, string, string) {
	d, ok := sdks.SchemaSource()
	if !ok {
		return nil, "", "no SDK recipe ships the runtime schema"
	}
	pins, err := sdks.LoadPins(filepath.Join(cfg.RepoRoot, "fixtures", "sdks.yaml"))
	if err != nil {
		return nil, "", err.Error()
	}
	prep, err := (&sdks.Preparer{RepoRoot: cfg.RepoRoot, CacheRoot: cacheOf(cfg), Log: log}).Prepare(ctx, d.Name, pins[d.Name].Version, "")
	if err != nil {
		return nil, "", err.Error()
	}
	sd, err := d.Schema(prep.CacheDir)
	if err != nil {
		return nil, "", err.Error()
	}
	b, err := os.ReadFile(filepath.Join(sd, "api.schema.json"))
	if err != nil {
		return nil, "", err.Error()
	}
	return b, prep.CacheDir, ""
}

// cacheOf is the configuration's cache folder, or the default one.
func cacheOf(cfg harness.Config) string {
	if cfg.CacheRoot == "" {
		return sdks.DefaultCacheRoot()
	}
	return cfg.CacheRoot
}
