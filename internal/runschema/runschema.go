// Package runschema loads the runtime's published schemas (api.schema.json,
// session-events.schema.json) for one run: from the SDK whose recipe ships them, as the run's
// runner prepares it (a local preparation, or its driver image with --runner docker). It gives the
// validator every request is checked against, the schemas for generation (the sweep's cases,
// the stand-in runtime's generated answers) and the catalog of methods and events the coverage
// counts.
package runschema

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/copilot-sdk-conformance/conformance/internal/coverage"
	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/runner"
	"github.com/copilot-sdk-conformance/conformance/internal/schema"
	"github.com/copilot-sdk-conformance/conformance/internal/schemagen"
	"github.com/copilot-sdk-conformance/conformance/internal/sdks"
	"github.com/copilot-sdk-conformance/conformance/internal/standin"
	"github.com/copilot-sdk-conformance/conformance/internal/text"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
)

// Loaded is a run's runtime schema.
type Loaded struct {
	// Validator checks requests; nil when the schema could not be loaded (the run goes on and
	// the schema scenarios report unsupported).
	Validator *schema.Validator
	// Desc says where the schema came from, or "unavailable: why" (results.json harness.schema).
	Desc string
	// Gen and Answers are the schemas for generation and every method's generated result; nil
	// when generation failed (the sweep then reports unsupported).
	Gen     *schemagen.Doc
	Answers *standin.Answers
	// Dir is the folder the schemas were read from, and Runtime the runtime version they belong
	// to ("" when unknown, as for schemas copied out of a driver image): an SDK that declares
	// another runtime is judged by its own schema where it ships one (harness).
	Dir, Runtime string
}

// Load takes the schemas of the schema-source SDK at its pin, from src.
func Load(ctx context.Context, src runner.Schemas, pins map[string]sdks.Pin, log io.Writer) Loaded {
	d, ok := sdks.SchemaSource()
	if !ok {
		return Loaded{Desc: "unavailable: no SDK recipe ships the runtime schema"}
	}
	pin := pins[d.Name]
	dir, from, err := src.SchemaDir(ctx, d.Name, pin.Version, log)
	if err != nil {
		return Loaded{Desc: "unavailable: " + text.FirstLine(err.Error())}
	}
	v, err := schema.Load(filepath.Join(dir, "api.schema.json"))
	if err != nil {
		return Loaded{Desc: "unavailable: " + text.FirstLine(err.Error())}
	}
	deriveCredentialKeys(dir, log)
	l := Loaded{Validator: v, Dir: dir, Desc: fmt.Sprintf("api.schema.json of %s %s's platform package (%d methods)", pin.Package, pin.Version, v.Methods())}
	if pr, err := sdks.NodeSchemaRuntime(dir); err == nil {
		l.Runtime = pr.Version
		l.Desc = fmt.Sprintf("api.schema.json of runtime %s, from %s %s's platform package (%d methods)", pr.Version, pin.Package, pin.Version, v.Methods())
	}
	if from != "" {
		l.Desc += ", read from the " + from
	}
	if l.Gen, l.Answers, err = generated(dir); err != nil {
		fmt.Fprintf(log, "schema generation: %v\n", err)
		l.Gen, l.Answers = nil, nil
	}
	return l
}

// Catalog lists every method and event type of the schemas, for the coverage.
func Catalog(gen *schemagen.Doc) []report.SchemaItem {
	if gen == nil {
		return nil
	}
	var out []report.SchemaItem
	for _, m := range gen.Methods {
		kind := "method"
		if !m.FromSDK {
			kind = "handler"
		}
		item := report.SchemaItem{Name: m.Name, Kind: kind, Internal: m.Internal}
		if gen.IsExchange(m.Name) {
			item.Capability = "rpc.requestHandler" // features/schema/request_handler.feature
		}
		out = append(out, item)
	}
	for _, et := range gen.EventTypes {
		out = append(out, report.SchemaItem{Name: et.Type, Kind: "event"})
	}
	coverage.SortCatalog(out)
	return out
}

// generated loads the schemas for generation and generates every method's result.
func generated(dir string) (*schemagen.Doc, *standin.Answers, error) {
	gen, err := schemagen.Load(dir)
	if err != nil {
		return nil, nil, err
	}
	// The sweep's cases are generated once per run (and shared by every SDK): start now, while
	// the SDKs are prepared, rather than inside the first sweep scenario.
	go func() {
		for _, m := range gen.Methods {
			if m.FromSDK && !m.Internal {
				gen.CasesOnce(m)
			}
		}
	}()
	a := &standin.Answers{Results: map[string]json.RawMessage{}, Public: map[string]bool{}}
	for _, m := range gen.Methods {
		if !m.FromSDK {
			continue
		}
		r, err := gen.Result(m)
		if err != nil {
			return nil, nil, err
		}
		b, err := json.Marshal(r)
		if err != nil {
			return nil, nil, err
		}
		a.Results[m.Name], a.Public[m.Name] = b, !m.Internal
	}
	return gen, a, nil
}

// deriveCredentialKeys has every transcript redact the properties the runtime's schemas describe
// as credentials (transcript.CredentialKeysFromSchema), beside those the key rule names.
func deriveCredentialKeys(dir string, log io.Writer) {
	for _, f := range []string{"api.schema.json", "session-events.schema.json"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			continue
		}
		keys, err := transcript.CredentialKeysFromSchema(b)
		if err != nil {
			fmt.Fprintf(log, "credential keys from %s: %v\n", f, err)
			continue
		}
		transcript.AddCredentialKeys(keys...)
	}
}
