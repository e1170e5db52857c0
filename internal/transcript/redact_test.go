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

// TestCredentialsByWhatTheyAre plants a provider's apiKey, bearerToken and custom header, and an
// MCP server's Authorization and x-api-key headers in session.create (as an SDK sends them and
// as the harness gives them to a driver, and in a broken frame): none reaches the transcript,
// each is recorded by its fingerprint at its path, and a header that is not a credential stays.
func TestCredentialsByWhatTheyAre(t *testing.T) {
	const params = `{"provider":{"type":"openai","baseUrl":"http://x","apiKey":"planted-apikey-0001","bearerToken":"planted-bearer-0002","headers":{"X-Tenant-Auth":"planted-header-0003"}},` +
		`"mcpServers":{"s":{"type":"http","url":"http://y","headers":{"Authorization":"Basic planted-mcpauth-0004","x-api-key":"planted-xapikey-0005","X-Trace":"keep-me-visible"}}},"maxTokens":7,"tokenType":"keep-type"}`
	path := filepath.Join(t.TempDir(), "t.ndjson")
	r, err := New(path)
	require.NoError(t, err)
	r.Frame("c1", SDKToRuntime, []byte(`{"jsonrpc":"2.0","id":2,"method":"session.create","params":`+params+`}`))
	r.Frame("", HarnessToDriver, []byte(`{"id":3,"cmd":"createSession","args":`+params+`}`))
	r.Bad("c1", SDKToRuntime, []byte(`{"params":{"provider":{"apiKey":"planted-apikey-0006"`), errors.New("stream ended inside a frame"))
	require.NoError(t, r.Close())
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.NotContains(t, string(b), "planted-")
	assert.Contains(t, string(b), "keep-me-visible")
	assert.Contains(t, string(b), `"tokenType":"keep-type"`)
	entries, err := Read(path)
	require.NoError(t, err)
	var paths []string
	for _, red := range entries[0].Redacted {
		paths = append(paths, red.Path)
	}
	assert.ElementsMatch(t, []string{"params.provider.apiKey", "params.provider.bearerToken", "params.provider.headers.X-Tenant-Auth",
		"params.mcpServers.s.headers.Authorization", "params.mcpServers.s.headers.x-api-key"}, paths)
}

// TestCredentialKeysFromSchema: the schema's string properties described as secrets are keys to
// redact; counts, flags and names about a credential are not.
func TestCredentialKeysFromSchema(t *testing.T) {
	doc := `{"definitions":{"a":{"type":"object","properties":{
		"hmac":{"type":"string","description":"HMAC secret used to sign requests."},
		"pin":{"type":"string","format":"password"},
		"apiKey":{"type":"string"},
		"serverName":{"type":"string","description":"Name of the MCP server whose OAuth credentials were updated."},
		"sourceKey":{"type":"string","description":"Key matched at the source level, such as a model id."},
		"reason":{"type":"string","description":"Why the runtime is requesting host-provided OAuth credentials."},
		"sessionCode":{"type":"string","description":"Short-lived, rotating credential the caller must send."},
		"username":{"type":"string","description":"Username, combined with the password."},
		"maxTokens":{"type":"integer","description":"Maximum tokens."},
		"refreshSessionToken":{"type":"boolean","description":"Whether to mint a token."},
		"model":{"type":"string","description":"The model the token is bound to."}}}}}`
	keys, err := CredentialKeysFromSchema([]byte(doc))
	require.NoError(t, err)
	assert.Equal(t, []string{"apiKey", "hmac", "pin", "sessionCode"}, keys)

	AddCredentialKeys(keys...)
	body, reds := redactFrame([]byte(`{"params":{"hmac":"planted-hmac-0007","pin":"planted-pin-0008"}}`))
	assert.NotContains(t, string(body), "planted-")
	assert.Len(t, reds, 2)
}

// TestSecretsByNameAndShape: a variable whose name says key, token, secret or password is a
// secret (OPENAI_API_KEY), and credentials of a published shape are scrubbed from free text
// (a step's text in a failure message).
func TestSecretsByNameAndShape(t *testing.T) {
	found := AddSecretsFromEnv([]string{"OPENAI_API_KEY=planted-openai-0009", "MY_DB_PASSWORD=planted-db-0010", "KEYBOARD=us-layout", "HOME=/root", "TOKEN_LIMIT=100000", "GOOGLE_APPLICATION_CREDENTIALS=/etc/creds.json"})
	assert.Equal(t, []string{"OPENAI_API_KEY=" + Redacted("planted-openai-0009"), "MY_DB_PASSWORD=" + Redacted("planted-db-0010")}, found)
	out := Scrub(`env: OPENAI_API_KEY=planted-openai-0009 layout us-layout; step "When a session is created with the GitHub token "ghp_ConformanceFakeToken0000000000000000"" failed; Authorization: Bearer abcdefghijklmnop1234`)
	assert.NotContains(t, out, "planted-")
	assert.NotContains(t, out, "ghp_ConformanceFakeToken")
	assert.NotContains(t, out, "abcdefghijklmnop1234")
	assert.Contains(t, out, "us-layout")
	prose := "Bearer authentication, as sk-learn-compatible-tooling does"
	assert.Equal(t, prose, Scrub(prose), "words are not keys")
	assert.Contains(t, out, Redacted("ghp_ConformanceFakeToken0000000000000000"))
}

