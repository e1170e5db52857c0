package transcript

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPlantedTokenNeverWritten plants a token where an SDK and a driver put it (connect's
// params, the application's options to the driver, an escaped form, a broken frame, a note)
// and checks that the transcript file never holds it while the typed redaction says where it was.
func TestPlantedTokenNeverWritten(t *testing.T) {
	const token = "ghp_PlantedToken0123456789abcdef"
	tests := []struct {
		name     string
		record   func(r *Recorder)
		wantPath string // the Redaction expected on the first entry, if any
	}{
		{name: "connect params", wantPath: "params.token", record: func(r *Recorder) {
			r.Frame("c1", SDKToRuntime, []byte(`{"jsonrpc":"2.0","id":1,"method":"connect","params":{"supportedTaskKinds":[],"token":"`+token+`"}}`))
		}},
		{name: "the application's option to the driver", wantPath: "args.options.githubToken", record: func(r *Recorder) {
			r.Frame("", HarnessToDriver, []byte(`{"id":3,"cmd":"createClient","args":{"options":{"githubToken":"`+token+`"}}}`))
		}},
		{name: "escaped in the frame", wantPath: "params.gitHubToken", record: func(r *Recorder) {
			r.Frame("c1", SDKToRuntime, []byte(`{"method":"x","params":{"gitHubToken":"\u0067hp_PlantedToken0123456789abcdef"}}`))
		}},
		{name: "broken frame", record: func(r *Recorder) {
			r.Bad("c1", SDKToRuntime, []byte(`{"method":"connect","params":{"token":"`+token+`"`), errors.New("stream ended inside a frame"))
		}},
		{name: "a known secret in a note and an error", record: func(r *Recorder) {
			AddSecret(token)
			r.Notef("", "argv: --auth-token %s", token)
			r.Bad("c1", SDKToRuntime, []byte("x"), errors.New("bad token "+token))
		}},
		{name: "a known secret under an ordinary key", record: func(r *Recorder) {
			AddSecret(token)
			r.Frame("c1", SDKToRuntime, []byte(`{"method":"session.send","params":{"prompt":"my token is `+token+`"}}`))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "t.ndjson")
			r, err := New(path)
			require.NoError(t, err)
			tt.record(r)
			require.NoError(t, r.Close())
			b, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.NotContains(t, string(b), "PlantedToken", "the token is in the transcript")
			assert.Contains(t, string(b), Redacted(token))
			got, err := Read(path)
			require.NoError(t, err)
			if tt.wantPath != "" {
				assert.Equal(t, []Redaction{{Path: tt.wantPath, SHA256: Fingerprint(token)}}, got[0].Redacted)
			}
			for _, e := range r.Entries() {
				assert.NotContains(t, string(e.Frame)+e.Raw+e.Text+e.Error, "PlantedToken", "in memory too")
			}
		})
	}
}

func TestRedactionKeepsOtherBytes(t *testing.T) {
	r := Memory()
	body := `{"jsonrpc":"2.0", "id":1,"method":"connect","params":{"token":"secret-value-1","tokens":3,"n":1.50}}`
	r.Frame("c1", SDKToRuntime, []byte(body))
	e := r.Entries()[0]
	assert.Equal(t, strings.Replace(body, "secret-value-1", Redacted("secret-value-1"), 1), string(e.Frame),
		"only the secret changes; spacing, order and numbers stay as sent")
	assert.Equal(t, []Redaction{{Path: "params.token", SHA256: Fingerprint("secret-value-1")}}, e.Redacted)

	plain := `{"jsonrpc":"2.0","id":2,"method":"ping","params":{}}`
	r.Frame("c1", SDKToRuntime, []byte(plain))
	assert.Equal(t, plain, string(r.Entries()[1].Frame))
	assert.Empty(t, r.Entries()[1].Redacted)
}

func TestAddSecretsFromEnv(t *testing.T) {
	got := AddSecretsFromEnv([]string{"PATH=/bin", "GH_TOKEN=gho_fromTheEnvironment", "GITHUB_TOKEN=", "HOME=/root"})
	assert.Equal(t, []string{"GH_TOKEN=" + Redacted("gho_fromTheEnvironment")}, got)
	assert.Equal(t, "token "+Redacted("gho_fromTheEnvironment"), Scrub("token gho_fromTheEnvironment"))
}
