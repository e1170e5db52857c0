package transcript

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
)

// Secrets never reach a transcript: the token an application gives its SDK (sent in connect's
// params as "token"; githubToken and the like in the options a driver is given) and the values
// of the environment variables the SDKs read it from. Each is recorded as
// "<redacted:sha256:XXXXXXXX>" (the first 8 hex digits of its SHA-256), and the entry keeps a
// typed Redaction naming the JSON path, so a feature can still check that a token was sent,
// where, and which one (compare Fingerprint of the token it planted).

// SecretEnv are the environment variables the SDKs read a GitHub token from. Any other variable
// whose name says it holds a credential (SecretEnvName) is a secret too.
var SecretEnv = []string{"COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN"}

// secretKeys are JSON keys (compared case-insensitively) whose string values are secrets
// whatever the rule of CredentialKey says (names written as one lower-case word).
var secretKeys = map[string]bool{
	"token": true, "githubtoken": true, "github_token": true, "connectiontoken": true,
	"connection_token": true, "authtoken": true, "auth_token": true, "accesstoken": true, "access_token": true,
}

// Credentials by what a value is, not by a fixed list: a key names a credential when its last
// word (camelCase, snake_case and kebab-case split into words) is a credential noun, or "key"
// qualified as one (apiKey, x-api-key, privateKey; "key" alone names a map's key). The runtime's
// schema adds the string properties it describes as secrets (CredentialKeysFromSchema), and a
// provider's header map is a secret in every value (walkSecrets).
var (
	credentialLast = map[string]bool{"token": true, "secret": true, "password": true, "passwd": true,
		"passphrase": true, "credential": true, "authorization": true, "cookie": true, "apikey": true}
	keyQualifiers = map[string]bool{"api": true, "access": true, "private": true, "secret": true, "client": true,
		"session": true, "auth": true, "subscription": true, "signing": true, "encryption": true}
)

// SecretKey says whether the string value under a JSON key is recorded as a secret.
func SecretKey(k string) bool { return CredentialKey(k) }

// CredentialKey says whether a JSON key or header name names a credential (see above).
func CredentialKey(k string) bool {
	lk := strings.ToLower(k)
	if secretKeys[lk] {
		return true
	}
	if d := derivedLower.Load(); d != nil && (*d)[lk] {
		return true
	}
	w := words(k)
	if len(w) == 0 {
		return false
	}
	last := w[len(w)-1]
	return credentialLast[last] || (last == "key" && len(w) >= 2 && keyQualifiers[w[len(w)-2]])
}

// SecretEnvName says whether an environment variable's name says it holds a credential: one of
// its words (split at "_") is KEY, TOKEN, SECRET, PASSWORD, PASSWD, PASSPHRASE or CREDENTIAL(S).
func SecretEnvName(name string) bool {
	for _, w := range strings.Split(strings.ToUpper(name), "_") {
		switch w {
		case "KEY", "APIKEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "PASSPHRASE", "CREDENTIAL", "CREDENTIALS":
			return true
		}
	}
	return false
}

// words splits a key into lower-case words at non-alphanumerics and at a lower-to-upper change.
func words(k string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	rs := []rune(k)
	for i, r := range rs {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
			continue
		case unicode.IsUpper(r) && i > 0 && (unicode.IsLower(rs[i-1]) || unicode.IsDigit(rs[i-1])):
			flush()
		}
		cur = append(cur, r)
	}
	flush()
	return out
}

// secretDescription is how a schema describes a string that is a credential: "Treat as a
// secret", or a description whose subject is one ("HMAC secret used to sign…", "Optional
// password for…", "Short-lived, rotating credential…"), not one that only mentions one ("Why the
// runtime is requesting OAuth credentials", "Name of the server whose credentials…", "Key
// matched at the source level").
var secretDescription = regexp.MustCompile(`(?i)treat as a secret|^(?:(?:the|a|an|optional|short-lived,?|rotating|raw|oauth|hmac|client|api|bearer|access|personal)\s+)*(?:secret|password|credential|api key|bearer token|access token)\b`)

