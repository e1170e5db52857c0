package surface

import (
	"testing"

	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/stretchr/testify/assert"
)

// A spawn's facts as a transcript keeps them: a value of the harness's own environment only as
// its fingerprint, under whatever name the SDK passed it on; read back, the same process for
// every comparison the probe makes.
func TestSpawnFactKeepsNoHarnessValue(t *testing.T) {
	own := []string{"GITHUB_TOKEN=ghp_secretsecretsecret", "HOME=/root", "SHLVL=1"}
	p := Process{Args: []string{"--log-level", "debug"}, Dir: "/work", Env: map[string]string{
		"GITHUB_TOKEN": "ghp_secretsecretsecret", "COPILOT_SDK_AUTH_TOKEN": "ghp_secretsecretsecret",
		"SHLVL": "1", "kéy-env": "generated value"}, Requests: []Request{{Method: "connect", Params: map[string]any{"token": "x"}}}}
	f := p.Fact(own)
	assert.NotContains(t, f.Env["GITHUB_TOKEN"], "secret")
	assert.Equal(t, f.Env["GITHUB_TOKEN"], f.Env["COPILOT_SDK_AUTH_TOKEN"], "one value, one fingerprint")
	assert.Contains(t, f.Env["GITHUB_TOKEN"], inheritedPrefix)
	assert.Equal(t, "1", f.Env["SHLVL"], "a short value is no secret")
	assert.Equal(t, "generated value", f.Env["kéy-env"])
	back := ProcessOf(f)
	assert.Equal(t, p.Args, back.Args)
	assert.Equal(t, p.Dir, back.Dir)
	assert.Equal(t, p.Requests, back.Requests)
	assert.Equal(t, f.Env, back.Env)

	rec := transcript.Memory()
	rec.Spawned(f)
	es := rec.Entries()
	if assert.Len(t, es, 1) {
		assert.Equal(t, transcript.KindSpawn, es[0].Kind)
		assert.Equal(t, f.Env, es[0].Spawn.Env)
	}
}
