package standin

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// pieces records each Write it is given.
type pieces struct{ got []string }

func (p *pieces) Write(b []byte) (int, error) { p.got = append(p.got, string(b)); return len(b), nil }

func TestFramingWriterSplitsEachWrite(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    Framing
		want []string
	}{
		{"unchanged", Framing{}, []string{"abcdefghijklmnop"}},
		{"pieces of 5", Framing{SplitEvery: 5}, []string{"abcde", "fghij", "klmno", "p"}},
		{"5 bytes, then the rest at once", Framing{SplitEvery: 5, PieceLimit: 2}, []string{"abcde", "fghijklmnop"}},
		{"5 bytes, then the rest in two", Framing{SplitEvery: 5, PieceLimit: 3}, []string{"abcde", "fghijk", "lmnop"}},
		{"a limit above the bytes there are", Framing{SplitEvery: 5, PieceLimit: 20}, []string{"abcde", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "p"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var p pieces
			n, err := tc.f.Writer(&p).Write([]byte("abcdefghijklmnop"))
			assert.NoError(t, err)
			assert.Equal(t, 16, n)
			assert.Equal(t, tc.want, p.got)
		})
	}
}
