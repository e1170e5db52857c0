package report

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestGist(t *testing.T) {
	tests := []struct{ msg, want string }{
		{"boom", "boom"},
		{"boom\nmore", "boom"},
		{"2 steps failed:\n1. step \"x\": want [], got null\n2. step \"y\": boom", `2 steps failed: step "x": want [], got null`},
		{"2 steps failed:\n\n  - tools[0].isTerminal: want true, got <absent>\n  - other", "2 steps failed: tools[0].isTerminal: want true, got <absent>"},
		{"the sweep found problems:", "the sweep found problems:"},
		{"  padded  \n", "padded"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Gist(tt.msg), tt.msg)
	}
}
