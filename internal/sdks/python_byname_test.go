package sdks

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A stand-in for a generated module whose serializer has the symmetric mistake of issue 30 item 6:
// from_dict and to_dict both use "runCompactionPreFlight" for the field run_compaction_preflight.
const pythonMisnamedModule = `
from __future__ import annotations
from dataclasses import dataclass
from typing import Any, ClassVar

@dataclass
class SwitchRequest:
    model_id: str
    run_compaction_preflight: bool | None = None

    @staticmethod
    def from_dict(obj: Any) -> "SwitchRequest":
        return SwitchRequest(obj.get("modelId"), obj.get("runCompactionPreFlight"))

    def to_dict(self) -> dict:
        out: dict = {"modelId": self.model_id}
        if self.run_compaction_preflight is not None:
            out["runCompactionPreFlight"] = self.run_compaction_preflight
        return out

@dataclass
class Spawned:
    kind: ClassVar[str] = "spawned"
    id: str

@dataclass
class Failed:
    kind: ClassVar[str] = "failed"
    id: str

@dataclass
class Holder:
    result: Spawned | Failed
`

// The probe builds the given params into SwitchRequest either by name (drivers/python/byname.py)
// or with the module's own from_dict, serialises it the SDK's way (to_dict, top-level None
// filtered as the generated wrappers do) and prints the wire and the driver's unrepresentable.
const pythonBynameProbe = `
import json, sys
import byname, misnamed
way, params = sys.argv[1], json.loads(sys.argv[2])
res = byname.Result()
if way == "byname":
    value = byname.build(misnamed.SwitchRequest, params, res)
else:
    value = misnamed.SwitchRequest.from_dict(params)
wire = {k: v for k, v in value.to_dict().items() if v is not None}
holder = byname.build(misnamed.Holder, {"result": {"kind": "failed", "id": "x"}})
print(json.dumps({"wire": wire, "unrepresentable": byname.unrepresentable(params, wire, res),
                  "variant": type(holder.result).__name__}))
`

// TestPythonBuildsByName proves the class: a key the SDK's serializer renames reaches the wire
// and is left for the harness to judge when the driver builds by field name, while building
// through the SDK's own from_dict cancels the mistake out (the key is reported unrepresentable,
// so the check could not fail). The full version, on a mutated copy of the published SDK, is
// `conformance selftest --only python-generated-key-renamed`.
func TestPythonBuildsByName(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not on PATH")
	}
	dir := t.TempDir()
	root, err := filepath.Abs(filepath.Join("..", "..", "drivers", "python"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "misnamed.py"), []byte(pythonMisnamedModule), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "probe.py"), []byte(pythonBynameProbe), 0o644))

	type out struct {
		Wire            map[string]any `json:"wire"`
		Unrepresentable []string       `json:"unrepresentable"`
		Variant         string         `json:"variant"`
	}
	for _, tc := range []struct {
		name   string
		way    string
		params string
		wire   map[string]any
		unrep  []string
	}{
		{"by name: the renamed key reaches the wire, not excused", "byname",
			`{"modelId": "m", "runCompactionPreflight": true}`,
			map[string]any{"modelId": "m", "runCompactionPreFlight": true}, []string{}},
		{"from_dict: the mistake cancels out and the key is excused", "from_dict",
			`{"modelId": "m", "runCompactionPreflight": true}`,
			map[string]any{"modelId": "m"}, []string{"/runCompactionPreflight"}},
		{"by name: a key the type has no field for is unrepresentable", "byname",
			`{"modelId": "m", "noSuchField": 1}`,
			map[string]any{"modelId": "m"}, []string{"/noSuchField"}},
		{"by name: an explicit null the None filter drops is unrepresentable", "byname",
			`{"modelId": "m", "runCompactionPreflight": null}`,
			map[string]any{"modelId": "m"}, []string{"/runCompactionPreflight"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(python, filepath.Join(dir, "probe.py"), tc.way, tc.params)
			cmd.Env = append(os.Environ(), "PYTHONPATH="+root+string(os.PathListSeparator)+dir)
			b, err := cmd.Output()
			if ee, ok := err.(*exec.ExitError); ok {
				t.Fatalf("probe failed: %s", ee.Stderr)
			}
			require.NoError(t, err)
			var got out
			require.NoError(t, json.Unmarshal(b, &got))
			assert.Equal(t, tc.wire, got.Wire)
			assert.Equal(t, tc.unrep, got.Unrepresentable)
			assert.Equal(t, "Failed", got.Variant, "the union variant is chosen by its ClassVar constant")
		})
	}
}
