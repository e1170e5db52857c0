// Package drivers holds no Go code of the harness: each subfolder is one language's driver. These
// tests run drivers' own unit tests (packages of their own, so `go test ./...` at the root does
// not reach them), which need only the toolchain and, for Go, the pinned SDK module.
package drivers

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

func TestGoDriverUnitTests(t *testing.T) {
	cmd := exec.Command("go", "test", "-count=1", ".")
	cmd.Dir = "go"
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go test in drivers/go: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}

// TestRustBuildScriptTests runs the Rust driver's build-script tests (drivers/rust/buildtests: the
// generators that read the SDK crate with syn), which compile the parser only, not the SDK.
func TestRustBuildScriptTests(t *testing.T) {
	if _, err := exec.LookPath("cargo"); err != nil {
		if slices.Contains(strings.Split(os.Getenv("CONFORMANCE_REQUIRE_SDKS"), ","), "rust") {
			t.Fatalf("rust is required here (CONFORMANCE_REQUIRE_SDKS), but cargo is not on PATH: %v", err)
		}
		t.Skipf("the Rust toolchain (cargo) is not installed: %v", err)
	}
	cmd := exec.Command("cargo", "test", "--locked", "--quiet")
	cmd.Dir = "rust/buildtests"
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("cargo test in drivers/rust/buildtests: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}
