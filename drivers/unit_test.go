// Package drivers holds no Go code of the harness: each subfolder is one language's driver. This
// test runs the Go driver's own unit tests (a module of its own, so `go test ./...` at the root
// does not reach them), which need only the toolchain and the pinned SDK module.
package drivers

import (
	"os/exec"
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