// notAValue are the last words of names that say what a value is about, not that it is one
// ("serverName": the server whose credentials changed).
var notAValue = map[string]bool{"name": true, "id": true, "url": true, "uri": true, "type": true, "path": true, "var": true, "kind": true, "username": true, "user": true, "login": true}

// CredentialKeysFromSchema derives credential keys from a JSON Schema document (the runtime's
// api.schema.json, session-events.schema.json): every string property the key rule marks, has
// format "password" or writeOnly, or whose description calls it a secret, a password, a
// credential, an API key or a bearer or access token, unless its name says it is about one
// (a name, id, URL, type or path). Booleans, numbers and objects are never taken: "maxTokens"
// and "refreshSessionToken" are not secrets.
func CredentialKeysFromSchema(doc []byte) ([]string, error) {
	var root any
	if err := json.Unmarshal(doc, &root); err != nil {
		return nil, err
	}
	found := map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if props, ok := x["properties"].(map[string]any); ok {
				for name, p := range props {
					if ps, ok := p.(map[string]any); ok && stringTyped(ps) && credentialProperty(name, ps) {
						found[name] = true
					}
				}
			}
			for _, e := range x {
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(root)
	return slices.Sorted(maps.Keys(found)), nil
}

func stringTyped(p map[string]any) bool {
	switch t := p["type"].(type) {
	case string:
		return t == "string"
	case []any:
		for _, e := range t {
			if e == "string" {
				return true
			}
		}
	}
	return false
}

func credentialProperty(name string, p map[string]any) bool {
	if CredentialKey(name) || p["format"] == "password" || p["writeOnly"] == true {
		return true
	}
	w := words(name)
	if len(w) == 0 || notAValue[w[len(w)-1]] {
		return false
	}
	d, _ := p["description"].(string)
	return secretDescription.MatchString(d)
}

// AddCredentialKeys makes every later recorded frame redact the string values under these keys.
func AddCredentialKeys(keys ...string) {
	derivedMu.Lock()
	defer derivedMu.Unlock()
	next := map[string]bool{}
	if d := derivedLower.Load(); d != nil {
		maps.Copy(next, *d)
	}
	for _, k := range keys {
		next[strings.ToLower(k)] = true
	}
	derivedLower.Store(&next)
}

// derivedLower holds the lower-case credential keys from the runtime's schema, as a map replaced
// whole on each change: CredentialKey and mayHoldCredential read it without a lock.
var (
	derivedMu    sync.Mutex
	derivedLower atomic.Pointer[map[string]bool]
)

// rawSecretRE finds a key's string value in bytes that are not valid JSON (CredentialKey then
// says whether it is a secret).
var rawSecretRE = regexp.MustCompile(`"([A-Za-z0-9_-]+)"\s*:\s*"((?:[^"\\]|\\.)*)"`)

// tokenShapeRE finds credentials by their published shapes wherever they appear in free text
// (a step's text, a message): GitHub's token prefixes and fine-grained PATs, OpenAI-style
// "sk-" keys, and a value after "Bearer ".
var tokenShapeRE = regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{16,}|github_pat_[A-Za-z0-9_]{20,}|sk-[A-Za-z0-9_-]{16,})\b|(?i:\bbearer\s+)([A-Za-z0-9._~+/=-]{12,})`)

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
	// any finds whether a text holds any of values in one pass (nil: none registered): most
	// texts hold none, and one Contains per secret read every report byte 80 times.
	any *finder
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
	known.any = newFinder(false, known.values)
}

// Secrets is how many secrets are registered: a reader that scrubbed several texts at once
// scrubs them again when a text registered one (Scrub registers what tokenShapeRE finds).
func Secrets() int {
	known.mu.RLock()
	defer known.mu.RUnlock()
	return len(known.values)
}

// AddSecretsFromEnv registers the values of SecretEnv, and of every variable whose name says it
// holds a credential (SecretEnvName: OPENAI_API_KEY, …), found in environ ("NAME=value" pairs)
// and returns "NAME=<redacted:…>" for each, for a transcript note.
func AddSecretsFromEnv(environ []string) []string {
	var found []string
	for _, kv := range environ {
		name, v, _ := strings.Cut(kv, "=")
		if v != "" && (slices.Contains(SecretEnv, name) || (SecretEnvName(name) && secretLike(v))) {
			AddSecret(v)
			found = append(found, name+"="+Redacted(v))
		}
	}
	return found
}

// secretLike says whether a value under a credential-named variable can be a secret: not a
// number, a boolean or a file path (GOOGLE_APPLICATION_CREDENTIALS names a file; scrubbing "100000"
// or "/home" from every report would only hide the report).
func secretLike(v string) bool {
	if v == "true" || v == "false" || strings.HasPrefix(v, "/") || strings.HasPrefix(v, "~") {
		return false
	}
	return strings.Trim(v, "0123456789.") != ""
}

// generated holds the strings the harness generated itself (schemagen's values for the sweeps):
// placeholders it knows, not credentials. One under a credential key (a provider's header map's
// "key1-732") is redacted where it was found, as any value there is, but not registered for
// Scrub: registered, it was scrubbed out of every longer string holding it, another scenario's
// generated "key1-7328" among them, which then read back as a value the SDK changed.
//
// Why this and not scrubbing a secret only where it is a whole token: a real credential written
// next to other characters ("xSECRETy", a secret concatenated into a URL or a log line) would
// then leak. Here only a string the harness made is exempt, and only that exact string: a real
// secret is never generated, and one that holds a generated string is still registered whole.
var generated sync.Map // string -> struct{}

// Generated tells the transcript that the harness generated these strings (see generated).
func Generated(vs ...string) {
	for _, v := range vs {
		if len(v) >= minSecret { // shorter ones are never registered anyway
			generated.Store(v, struct{}{})
		}
	}
}

// IsGenerated says whether the harness generated v (Generated).
func IsGenerated(v string) bool {
	_, ok := generated.Load(v)
	return ok
}

// addFound registers a value found under a credential key for Scrub when it can be a credential
// written out: printable ASCII without spaces, or an authorization scheme and one (it says
// whether it was written out). The value is redacted where it was found either way; a
// non-ASCII string ("héllo wörld", shared by many fields of a sweep's case) and a string the
// harness generated (generated) are not also scrubbed from every other place they occur.
func addFound(v string) bool {
	written := func(s string) bool {
		for _, r := range s {
			if r <= ' ' || r > '~' {
				return false
			}
		}
		return s != ""
	}
	register := func(s string) {
		if !IsGenerated(s) {
			AddSecret(s)
		}
	}
	if written(v) {
		register(v)
		return true
	}
	// An Authorization value: a scheme, one space, the credential ("Basic dXNlcjpwYXNz").
	if scheme, cred, ok := strings.Cut(v, " "); ok && written(scheme) && written(cred) {
		register(v)
		register(cred)
		return true
	}
	return false
}

// Scrub replaces every registered secret, and every value shaped as a credential
// (tokenShapeRE), in s (for logs and reports as well as transcripts).
func Scrub(s string) string {
	known.mu.RLock()
	if known.any != nil && known.any.any(s) {
		for _, v := range known.values {
			if strings.Contains(s, v) {
				s = strings.ReplaceAll(s, v, Redacted(v))
			}
		}
	}
	known.mu.RUnlock()
	return scrubShapes(s)
}

// shapeStarts are the literal starts of tokenShapeRE's alternatives, each found (in any ASCII
// case) by one pass of shapeHints: the regular expression, which has no literal prefix, tries
// every byte of a text, and most texts hold none of these.
var (
	shapeStarts = []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "sk-", "bearer"}
	shapeHints  = newFinder(true, shapeStarts)
)

// mayHoldShape says whether tokenShapeRE can match in s: some shape start follows a word
// boundary (\b: not after an ASCII letter, digit or underscore), and "bearer" is followed by
// white space and a character of a bearer credential.
func mayHoldShape(s string) bool {
	may := false
	shapeHints.each(s, func(pat, i int) bool {
		if i > 0 && wordByte(s[i-1]) {
			return true
		}
		if shapeStarts[pat] != "bearer" {
			may = true
			return false
		}
		rest := s[i+len(shapeStarts[pat]):]
		after := strings.TrimLeft(rest, "\t\n\f\r ")
		may = len(after) < len(rest) && after != "" && bearerByte(after[0])
		return !may
	})
	return may
}

func wordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// bearerByte is tokenShapeRE's class of a bearer credential's characters.
func bearerByte(c byte) bool {
	return wordByte(c) && c != '_' || strings.IndexByte("._~+/=-", c) >= 0
}

// scrubShapes replaces the values tokenShapeRE finds, registering each.
func scrubShapes(s string) string {
	if !mayHoldShape(s) {
		return s
	}
	return tokenShapeRE.ReplaceAllStringFunc(s, func(m string) string {
		sub := tokenShapeRE.FindStringSubmatch(m)
		v := m
		if sub[1] != "" { // after "Bearer "
			v = sub[1]
		}
		if !strings.HasPrefix(v, "gh") && !strings.HasPrefix(v, "github_pat_") && !strings.ContainsAny(v, "0123456789") {
			return m // a word ("Bearer authentication", "sk-learn-compatible"), not a key
		}
		AddSecret(v)
		return strings.Replace(m, v, Redacted(v), 1)
	})
}

// scrubRaw redacts secret keys' values in bytes that are not JSON, then every registered secret.
func scrubRaw(s string) string {
	s = rawSecretRE.ReplaceAllStringFunc(s, func(m string) string {
		sub := rawSecretRE.FindStringSubmatch(m)
		if !CredentialKey(sub[1]) || strings.HasPrefix(sub[2], "<redacted:") {
			return m
		}
		var v string
		if json.Unmarshal([]byte(`"`+sub[2]+`"`), &v) != nil {
			v = sub[2]
		}
		addFound(v)
		return m[:len(m)-len(sub[2])-1] + Redacted(v) + `"`
	})
	return Scrub(s)
}

