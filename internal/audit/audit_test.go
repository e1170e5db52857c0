package audit

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/driver"
	"github.com/copilot-sdk-conformance/conformance/internal/sdks"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCheck(t *testing.T) {
	universe := []string{"session.setTools", "session.gitHubToken", "tool.isTerminal.explicitFalse", "transport.tcp"}
	tests := []struct {
		name    string
		hello   driver.Hello
		present map[string]bool
		want    []string // substrings, one per expected problem
	}{
		{name: "every unsupported capability names a symbol the SDK lacks",
			hello: driver.Hello{Capabilities: map[string]bool{"transport.tcp": true, "session.setTools": false},
				Missing: map[string]string{"session.setTools": "S.setTools", "session.gitHubToken": "C.token"}},
			present: map[string]bool{"S.setTools": false, "C.token": false}},
		{name: "a symbol the SDK has is a false unsupported",
			hello: driver.Hello{SDK: "x", Version: "1", Capabilities: map[string]bool{"transport.tcp": true},
				Missing: map[string]string{"session.setTools": "S.setTools", "session.gitHubToken": "C.token"}},
			present: map[string]bool{"S.setTools": false, "C.token": true},
			want:    []string{"session.gitHubToken is unsupported, but x 1 has C.token"}},
		{name: "an undeclared capability without a symbol",
			hello:   driver.Hello{Capabilities: map[string]bool{"transport.tcp": true}, Missing: map[string]string{"session.setTools": "S.setTools"}},
			present: map[string]bool{"S.setTools": false},
			want:    []string{"session.gitHubToken is unsupported but hello names no missing SDK symbol"}},
		{name: "a symbol named for a capability declared true, or for no capability",
			hello: driver.Hello{Capabilities: map[string]bool{"transport.tcp": true, "session.setTools": true, "session.gitHubToken": true},
				Missing: map[string]string{"transport.tcp": "X.y", "tool.bogus": "Z"}},
			present: map[string]bool{"X.y": false, "Z": false},
			want:    []string{"missing names \"tool.bogus\"", "transport.tcp is declared true"}},
		{name: "a driver gap is listed, not probed",
			hello: driver.Hello{Capabilities: map[string]bool{"transport.tcp": true, "session.setTools": true},
				Missing: map[string]string{"session.gitHubToken": "driver: no gitHubToken yet"}},
			present: map[string]bool{}},
		{name: "a driver gap without a reason",
			hello: driver.Hello{Capabilities: map[string]bool{"transport.tcp": true, "session.setTools": true},
				Missing: map[string]string{"session.gitHubToken": "driver:"}},
			present: map[string]bool{},
			want:    []string{"a driver gap says what the driver lacks"}},
		{name: "a probe that did not answer",
			hello:   driver.Hello{Capabilities: map[string]bool{"transport.tcp": true, "session.setTools": true}, Missing: map[string]string{"session.gitHubToken": "C.token"}},
			present: map[string]bool{},
			want:    []string{"the probe did not answer"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Check(&tt.hello, universe, tt.present)
			require.Len(t, got, len(tt.want), "%q", got)
			for i, w := range tt.want {
				assert.Contains(t, got[i], w)
			}
		})
	}
}

func TestUniverseExpandsTheOptionFamilies(t *testing.T) {
	schema, err := os.ReadFile(filepath.Join("..", "..", "drivers", "protocol.schema.json"))
	require.NoError(t, err)
	u, err := Universe(schema)
	require.NoError(t, err)
	for _, c := range []string{"session.gitHubToken", "session.option.continuePendingWork", "connect.option.clientInfo", "tool.result.binary.metadata"} {
		assert.Contains(t, u, c)
	}
	for _, c := range u {
		assert.NotContains(t, c, "<name>")
	}
}

// required says whether CONFORMANCE_REQUIRE_SDKS (set by .ci/run) names the SDK: then a missing
// toolchain fails instead of skipping.
func required(name string) bool {
	return slices.Contains(strings.Split(os.Getenv("CONFORMANCE_REQUIRE_SDKS"), ","), name)
}

// auditVersions reads CONFORMANCE_AUDIT_VERSIONS ("node=1.0.0-beta.4,1.0.8 go=v1.0.0-beta.8"):
// the versions to audit per SDK instead of the pinned one, e.g. older releases whose driver takes
// other code paths.
func auditVersions(t *testing.T) map[string][]string {
	out := map[string][]string{}
	for _, group := range strings.Fields(os.Getenv("CONFORMANCE_AUDIT_VERSIONS")) {
		name, list, ok := strings.Cut(group, "=")
		if !ok || list == "" {
			t.Fatalf("CONFORMANCE_AUDIT_VERSIONS: %q is not SDK=VERSION[,VERSION…]", group)
		}
		out[name] = append(out[name], strings.Split(list, ",")...)
	}
	return out
}

// auditSources reads CONFORMANCE_AUDIT_SOURCES: SDK=PATH … local sources (a github/copilot-sdk
// checkout's java/, say) audited besides the versions.
func auditSources(t *testing.T) map[string]string {
	out := map[string]string{}
	for _, pair := range strings.Fields(os.Getenv("CONFORMANCE_AUDIT_SOURCES")) {
		name, path, ok := strings.Cut(pair, "=")
		if !ok || path == "" {
			t.Fatalf("CONFORMANCE_AUDIT_SOURCES: %q is not SDK=PATH", pair)
		}
		out[name] = path
	}
	return out
}

