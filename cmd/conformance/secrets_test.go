package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/copilot-sdk-conformance/conformance/internal/standin"
	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/copilot-sdk-conformance/conformance/internal/wire"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStdioRuntimeRedactsTokens: the runtime an SDK spawns records the token environment by
// fingerprint only, and a token sent in connect or echoed in argv never reaches its transcript.
func TestStdioRuntimeRedactsTokens(t *testing.T) {
	const envToken, appToken = "gho_EnvPlantedToken42", "ghp_AppPlantedToken42"
	bin := buildCLI(t)
	out := filepath.Join(t.TempDir(), "stdio.ndjson")
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"connect","params":{"token":%q}}`, appToken)
	cmd := exec.Command(bin, "runtime", "--stdio", "--transcript", out, "--auth-token", envToken)
	cmd.Env = append(os.Environ(), "GH_TOKEN="+envToken, "COPILOT_GITHUB_TOKEN="+appToken)
	cmd.Stdin = strings.NewReader(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body))
	stdout, err := cmd.Output()
	require.NoError(t, err)
	assert.Contains(t, string(stdout), `"ok":true`)

	b, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.NotContains(t, string(b), "PlantedToken")
	assert.Contains(t, string(b), "GH_TOKEN="+transcript.Redacted(envToken))
	assert.Contains(t, string(b), transcript.Redacted(appToken))
}

// TestServeWarnsWhenNotLoopback: serve says so on stderr when told to listen beyond loopback.
func TestServeWarnsWhenNotLoopback(t *testing.T) {
	bin := buildCLI(t)
	cmd := exec.Command(bin, "serve", "--root", repoDir(t), "--listen", "0.0.0.0:0", "--transcript", filepath.Join(t.TempDir(), "s.ndjson"))
	stderr := &strings.Builder{}
	cmd.Stderr = stderr
	stdoutPipe, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	buf := make([]byte, 4096)
	n, _ := stdoutPipe.Read(buf) // the address line is printed after the warning
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	_ = cmd.Wait()
	assert.Contains(t, string(buf[:n]), "listening on")
	assert.Contains(t, stderr.String(), "not loopback only")
}

// TestStdioScriptRecordsTheSDKsArguments: the script an SDK spawns records only the arguments
// the SDK passed, so "the runtime was started with the flag --stdio" fails for an SDK that
// does not pass it (the script's own `runtime --stdio` is not counted).
func TestStdioScriptRecordsTheSDKsArguments(t *testing.T) {
	bin := buildCLI(t)
	dir := t.TempDir()
	script, out := filepath.Join(dir, "copilot"), filepath.Join(dir, "stdio.ndjson")
	require.NoError(t, standin.WriteStdioScript(script, []string{bin, "runtime", "--stdio"}, out))
	for _, args := range [][]string{{"--headless", "--stdio"}, {"--headless"}, {}} {
		require.NoError(t, exec.Command(script, args...).Run())
		entries, err := transcript.Read(out)
		require.NoError(t, err)
		var argv []string
		for _, e := range entries {
			if e.Kind == transcript.KindArgv {
				argv = e.Argv
			}
		}
		assert.Equal(t, args, append([]string{}, argv...), "the recorded arguments")
		require.NoError(t, os.Remove(out))
	}
}

// TestStdioRuntimeExitsOnShutdown: the runtime an SDK spawns answers runtime.shutdown and then
// exits with its stdin still open, as the real runtime does (an SDK that waits for its child to
// exit before killing it would otherwise wait out its own timeout on every stop).
func TestStdioRuntimeExitsOnShutdown(t *testing.T) {
	bin := buildCLI(t)
	out := filepath.Join(t.TempDir(), "stdio.ndjson")
	cmd := exec.Command(bin, "runtime", "--stdio", "--transcript", out)
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	defer stdin.Close()
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	body := `{"jsonrpc":"2.0","id":1,"method":"runtime.shutdown","params":{}}`
	_, err = fmt.Fprintf(stdin, "Content-Length: %d\r\n\r\n%s", len(body), body)
	require.NoError(t, err)
	answer, err := wire.NewReader(stdout).NextFrame()
	require.NoError(t, err)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":1,"result":{}}`, string(answer.Body))
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		assert.NoError(t, err)
	case <-time.After(time.Minute): // a bound on a hang, not a speed check
		_ = cmd.Process.Kill()
		t.Fatal("the runtime did not exit after answering runtime.shutdown")
	}
}
