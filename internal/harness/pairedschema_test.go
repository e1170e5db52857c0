package harness

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/runner"
	"github.com/copilot-sdk-conformance/conformance/internal/schema"
	"github.com/copilot-sdk-conformance/conformance/internal/sdks"
)

func TestJudgeBy(t *testing.T) {
	run := filepath.Join("testdata", "sweepschema")
	// Another runtime's schema: the run's with connect's params closed to nothing.
	other := t.TempDir()
	b, err := os.ReadFile(filepath.Join(run, "api.schema.json"))
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(b, &doc))
	doc["server"].(map[string]any)["connect"].(map[string]any)["params"] = map[string]any{"type": "object", "additionalProperties": false}
	b, _ = json.Marshal(doc)
	require.NoError(t, os.WriteFile(filepath.Join(other, "api.schema.json"), b, 0o644))

	runV, err := schema.Load(filepath.Join(run, "api.schema.json"))
	require.NoError(t, err)
	connect := json.RawMessage(`{"token":"x"}`)
	require.Empty(t, runV.Check("connect", connect), "the run's schema allows the token")

	for _, tc := range []struct {
		name         string
		prep         runner.Prepared
		schema, note string
		paired       string
		ownSchema    bool // the SDK's frames are judged by the schema it ships
	}{
		{name: "an SDK that ships the run's own schema", prep: runner.Prepared{SchemaDir: run,
			Paired: &sdks.PairedRuntime{Version: "1.0.85", Evidence: "package.json copilotCliVersion"}},
			paired: "1.0.85 (package.json copilotCliVersion)"},
		{name: "an SDK version that ships another runtime's schema", prep: runner.Prepared{SchemaDir: other,
			Paired: &sdks.PairedRuntime{Version: "1.0.62", Evidence: "package.json copilotCliVersion"}},
			paired: "1.0.62 (package.json copilotCliVersion)", ownSchema: true,
			schema: "api.schema.json of runtime 1.0.62, shipped with this SDK version (12 methods)"},
		{name: "an SDK that declares another runtime and ships no schema", prep: runner.Prepared{
			Paired: &sdks.PairedRuntime{Version: "1.0.104", Evidence: "copilot/_cli_version.py CLI_VERSION"}},
			paired: "1.0.104 (copilot/_cli_version.py CLI_VERSION)",
			note:   "declares runtime 1.0.104 (copilot/_cli_version.py CLI_VERSION), whose schema no package here ships: judged by the run's (runtime 1.0.85)"},
		{name: "an SDK that declares the run's runtime", prep: runner.Prepared{
			Paired: &sdks.PairedRuntime{Version: "1.0.85", Evidence: "cli-version.txt"}}, paired: "1.0.85 (cli-version.txt)"},
		{name: "an SDK that declares nothing", prep: runner.Prepared{Unpaired: "no declaration"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := &state{schemaDir: run, schemaRuntime: "1.0.85"}
			tg := &target{}
			tg.rtOpts.Check, tg.rtOpts.CheckResult = runV.Check, runV.CheckResult
			var info report.SDK
			judgeBy(st, &tc.prep, tg, &info)
			assert.Equal(t, tc.schema, info.Schema)
			assert.Equal(t, tc.note, info.SchemaNote)
			assert.Equal(t, tc.paired, info.PairedRuntime)
			// The judge is the one named: only the other runtime's schema refuses the token.
			assert.Equal(t, tc.ownSchema, len(tg.rtOpts.Check("connect", connect)) > 0)
		})
	}
}
