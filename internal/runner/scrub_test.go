package runner

import (
	"strings"
	"testing"

	"github.com/copilot-sdk-conformance/conformance/internal/transcript"
	"github.com/stretchr/testify/assert"
)

// The driver log is written through Scrub line by line: a registered token split across writes,
// or on a last line without a newline, never reaches it.
func TestScrubLinesRedactsTokensAcrossWrites(t *testing.T) {
	const token = "ghp_ScrubLinesPlanted99"
	transcript.AddSecret(token)
	var out strings.Builder
	s := &ScrubLines{w: &out}
	for _, part := range []string{"auth with ghp_Scrub", "LinesPlanted99 ok\nsecond ", "line " + token} {
		_, err := s.Write([]byte(part))
		assert.NoError(t, err)
	}
	s.Flush()
	assert.NotContains(t, out.String(), "Planted99")
	assert.Equal(t, "auth with "+transcript.Redacted(token)+" ok\nsecond line "+transcript.Redacted(token), out.String())
}
