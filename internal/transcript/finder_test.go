package transcript

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// naiveEach is what finder.each must find: every start of every pattern, by start then pattern.
func naiveEach(fold bool, patterns []string, s string) [][2]int {
	var out [][2]int
	text := s
	if fold {
		text = asciiLower(s)
	}
	for i := range len(text) {
		for p, pat := range patterns {
			if fold {
				pat = asciiLower(pat)
			}
			if strings.HasPrefix(text[i:], pat) {
				out = append(out, [2]int{p, i})
			}
		}
	}
	return out
}

func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		b[i] = lowerASCII(c)
	}
	return string(b)
}

func finds(f *finder, s string) [][2]int {
	var out [][2]int
	f.each(s, func(p, i int) bool { out = append(out, [2]int{p, i}); return true })
	return out
}

func TestFinder(t *testing.T) {
	for _, c := range []struct {
		fold     bool
		patterns []string
		text     string
	}{
		{false, []string{"secret1", "secret12", "cret1"}, "xxsecret12 secret1secret1"},
		{true, shapeStarts, "GHP_x ghs_ Bearer sK-1 github_pat_ xbearer"},
		{true, []string{"kk"}, "\u212a\u212aKkk"}, // the Kelvin sign is not ASCII k
		{false, []string{"ab"}, "a"},
		{false, []string{"ab"}, ""},
	} {
		want := naiveEach(c.fold, c.patterns, c.text)
		assert.Equal(t, want, finds(newFinder(c.fold, c.patterns), c.text), "%q in %q", c.patterns, c.text)
		assert.Equal(t, len(want) > 0, newFinder(c.fold, c.patterns).any(c.text))
	}
}

// FuzzFinder: the one-pass finder finds exactly what a search per pattern finds.
func FuzzFinder(f *testing.F) {
	f.Add("bearer ghp_Bearer", "ghp_", "bear", true)
	f.Add("aaaa", "aa", "aaa", false)
	f.Fuzz(func(t *testing.T, text, p1, p2 string, fold bool) {
		if len(p1) < 2 || len(p2) < 2 {
			return
		}
		patterns := []string{p1, p2}
		assert.Equal(t, naiveEach(fold, patterns, text), finds(newFinder(fold, patterns), text))
	})
}

// TestMayHoldCredential: the key scan says yes wherever walkSecrets finds a secret, and no for
// frames whose only hint words are in values or in keys that name no credential.
func TestMayHoldCredential(t *testing.T) {
	AddCredentialKeys("webhookSigningMaterial")
	for _, c := range []struct {
		frame string
		want  bool
	}{
		{`{"params":{"token":"abc"}}`, true},
		{`{"params":{"gitHubToken" : "abc"}}`, true},
		{`{"a":{"WEBHOOKSIGNINGMATERIAL":"x"}}`, true}, // from the schema, no hint word
		{`{"provider":{"type":"openai","headers":{"X-Custom":"v"}}}`, true},
		{`{"a":{"to\u006ben":"x"}}`, true}, // an escaped key: the decoder judges
		{`{"maxTokens":5,"key":"k","inputTokens":1}`, false},
		{`{"text":"\"token\": \"abc\"","note":"apiKey"}`, false},
		{`{"providers":["x"],"list":"headers"}`, false},
		{`{"unterminated`, true},
		{`[1,2,"x"]`, false},
	} {
		assert.Equal(t, c.want, mayHoldCredential([]byte(c.frame)), c.frame)
	}
}

// FuzzMayHoldCredential: the key scan never says no where walkSecrets finds a secret.
func FuzzMayHoldCredential(f *testing.F) {
	for _, s := range []string{`{"params":{"token":"abc"}}`, `{"provider":{"headers":{"a":"b"}}}`, `{"x":"\"token\":1"}`, `{"a\\"b":{"apiKey":"c"}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, frame string) {
		var v any
		if json.Unmarshal([]byte(frame), &v) != nil {
			return
		}
		found := false
		walkSecrets(v, "", false, func(string, string) { found = true })
		if found && !mayHoldCredential([]byte(frame)) {
			t.Fatalf("walkSecrets finds a secret in %q, the key scan says no", frame)
		}
	})
}
