package transcript

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// Secrets never reach a transcript: the token an application gives its SDK (sent in connect's
// params as "token"; githubToken and the like in the options a driver is given) and the values
// of the environment variables the SDKs read it from. Each is recorded as
// "<redacted:sha256:XXXXXXXX>" (the first 8 hex digits of its SHA-256), and the entry keeps a
// typed Redaction naming the JSON path, so a feature can still check that a token was sent,
// where, and which one (compare Fingerprint of the token it planted).

// SecretEnv are the environment variables the SDKs read a GitHub token from.
var SecretEnv = []string{"COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN"}

// secretKeys are JSON keys (compared case-insensitively) whose string values are secrets. Every
// one contains "token", which the fast path relies on.
var secretKeys = map[string]bool{
	"token": true, "githubtoken": true, "github_token": true, "connectiontoken": true,
	"connection_token": true, "authtoken": true, "auth_token": true, "accesstoken": true, "access_token": true,
}

// SecretKey says whether the string value under a JSON key is recorded as a secret.
func SecretKey(k string) bool { return secretKeys[strings.ToLower(k)] }

// rawSecretRE finds a secret key's string value in bytes that are not valid JSON.
var rawSecretRE = regexp.MustCompile(`(?i)"(token|github_?token|connection_?token|auth_?token|access_?token)"\s*:\s*"((?:[^"\\]|\\.)*)"`)

// Redaction records one secret removed from a frame.
type Redaction struct {
	Path   string `json:"path"`   // JSON path in the frame, e.g. params.token
	SHA256 string `json:"sha256"` // Fingerprint of the secret
}

// Fingerprint is the first 8 hex digits of the secret's SHA-256: enough to tell which token was
// sent, too little to recover it.
func Fingerprint(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:4])
}

// Redacted is what a secret is recorded as.
func Redacted(secret string) string { return "<redacted:sha256:" + Fingerprint(secret) + ">" }

// minSecret: shorter values are not scrubbed from free text, where they would match innocent
// words; they are still redacted under a secret key.
const minSecret = 6

var known struct {
	mu     sync.RWMutex
	values []string // longest first, so a secret containing another is replaced whole
}

// AddSecret makes every later recorded entry (and Scrub) replace v wherever it appears.
func AddSecret(v string) {
	if len(v) < minSecret || strings.HasPrefix(v, "<redacted:") {
		return
	}
	known.mu.Lock()
	defer known.mu.Unlock()
	for _, x := range known.values {
		if x == v {
			return
		}
	}
	known.values = append(known.values, v)
	sort.Slice(known.values, func(i, j int) bool { return len(known.values[i]) > len(known.values[j]) })
}

// AddSecretsFromEnv registers the values of SecretEnv found in environ ("NAME=value" pairs) and
// returns "NAME=<redacted:…>" for each, for a transcript note.
func AddSecretsFromEnv(environ []string) []string {
	var found []string
	for _, kv := range environ {
		name, v, _ := strings.Cut(kv, "=")
		for _, s := range SecretEnv {
			if name == s && v != "" {
				AddSecret(v)
				found = append(found, name+"="+Redacted(v))
			}
		}
	}
	return found
}

// Scrub replaces every registered secret in s (for logs and reports as well as transcripts).
func Scrub(s string) string {
	known.mu.RLock()
	defer known.mu.RUnlock()
	for _, v := range known.values {
		if strings.Contains(s, v) {
			s = strings.ReplaceAll(s, v, Redacted(v))
		}
	}
	return s
}

// scrubRaw redacts secret keys' values in bytes that are not JSON, then every registered secret.
func scrubRaw(s string) string {
	s = rawSecretRE.ReplaceAllStringFunc(s, func(m string) string {
		sub := rawSecretRE.FindStringSubmatch(m)
		var v string
		if json.Unmarshal([]byte(`"`+sub[2]+`"`), &v) != nil {
			v = sub[2]
		}
		AddSecret(v)
		return m[:len(m)-len(sub[2])-1] + Redacted(v) + `"`
	})
	return Scrub(s)
}

// redactFrame returns body with every secret key's string value replaced, the redactions made,
// and every registered secret scrubbed. Other bytes are kept exactly.
func redactFrame(body []byte) ([]byte, []Redaction) {
	var reds []Redaction
	if containsFold(body, "token") {
		var v any
		d := json.NewDecoder(bytes.NewReader(body))
		d.UseNumber()
		if d.Decode(&v) == nil {
			var secrets []string
			walkSecrets(v, "", func(path, secret string) {
				reds = append(reds, Redaction{Path: path, SHA256: Fingerprint(secret)})
				secrets = append(secrets, secret)
			})
			for _, s := range secrets {
				AddSecret(s)
				body = replaceJSONString(body, s, Redacted(s))
			}
			if len(secrets) > 0 && !allRedacted(body) {
				// The secret was escaped in a way the byte replacement did not meet (\u0067…):
				// re-encode the whole frame rather than keep it.
				walkSecrets(v, "", nil)
				var out bytes.Buffer
				enc := json.NewEncoder(&out)
				enc.SetEscapeHTML(false)
				_ = enc.Encode(v)
				body = bytes.TrimRight(out.Bytes(), "\n")
			}
		}
	}
	if s := Scrub(string(body)); s != string(body) {
		body = []byte(s)
	}
	return body, reds
}

// walkSecrets calls fn for each string value under a secret key; with fn nil it replaces them
// in place by their redacted form.
func walkSecrets(v any, path string, fn func(path, secret string)) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			p := k
			if path != "" {
				p = path + "." + k
			}
			if s, ok := x[k].(string); ok && secretKeys[strings.ToLower(k)] && !strings.HasPrefix(s, "<redacted:") {
				if fn == nil {
					x[k] = Redacted(s)
				} else {
					fn(p, s)
				}
				continue
			}
			walkSecrets(x[k], p, fn)
		}
	case []any:
		for i, e := range x {
			walkSecrets(e, fmt.Sprintf("%s[%d]", path, i), fn)
		}
	}
}

func allRedacted(body []byte) bool {
	var v any
	if json.Unmarshal(body, &v) != nil {
		return false
	}
	clean := true
	walkSecrets(v, "", func(string, string) { clean = false })
	return clean
}

// replaceJSONString replaces the JSON string literal of old with that of repl, in both the
// HTML-escaped and the plain encodings.
func replaceJSONString(body []byte, old, repl string) []byte {
	quote := func(s string, html bool) []byte {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(html)
		_ = enc.Encode(s)
		return bytes.TrimRight(b.Bytes(), "\n")
	}
	for _, html := range []bool{false, true} {
		body = bytes.ReplaceAll(body, quote(old, html), quote(repl, false))
	}
	return body
}

// containsFold reports whether b contains the lower-case ASCII word sub in any case.
func containsFold(b []byte, sub string) bool {
	w := []byte(sub)
	for i := 0; i+len(w) <= len(b); i++ {
		if b[i]|0x20 == w[0] && bytes.EqualFold(b[i:i+len(w)], w) {
			return true
		}
	}
	return false
}
