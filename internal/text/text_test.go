package text

import (
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFirstLine(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"one", "one"},
		{"one\ntwo\nthree", "one"},
		{"\nafter a blank line", ""},
		{"  spaced \n", "  spaced "},
	} {
		assert.Equal(t, tc.want, FirstLine(tc.in), "%q", tc.in)
	}
}

func TestTail(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"  short\n", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"the start is cut, the error kept", 9, "…rror kept"},
	} {
		assert.Equal(t, tc.want, Tail(tc.in, tc.n), "%q", tc.in)
	}
}

func TestShellWord(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"features/tools/x.feature", "features/tools/x.feature"},
		{"rust=1.0.29-preview.4", "rust=1.0.29-preview.4"},
		{"node=@github/copilot-sdk", "node=@github/copilot-sdk"},
		{"it's a tool", `'it'\''s a tool'`},
		{"", "''"},
		{"$HOME", "'$HOME'"},
		{"a b", "'a b'"},
	} {
		assert.Equal(t, tc.want, ShellWord(tc.in), "%q", tc.in)
	}
}

// TestShellWordRoundTrips asks a real shell to read each word back: what it prints is the string.
func TestShellWordRoundTrips(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skipf("no sh: %v", err)
	}
	for _, s := range []string{"plain", "it's", "a b\tc", "$(echo no)", "`no`", "x;y|z&", "*", "~", "é", "a@b:c,d", ""} {
		out, err := exec.Command(sh, "-c", "printf %s "+ShellWord(s)).Output()
		require.NoError(t, err, s)
		assert.Equal(t, s, string(out))
	}
}