// TestGeneratedStringUnderACredentialKey: a value that is not a credential written out (a sweep's
// non-ASCII string, also a map key and another field's value) is redacted under its credential
// key only: the frame's other uses of it stay.
func TestGeneratedStringUnderACredentialKey(t *testing.T) {
	const shared = "héllo wörld ✓"
	body, reds := redactFrame([]byte(`{"params":{"apiKey":"` + shared + `","headers":{"` + shared + `":"x"},"note":"` + shared + `"}}`))
	require.Len(t, reds, 1)
	assert.Equal(t, "params.apiKey", reds[0].Path)
	assert.JSONEq(t, `{"params":{"apiKey":"`+Redacted(shared)+`","headers":{"`+shared+`":"x"},"note":"`+shared+`"}}`, string(body))
	assert.Equal(t, shared, Scrub(shared), "not scrubbed from free text")

	// A scheme and a credential, beside a value that is not one written out: both are found in
	// free text afterwards.
	_, reds = redactFrame([]byte(`{"headers":{"Authorization":"Basic planted-basic-0012"},"token":"` + shared + `","x-api-key":"planted-xkey-0013"}`))
	require.Len(t, reds, 3)
	assert.Equal(t, "creds "+Redacted("planted-basic-0012")+" "+Redacted("planted-xkey-0013"), Scrub("creds planted-basic-0012 planted-xkey-0013"))
}

// A scenario recorded under its name with the secret it quotes redacted is found again by the
// name the features give it, and by no other.
func TestUnredacts(t *testing.T) {
	name := `provider {"apiKey": "sk-test"} is sent`
	recorded := `provider {"apiKey": "` + Redacted("sk-test") + `"} is sent`
	for _, c := range []struct {
		recorded, text string
		want           bool
	}{
		{recorded, name, true},
		{name, name, true},
		{recorded, `provider {"apiKey": "sk-other"} is sent`, false},
		{recorded, `provider {"apiKey": "sk-test"} is sent on resume`, false},
		{Redacted("a") + "-" + Redacted("b"), "a-b", true},
		{Redacted("a") + "-" + Redacted("b"), "b-a", false},
	} {
		assert.Equal(t, c.want, Unredacts(c.recorded, c.text), "%s vs %s", c.recorded, c.text)
	}
}

// TestGeneratedPlaceholderIsNoSecret: a string the harness generated is redacted under the
// credential key it was sent under, but not registered, so it is not scrubbed out of another
// scenario's longer generated string; a real secret planted the same ways still never shows,
// inside a longer string too.
func TestGeneratedPlaceholderIsNoSecret(t *testing.T) {
	Generated("key1-7321", "key1-5550")
	body, reds := redactFrame([]byte(`{"params":{"providers":[{"headers":{"key1":"key1-7321"}}]}}`))
	assert.Equal(t, `{"params":{"providers":[{"headers":{"key1":"`+Redacted("key1-7321")+`"}}]}}`, string(body), "redacted where it was found")
	assert.Equal(t, []Redaction{{Path: "params.providers[0].headers.key1", SHA256: Fingerprint("key1-7321")}}, reds)
	tests := []struct {
		name   string
		plant  func() // where the value is found
		secret string // the value found
		text   string // a later text holding it inside a longer string
		kept   bool   // whether the text reads back as it was (the value is no secret)
	}{
		{name: "a generated header value does not collide with a longer generated string",
			plant: func() {
				redactFrame([]byte(`{"params":{"providers":[{"headers":{"key1":"key1-7321"}}]}}`))
			},
			secret: "key1-7321", text: `{"value":"key1-73219"}`, kept: true},
		{name: "a planted header value inside a longer string",
			plant: func() {
				redactFrame([]byte(`{"params":{"provider":{"headers":{"key1":"planted-hdr-0042"}}}}`))
			},
			secret: "planted-hdr-0042", text: "xplanted-hdr-0042y"},
		{name: "a planted environment value inside a longer string",
			plant:  func() { AddSecretsFromEnv([]string{"ACME_API_KEY=planted-env-0043"}) },
			secret: "planted-env-0043", text: "PATH=/bin:planted-env-0043:/usr/bin"},
		{name: "a planted value in a driver's stderr, then in another line",
			plant:  func() { scrubRaw(`driver: {"apiKey": "planted-stderr-0044"}`) },
			secret: "planted-stderr-0044", text: "retrying with planted-stderr-00445"},
		{name: "a real secret holding a generated string is registered whole",
			plant: func() {
				redactFrame([]byte(`{"params":{"apiKey":"key1-5550-planted-0045"}}`))
			},
			secret: "key1-5550-planted-0045", text: "sent key1-5550-planted-0045!"},
		{name: "a generated string registered as a secret by its own name stays one",
			plant:  func() { AddSecretsFromEnv([]string{"GH_TOKEN=key1-5550"}) },
			secret: "key1-5550", text: "token=key1-55509"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.plant()
			got := Scrub(tt.text)
			if tt.kept {
				assert.Equal(t, tt.text, got)
				return
			}
			assert.NotContains(t, got, tt.secret)
			assert.Contains(t, got, Redacted(tt.secret))
		})
	}
}

// TestProviderHeaderWithoutAHintWord: a provider's header is a secret whatever its name, even in
// a frame holding no credential word at all (an earlier byte prefilter skipped such frames).
func TestProviderHeaderWithoutAHintWord(t *testing.T) {
	r := Memory()
	body := `{"jsonrpc":"2.0","id":3,"method":"session.create","params":{"provider":{"type":"openai","headers":{"X-Tenant":"tenant-value-77"}}}}`
	r.Frame("c1", SDKToRuntime, []byte(body))
	e := r.Entries()[0]
	assert.Equal(t, strings.Replace(body, "tenant-value-77", Redacted("tenant-value-77"), 1), string(e.Frame))
	assert.Equal(t, []Redaction{{Path: "params.provider.headers.X-Tenant", SHA256: Fingerprint("tenant-value-77")}}, e.Redacted)
}
