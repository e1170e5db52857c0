package transcript

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestShapeHints: the one-pass prefilter says yes wherever tokenShapeRE matches, and no for the
// near misses a transcript is full of (a word before "sk-", "bearerToken", a redacted bearer).
func TestShapeHints(t *testing.T) {
	for _, c := range []struct {
		text string
		want bool
	}{
		{"token ghp_0123456789abcdefABCD end", true},
		{"GHP_0123456789abcdefABCD", true}, // any case: a superset of the expression
		{"x github_pat_0123456789abcdefghij_x", true},
		{`"sk-proj0123456789abcd"`, true},
		{"Authorization: Bearer abcdefghijklmnop1234", true},
		{"authorization: BEARER\t\tabc", true},
		{`"task":"task-750","turn"`, false},
		{`["ask-user"]`, false},
		{`"bearerToken":"x","hasBearerTokenProvider":true`, false},
		{"Bearer <redacted:sha256:0123abcd>", false},
		{"Bearer", false},
		{"xghp_0123456789abcdefABCD", false},
		{"", false},
	} {
		assert.Equal(t, c.want, mayHoldShape(c.text), "%q", c.text)
		if tokenShapeRE.MatchString(c.text) {
			assert.True(t, mayHoldShape(c.text), "the expression matches %q", c.text)
		}
	}
}

// FuzzShapeHints: the prefilter never says no where tokenShapeRE matches (it only skips texts
// the expression would leave as they are).
func FuzzShapeHints(f *testing.F) {
	for _, s := range []string{"Bearer abcdefghijklmnop1234", "ghp_0123456789abcdefABCD", "task-750", "sk-0123456789abcdef0", "a\fBeArEr\r=abcdefghijkl"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if tokenShapeRE.MatchString(s) && !mayHoldShape(s) {
			t.Fatalf("tokenShapeRE matches %q, the prefilter says no", s)
		}
	})
}

// BenchmarkScrub scrubs a transcript-sized text holding none of 80 registered secrets and no
// credential shape, as almost every report file and frame is: go test -bench Scrub ./internal/transcript
func BenchmarkScrub(b *testing.B) {
	for i := range 80 {
		AddSecret(fmt.Sprintf("bench-token-%03d", i))
	}
	line := `{"seq":12,"dir":"sdk->runtime","frame":{"jsonrpc":"2.0","id":7,"method":"session.create","params":{"task":"task-750","provider":{"bearerToken":"<redacted:sha256:0123abcd>"},"hasBearerTokenProvider":true}}}` + "\n"
	text := strings.Repeat(line, 4000)
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for b.Loop() {
		if Scrub(text) != text {
			b.Fatal("nothing to scrub")
		}
	}
}
