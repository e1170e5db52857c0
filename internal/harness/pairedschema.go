package harness

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/runner"
	"github.com/copilot-sdk-conformance/conformance/internal/schema"
)

// judgeBy chooses the runtime schema that judges one SDK version's frames: the schema of the
// runtime the version pairs with where that can be found, the run's otherwise, and says which
// in info. An SDK that ships its runtime's schemas (the Node SDK's platform package) is judged
// by its own when they differ from the run's (another Node version than the schema source's
// pin); an SDK that only declares a runtime version (Python's CLI_VERSION, Rust's
// cli-version.txt) is judged by the run's, with a note when the versions differ, since no
// package here ships that runtime's schema. A run whose schemas did not load is left alone.
func judgeBy(st *state, prep *runner.Prepared, t *target, info *report.SDK) {
	if prep.Paired != nil {
		info.PairedRuntime = fmt.Sprintf("%s (%s)", prep.Paired.Version, prep.Paired.Evidence)
	}
	if st.schemaDir == "" || t.rtOpts.Check == nil {
		return
	}
	if prep.SchemaDir != "" && !sameSchema(prep.SchemaDir, st.schemaDir) {
		v, err := schema.Load(filepath.Join(prep.SchemaDir, "api.schema.json"))
		if err != nil {
			info.SchemaNote = fmt.Sprintf("the schema it ships did not load (%v): judged by the run's", err)
			return
		}
		t.rtOpts.Check, t.rtOpts.CheckResult = v.Check, v.CheckResult
		runtimeOf := ""
		if prep.Paired != nil {
			runtimeOf = " of runtime " + prep.Paired.Version
		}
		info.Schema = fmt.Sprintf("api.schema.json%s, shipped with this SDK version (%d methods)", runtimeOf, v.Methods())
		return
	}
	if prep.Paired != nil && st.schemaRuntime != "" && prep.Paired.Version != st.schemaRuntime {
		info.SchemaNote = fmt.Sprintf("declares runtime %s (%s), whose schema no package here ships: judged by the run's (runtime %s)",
			prep.Paired.Version, prep.Paired.Evidence, st.schemaRuntime)
	}
}

// sameSchema says whether two schema folders hold the same api.schema.json.
func sameSchema(a, b string) bool {
	x, err1 := os.ReadFile(filepath.Join(a, "api.schema.json"))
	y, err2 := os.ReadFile(filepath.Join(b, "api.schema.json"))
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}