// TestCapabilityAudit prepares each SDK's pinned version (or the CONFORMANCE_AUDIT_VERSIONS
// ones, and the CONFORMANCE_AUDIT_SOURCES local sources), reads its driver's hello and checks every capability it declares unsupported against
// the installed SDK: the symbol it names as missing must really be missing, and a generated layer
// the SDK's files hold (the recipe's Generated) must not be declared unsupported.
func TestCapabilityAudit(t *testing.T) {
	if testing.Short() {
		t.Skip("prepares every SDK: not in -short mode")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	schema, err := os.ReadFile(filepath.Join(root, "drivers", "protocol.schema.json"))
	require.NoError(t, err)
	universe, err := Universe(schema)
	require.NoError(t, err)
	pins, err := sdks.LoadPins(filepath.Join(root, "fixtures", "sdks.yaml"))
	require.NoError(t, err)
	validator, err := driver.LoadValidator(filepath.Join(root, "drivers", "protocol.schema.json"))
	require.NoError(t, err)
	for _, name := range sdks.Names() {
		t.Run(name, func(t *testing.T) {
			d, _ := sdks.Lookup(name)
			skip := func(format string, args ...any) {
				if required(name) {
					t.Fatalf(format, args...)
				}
				t.Skipf(format, args...)
			}
			if _, err := sdks.CheckToolchain(d); err != nil {
				skip("%s: %v", name, err)
			}
			if d.Probe == nil {
				skip("the %s recipe has no Probe: its unsupported capabilities cannot be audited", name)
			}
			versions := auditVersions(t)[name]
			if versions == nil {
				versions = []string{pins[name].Version}
			}
			type target struct{ version, source string }
			var targets []target
			for _, v := range versions {
				targets = append(targets, target{v, ""})
			}
			if src := auditSources(t)[name]; src != "" {
				targets = append(targets, target{pins[name].Version, src})
			}
			for _, tg := range targets {
				version := tg.version
				label := version
				if tg.source != "" {
					label = "source"
				}
				t.Run(label, func(t *testing.T) {
					ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
					defer cancel()
					prep, err := (&sdks.Preparer{RepoRoot: root, CacheRoot: sdks.DefaultCacheRoot(), Log: testLog{t}}).Prepare(ctx, name, version, tg.source)
					require.NoError(t, err)
					c, hello, err := driver.Handshake(ctx, driver.Local{Argv: prep.Launch.Argv, Dir: prep.Launch.Dir, Env: prep.Launch.Env}, name, 2*time.Minute, validator)
					require.NoError(t, err)
					c.Kill()
					present, err := d.Probe(ctx, prep, Symbols(hello))
					require.NoError(t, err)
					t.Logf("%s %s: missing %v; the SDK has %v", name, hello.Version, hello.Missing, present)
					for c, why := range Gaps(hello) {
						t.Logf("DRIVER GAP %s %s: %s is unsupported because the driver does not implement it: %s", name, hello.Version, c, why)
					}
					assert.Empty(t, Check(hello, universe, present), "%s %s", name, hello.Version)
					if d.Generated != nil {
						layer, err := d.Generated(ctx, prep)
						require.NoError(t, err)
						t.Logf("%s %s: generated layer %q, rpc.generated %v", name, hello.Version, layer, hello.Capabilities[Generated])
						assert.Empty(t, CheckGenerated(hello, layer), "%s %s", name, hello.Version)
					}
				})
			}
		})
	}
}

type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// A capability the SDK has is never reported missing: the generated layer found in the SDK's own
// files is held against the hello, whatever symbol the driver named for it (Java 1.x from a
// checkout declared rpc.generated false while naming 0.x's com.github.copilot.sdk.generated.rpc,
// absent there too, so Check alone passed it).
func TestCheckGenerated(t *testing.T) {
	tests := []struct {
		name     string
		declared bool
		layer    string
		problem  bool
	}{
		{"the layer is there and declared", true, "driver.jar!/com/github/copilot/generated/rpc/", false},
		{"the layer is there but declared missing", false, "driver.jar!/com/github/copilot/generated/rpc/", true},
		{"no layer, declared missing", false, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := &driver.Hello{SDK: "java", Version: "1.0.13-preview.0-SNAPSHOT", Capabilities: map[string]bool{Generated: tt.declared},
				Missing: map[string]string{Generated: "com.github.copilot.sdk.generated.rpc.SessionRpc"}}
			got := CheckGenerated(h, tt.layer)
			if !tt.problem {
				assert.Empty(t, got)
				return
			}
			require.Len(t, got, 1)
			assert.Contains(t, got[0], "ships its generated layer ("+tt.layer+")")
			assert.Empty(t, Check(h, []string{Generated}, map[string]bool{h.Missing[Generated]: false}),
				"the symbol audit alone does not see it: the driver named an absent symbol")
		})
	}
}
