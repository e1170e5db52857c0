package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/copilot-sdk-conformance/conformance/internal/report"
	"github.com/copilot-sdk-conformance/conformance/internal/sdks"
)

// optionalStringTag is an optional string field of a generated request type: a field the
// schema does not require, so a value lost on its way out breaks no required property.
var optionalStringTag = regexp.MustCompile("(?m)^type \\w+Request struct \\{[^}]*?\\n\\t\\w+ \\*string `json:\"(\\w+),omitempty\"`")

// TestMutatedSDKWireNameShows runs the generated RPC sweep on a copy of the pinned Go SDK whose
// generated layer misspells the json tag of one optional request field (the first in its
// rpc/zrpc.go). A driver that decoded the params into the request type through the SDK's own
// tags would find no field for the key, report the value unrepresentable and pass; the driver
// builds the request by Go field name (drivers/go/construct.go), so the misspelled key goes on
// the wire and the sweep fails naming it. The unmutated copy does not fail.
func TestMutatedSDKWireNameShows(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the Go driver on two SDK copies: not in -short mode")
	}
	d, ok := sdks.Lookup("go")
	require.True(t, ok)
	pins, err := sdks.LoadPins(filepath.Join(repoDir(t), "fixtures", "sdks.yaml"))
	require.NoError(t, err)
	pristine, err := d.Pristine(context.Background(), pins["go"].Version, t.TempDir())
	if err != nil {
		if slices.Contains(required(), "go") {
			t.Fatalf("go is required here: %v", err)
		}
		t.Skipf("the Go SDK's module cannot be fetched here: %v", err)
	}
	bin := buildCLI(t)
	copyOf := func(mutate bool) (string, string) {
		dir := filepath.Join(t.TempDir(), "go")
		require.NoError(t, sdks.CopyDir(pristine, dir))
		path := filepath.Join(dir, "rpc", "zrpc.go")
		src, err := os.ReadFile(path)
		require.NoError(t, err)
		m := optionalStringTag.FindSubmatchIndex(src)
		require.NotNil(t, m, "rpc/zrpc.go has an optional string field in a request type")
		key := string(src[m[2]:m[3]])
		if mutate {
			src = append(append(append([]byte{}, src[:m[3]]...), "Misspelled"...), src[m[3]:]...)
			require.NoError(t, os.WriteFile(path, src, 0o644))
		}
		return dir, key
	}
	// The lines of the run's failures that name the field's key (request numbers left out).
	naming := func(mutate bool) (map[string]bool, string) {
		dir, key := copyOf(mutate)
		reports := t.TempDir()
		_, out := runCLI(t, bin, "run", "--sdk", "go", "--sdk-source", "go="+dir, "--report-dir", reports,
			"features/schema/generated_rpc.feature")
		res, err := report.ReadResults(filepath.Join(reports, "results.json"))
		require.NoError(t, err, "%s", out)
		require.Len(t, res.SDKs, 1)
		require.Equal(t, report.Available, res.SDKs[0].Status, "%s", res.SDKs[0].Reason)
		word := regexp.MustCompile(regexp.QuoteMeta(key) + `(Misspelled)?\b`)
		lines := map[string]bool{}
		for _, r := range res.Results {
			if r.Status != report.Failed && r.Status != report.XFail {
				continue
			}
			for _, l := range strings.Split(r.Message, "\n") {
				if word.MatchString(l) {
					lines[requestNumber.ReplaceAllString(l, "#")] = true
				}
			}
		}
		return lines, key
	}
	// A source build is "(devel)", which no expected failure's version range names: the two
	// copies' runs are compared with each other, not with the manifest.
	before, key := naming(false)
	after, _ := naming(true)
	var added []string
	for l := range after {
		if !before[l] {
			added = append(added, l)
		}
	}
	assert.NotEmpty(t, added, "the misspelled tag of %q went unnoticed (lines naming it before: %v)", key, before)
	t.Logf("failure lines naming %q that the misspelling added: %d, e.g. %q", key, len(added), first(added))
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}