// redactFrame returns body with every secret key's string value replaced, the redactions made,
// and every registered secret scrubbed. Other bytes are kept exactly.
func redactFrame(body []byte) ([]byte, []Redaction) {
	var reds []Redaction
	if mayHoldCredential(body) {
		var v any
		d := json.NewDecoder(bytes.NewReader(body))
		d.UseNumber()
		if d.Decode(&v) == nil {
			var secrets []string
			walkSecrets(v, "", false, func(path, secret string) {
				reds = append(reds, Redaction{Path: path, SHA256: Fingerprint(secret)})
				secrets = append(secrets, secret)
			})
			plain := true
			for _, s := range secrets {
				if !addFound(s) {
					plain = false
				}
			}
			if plain {
				body = replaceJSONStrings(body, secrets)
			}
			if len(secrets) > 0 && (!plain || !allRedacted(body)) {
				// The secret was escaped in a way the byte replacement did not meet (\u0067…),
				// or it is not one written out (addFound), whose equals elsewhere in the frame
				// (a sweep's shared generated string, a map key) must stay: re-encode the whole
				// frame rather than keep it.
				walkSecrets(v, "", false, nil)
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

// walkSecrets calls fn for each string value under a secret key, and each value of a provider's
// header map (allValues: below a "provider" key, every header may carry its credential: a
// custom auth scheme's header name says nothing); with fn nil it replaces them in place by
// their redacted form.
func walkSecrets(v any, path string, allValues bool, fn func(path, secret string)) {
	switch x := v.(type) {
	case map[string]any:
		keys := slices.Sorted(maps.Keys(x))
		inProvider := strings.Contains(strings.ToLower(path), "provider")
		for _, k := range keys {
			p := k
			if path != "" {
				p = path + "." + k
			}
			if s, ok := x[k].(string); ok && (allValues || CredentialKey(k)) && !strings.HasPrefix(s, "<redacted:") {
				if fn == nil {
					x[k] = Redacted(s)
				} else {
					fn(p, s)
				}
				continue
			}
			switch x[k].(type) {
			case map[string]any, []any: // nothing else holds a secret further down
				walkSecrets(x[k], p, allValues || (inProvider && hasSuffixFold(k, "headers")), fn)
			}
		}
	case []any:
		for i, e := range x {
			switch e.(type) {
			case map[string]any, []any:
				walkSecrets(e, path+"["+strconv.Itoa(i)+"]", allValues, fn)
			}
		}
	}
}

// RedactValue is v (decoded JSON) as a transcript records it at path (e.g. "params.provider"):
// an expectation a step compares with a recorded frame is redacted by the same rules, so a
// credential the application set is found on the wire by its fingerprint. v is changed in place
// where it is a map or a list.
func RedactValue(v any, path string) any {
	last := path
	if i := strings.LastIndex(path, "."); i >= 0 {
		last = path[i+1:]
	}
	if s, ok := v.(string); ok && CredentialKey(last) && !strings.HasPrefix(s, "<redacted:") {
		return Redacted(s)
	}
	lp := strings.ToLower(path)
	walkSecrets(v, path, strings.Contains(lp, "provider") && strings.HasSuffix(lp, "headers"), nil)
	return v
}

func allRedacted(body []byte) bool {
	var v any
	if json.Unmarshal(body, &v) != nil {
		return false
	}
	clean := true
	walkSecrets(v, "", false, func(string, string) { clean = false })
	return clean
}

// replaceJSONStrings replaces the JSON string literal of each secret with that of its Redacted
// form, in both the HTML-escaped and the plain encodings, in one pass over body (longest secret
// first where two start at one place).
func replaceJSONStrings(body []byte, secrets []string) []byte {
	quote := func(s string, html bool) string {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(html)
		_ = enc.Encode(s)
		return strings.TrimRight(b.String(), "\n")
	}
	byLength := slices.Clone(secrets)
	slices.SortStableFunc(byLength, func(a, b string) int { return len(b) - len(a) })
	var pairs []string
	for _, s := range byLength {
		repl := quote(Redacted(s), false)
		pairs = append(pairs, quote(s, false), repl)
		if h := quote(s, true); h != pairs[len(pairs)-2] {
			pairs = append(pairs, h, repl)
		}
	}
	return []byte(strings.NewReplacer(pairs...).Replace(string(body)))
}

// credentialHints are words one of which every key CredentialKey names by its rule contains.
var credentialHints = []string{"token", "key", "secret", "passw", "passphrase", "credential", "authorization", "cookie", "hmac"}

// mayHoldCredential says whether walkSecrets can find anything in the JSON text body: some
// object key names a credential (CredentialKey), or keys name a provider and headers (a
// provider's header map), or a key is escaped (then the decoder judges). It reads only the keys,
// so the frame is decoded only then: most frames hold keys such as "maxTokens" or "key" but no
// credential, and decoding every frame that held a hint word anywhere was the harness's largest
// CPU cost (a sixth of a whole run). Hand-written because encoding/json's tokenizer allocates
// every token, which costs about what the decoding it saves.
func mayHoldCredential(body []byte) bool {
	provider, headers := false, false
	for i := 0; i < len(body); {
		q := bytes.IndexByte(body[i:], '"')
		if q < 0 {
			return false
		}
		start := i + q + 1
		end, escaped := stringEnd(body, start)
		if end < 0 {
			return true // unterminated: not JSON; the decoder says so
		}
		i = end + 1
		k := i
		for k < len(body) && (body[k] == ' ' || body[k] == '\t' || body[k] == '\n' || body[k] == '\r') {
			k++
		}
		if k == len(body) || body[k] != ':' {
			continue // a string value
		}
		key := body[start:end]
		if escaped {
			return true
		}
		// Only a string under a credential key is a secret (walkSecrets); the keys inside an
		// object or a list under one are read on their own ("connect.option.connectionToken":
		// true in every hello is not).
		v := k + 1
		for v < len(body) && (body[v] == ' ' || body[v] == '\t' || body[v] == '\n' || body[v] == '\r') {
			v++
		}
		if v < len(body) && body[v] == '"' && keyMayBeCredential(key) {
			return true
		}
		provider = provider || containsFold(key, "provider")
		headers = headers || hasSuffixFold(key, "headers")
		if provider && headers {
			return true
		}
	}
	return false
}

// stringEnd is the index of the quote closing the JSON string that starts at start (-1: none),
// and whether the string holds an escape.
func stringEnd(b []byte, start int) (int, bool) {
	escaped := false
	for i := start; i < len(b); {
		q := bytes.IndexByte(b[i:], '"')
		if q < 0 {
			return -1, escaped
		}
		j := i + q
		n := 0 // backslashes right before the quote: an odd number escapes it
		for j-n-1 >= start && b[j-n-1] == '\\' {
			n++
		}
		if n > 0 || bytes.IndexByte(b[start:j], '\\') >= 0 {
			escaped = true
		}
		if n%2 == 0 {
			return j, escaped
		}
		i = j + 1
	}
	return -1, escaped
}

// keyMayBeCredential: CredentialKey for a key that holds a hint word, else whether the runtime's
// schema named it (derived keys need not hold one).
func keyMayBeCredential(key []byte) bool {
	for _, h := range credentialHints {
		if containsFold(key, h) {
			return CredentialKey(string(key))
		}
	}
	d := derivedLower.Load()
	if d == nil || len(*d) == 0 {
		return false
	}
	var buf [64]byte
	if len(key) > len(buf) {
		return CredentialKey(string(key))
	}
	for i, c := range key {
		buf[i] = lowerASCII(c)
	}
	return (*d)[string(buf[:len(key)])] || !isASCII(key) && CredentialKey(string(key))
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

// hasSuffixFold says whether s ends with the lower-case ASCII suffix in any ASCII case (no
// other letter lower-cases to one of these).
func hasSuffixFold[T string | []byte](s T, suffix string) bool {
	if len(s) < len(suffix) {
		return false
	}
	tail := s[len(s)-len(suffix):]
	for i := range len(suffix) {
		if lowerASCII(tail[i]) != suffix[i] {
			return false
		}
	}
	return true
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

// redactedRE is a secret as recorded (Redacted).
var redactedRE = regexp.MustCompile(`<redacted:sha256:([0-9a-f]{8})>`)

// Unredacts says whether recorded is text with secrets redacted (each one's Redacted in its
// place): a scenario whose name quotes a secret is recorded under the redacted name, and a
// replay finds it again by the name the features give it. Which values were secrets depends
// on what a run saw, so the marks are matched by fingerprint, not by scrubbing text again.
func Unredacts(recorded, text string) bool {
	marks := redactedRE.FindAllStringSubmatchIndex(recorded, -1)
	var match func(i, from int, rest string) bool
	match = func(i, from int, rest string) bool {
		if i == len(marks) {
			return rest == recorded[from:]
		}
		m := marks[i]
		lit := recorded[from:m[0]]
		if !strings.HasPrefix(rest, lit) {
			return false
		}
		rest = rest[len(lit):]
		for end := 1; end <= len(rest); end++ {
			if Fingerprint(rest[:end]) == recorded[m[2]:m[3]] && match(i+1, m[1], rest[end:]) {
				return true
			}
		}
		return false
	}
	return match(0, 0, text)
}
