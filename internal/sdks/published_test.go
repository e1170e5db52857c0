package sdks

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/driver"
	"github.com/copilot-sdk-conformance/conformance/internal/registry"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPublishedVersionsPrepare prepares, for each SDK whose toolchain is here, the oldest and the
// newest 1.x version its registry serves and its newest pre-release (registry.Sample1x: crates.io's
// 1.0.29-preview.4 once broke the Rust driver's build): each must prepare (the
// driver builds against it) and its driver answer hello, or the SDK's registry must say why not.
// A driver that fails to compile against a published version, or to start (an import of what the
// version lacks), fails this test.
//
// The full list (slow: every 1.x version, one build each) is the documented command
//
//	CONFORMANCE_PUBLISHED_VERSIONS=all go test -run TestPublishedVersionsPrepare -timeout 0 -v ./internal/sdks
//
// and CONFORMANCE_PUBLISHED_SDKS=node,go restricts either to some SDKs.
func TestPublishedVersionsPrepare(t *testing.T) {
	if testing.Short() {
		t.Skip("installs and builds published SDK versions: not in -short mode")
	}
	all := os.Getenv("CONFORMANCE_PUBLISHED_VERSIONS") == "all"
	var only []string
	if v := os.Getenv("CONFORMANCE_PUBLISHED_SDKS"); v != "" {
		only = strings.Split(v, ",")
	}
	var required []string
	if v := os.Getenv("CONFORMANCE_REQUIRE_SDKS"); v != "" {
		required = strings.Split(v, ",")
	}
	p := &Preparer{RepoRoot: "../..", CacheRoot: DefaultCacheRoot(), Log: testLog{t}}
	for _, name := range Names() {
		if only != nil && !slices.Contains(only, name) {
			continue
		}
		d, _ := Lookup(name)
		t.Run(name, func(t *testing.T) {
			if _, err := CheckToolchain(d); err != nil {
				if slices.Contains(required, name) {
					t.Fatalf("%s is required (CONFORMANCE_REQUIRE_SDKS) but unavailable: %v", name, err)
				}
				t.Skipf("unavailable: %v", err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			published, err := PublishedVersions(ctx, d)
			cancel()
			if err != nil {
				if slices.Contains(required, name) {
					t.Fatalf("the registry of required SDK %s cannot be listed: %v", name, err)
				}
				t.Skipf("the registry cannot be listed here: %v", err)
			}
			s, err := registry.Sample1x(published)
			require.NoError(t, err)
			versions := s.Versions()
			if all {
				versions = s.All
			}
			if len(versions) == 0 {
				t.Logf("%s's registry serves no 1.x version (it serves: %s)", name, strings.Join(published, ", "))
				return
			}
			var failed []string
			for _, v := range versions {
				prep, err := p.Prepare(context.Background(), name, v, "")
				if err == nil {
					// Prepared is not yet running: a driver that builds may still fail to start
					// against the version (an import of what it lacks): it must answer hello.
					err = answersHello(name, prep)
				}
				var un *Unavailable
				known, isKnown := notYetPreparing[name+"@"+v]
				switch {
				case err == nil && isKnown:
					t.Logf("RESULT %s %s prepares and answers hello", name, v)
					failed = append(failed, v+" (prepares now: remove it from notYetPreparing)")
				case err == nil:
					t.Logf("RESULT %s %s prepares and answers hello", name, v)
				case errors.As(err, &un):
					t.Logf("RESULT %s %s unavailable: %v", name, v, err)
				case isKnown && known.MatchString(err.Error()):
					t.Logf("RESULT %s %s does not prepare yet (known, notYetPreparing): %v", name, v, err)
				default:
					t.Logf("RESULT %s %s FAILS: %v", name, v, err)
					failed = append(failed, v)
				}
			}
			assert.Empty(t, failed, "%s versions whose driver does not prepare", name)
		})
	}
}

// answersHello starts the prepared driver and has it answer hello (validated against the
// protocol schema), then stops it.
func answersHello(name string, prep *Prepared) error {
	validator, err := driver.LoadValidator(filepath.Join("..", "..", "drivers", "protocol.schema.json"))
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, _, err := driver.Handshake(ctx, driver.Local{Argv: prep.Launch.Argv, Dir: prep.Launch.Dir, Env: prep.Launch.Env}, name, time.Minute, validator)
	if err != nil {
		return fmt.Errorf("the driver prepared but does not answer hello: %w", err)
	}
	c.Kill()
	return nil
}

// notYetPreparing are the published versions whose driver does not build yet, each with the
// compile error it fails with (strict: a listed version that prepares, or fails otherwise, fails
// the test). README's "Published versions that prepare here" lists them.
var notYetPreparing = map[string]*regexp.Regexp{}

// testLog writes preparation progress to the test log.
type testLog struct{ t *testing.T }

func (l testLog) Write(b []byte) (int, error) {
	l.t.Log(strings.TrimRight(string(b), "\n"))
	return len(b), nil
}

func TestGoRegistryRefusalIsUnavailable(t *testing.T) {
	refused := errors.New("go mod tidy failed: exit status 1\ngo: downloading github.com/github/copilot-sdk/go v1.0.1\n" +
		"\tgithub.com/github/copilot-sdk/go: github.com/github/copilot-sdk/go@v1.0.1: verifying module: github.com/github/copilot-sdk/go@v1.0.1: reading https://proxy.golang.org/sumdb/sum.golang.org/lookup/github.com/github/copilot-sdk/go@v1.0.1: 404 Not Found")
	var un *Unavailable
	require.ErrorAs(t, goRegistryRefusal("v1.0.1", refused), &un)
	assert.Contains(t, un.Reason, "404 Not Found")
	compile := errors.New("go build failed: ./connect.go:20:75: undefined: copilot.URIConnection")
	assert.False(t, errors.As(goRegistryRefusal("v1.0.0-beta.8", compile), &un), "a compile error is not the registry's refusal")
}
