package runtime

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
		{"pieces of 5, the rest after the second", Framing{SplitEvery: 5, PieceLimit: 2}, []string{"abcde", "fghijklmnop"}},
		{"a limit above the pieces there are", Framing{SplitEvery: 5, PieceLimit: 9}, []string{"abcde", "fghij", "klmno", "p"}},
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
